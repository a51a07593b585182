"""Reference solutions, out of sight until the learner asks for one.

Every lesson's exercises end with a cell `solution("2.1")`. It shows a button, and only a
click shows the code, so a saved notebook holds no answer under any exercise and its
collapsed preview gives nothing away. The code itself sits in
`teachagent/exercises/solutions/lessonN.py`, one section per exercise, each starting
with a line `# %% exercise N.M` and holding what the learner's cell would hold when
solved: the same names, ending with the same check.

The course's tests set `TEACHAGENT_CHECK_SOLUTIONS=1`. Then `solution("2.1")` also runs
that section where the learner would, in a copy of the notebook's names (so nothing the
learner wrote is overwritten), and fails unless its check says `correct`. Running every
notebook under nbval therefore proves each reference solution passes in the lesson's
real state, while each shipped gap still prints "not yet".
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.display import shorten
from ..base.errors import CourseError
from .checks import describe
from .quizzes import NAME, named

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
_SECTION = re.compile(r"^# %% exercise (\d+\.\d+)[ \t]*$", re.MULTILINE)


class NoSuchSolution(CourseError, KeyError):
    """There is no reference solution under that name."""

    def __str__(self) -> str:
        return str(self.args[0])


class SolutionFails(AssertionError):
    """A reference solution did not pass its own check: the course is broken, not the learner."""


def solution_source(exercise: str) -> str:
    """The reference solution of `exercise` ("2.1"), as the code a solved exercise cell holds."""
    exercise = named(exercise)
    found = NAME.fullmatch(exercise) if isinstance(exercise, str) else None
    lesson = found.group(1) if found else ""
    path = SOLUTIONS / f"lesson{lesson}.py"
    if not lesson or not path.is_file():  # checked by name first: a path of 5,000 digits is too long to look up
        shown = shorten(repr(exercise), 60) if isinstance(exercise, str) else describe(exercise)
        raise NoSuchSolution(f"there is no exercise {shown}: exercises are named like '2.1', as text in quotes")
    parts = _SECTION.split(path.read_text(encoding="utf-8"))
    sections = dict(zip(parts[1::2], parts[2::2]))
    if exercise not in sections:
        raise NoSuchSolution(f"lesson {lesson} has no exercise {exercise!r}; it has {', '.join(sections)}")
    return sections[exercise].strip() + "\n"


@dataclass(repr=False)
class Reveal:
    """A button that shows one reference solution when clicked (a widget; a line of text elsewhere)."""

    exercise: str
    code: str
    widget: Any

    def __repr__(self) -> str:
        return (f"Reference solution {self.exercise}: hidden until you click the button "
                f"(or run solution({self.exercise!r}, show=True))")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle


def solution(exercise: str, show: bool = False) -> Reveal | None:
    """A button revealing the reference solution of `exercise`; with `show=True`, the code printed at once."""
    exercise = named(exercise)
    code = solution_source(exercise)
    if os.environ.get("TEACHAGENT_CHECK_SOLUTIONS") == "1":
        verify(exercise, code, sys._getframe(1).f_globals)
    if show:
        print(code, end="")
        return None
    return Reveal(exercise, code, _button(code))


def verify(exercise: str, code: str, names: dict[str, Any]) -> None:
    """Run `code` in a copy of `names`, out of sight, and fail unless its check said `correct`."""
    scratch = dict(names)  # rebinding a name here leaves the learner's own untouched
    printed = _quietly(lambda: exec(compile(code, f"<solution {exercise}>", "exec"), scratch))
    if not any(line.startswith(f"exercise {exercise}: correct: ") for line in printed.splitlines()):
        raise SolutionFails(f"the reference solution of exercise {exercise} does not pass its check; it printed:\n{printed}")


def _quietly(run: Any) -> str:
    """What `run()` prints, captured together with anything it displays or plots, none of which reaches the cell."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    figures_before = set(pyplot.get_fignums()) if pyplot else set()
    try:
        from IPython.utils.capture import capture_output
    except ImportError:  # plain Python: only printing to capture
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            run()
        return buffer.getvalue()
    with capture_output(display=True) as captured:
        run()
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        for number in set(pyplot.get_fignums()) - figures_before:
            pyplot.close(number)  # a figure left open would be drawn under the cell
    return captured.stdout


def _button(code: str) -> Any:
    """The widget: a button that toggles the code below it."""
    import ipywidgets as widgets
    from IPython.display import Code, display

    button = widgets.Button(description="Show the solution", icon="eye", layout=widgets.Layout(width="auto"))
    shown = widgets.Output()

    def toggle(_: Any) -> None:
        shown.clear_output()
        if button.description.startswith("Show"):
            with shown:
                display(Code(code, language="python"))
            button.description = "Hide the solution"
        else:
            button.description = "Show the solution"

    button.on_click(toggle)
    return widgets.VBox([button, shown])

"""Your model's run beside the scripted reference (docs/models.md; every lesson from 01 on).

A lesson is written about a run: "the agent read the index, then each note, then
answered". That sentence is true of the lesson's scripted model and of no other model
in particular. So when the learner picks a real model, a cell that runs the lesson's
model runs the same task twice: on the learner's model, and on the scripted model the
lesson was written about, labelled "scripted reference". Two computed lines, one for each,
compare them, and the prose speaks only about the reference.

In scripted mode (the default, and what the stored outputs show) the two are one run,
and nothing extra is printed.

`beside_reference` returns both runs as one `Runs`, so a lesson needs one call per cell
for the reference: `runs.show(figure)` prints a figure of the run (of both, each on a
labelled line, under another model), and `show_beside(figure, a, b)` a figure of two
tasks' runs, such as a ratio of their Z.

A figure that needs a finished run (a ratio of two runs' Z, a "same conclusion", a cost
per article read) has no value when the run gave no answer or made no call.
`undefined_because` says so in one sentence, instead of a `0 times`, a `nan` or an
empty answer taken for one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from ..base.display import one_line
from ..base.errors import CourseError
from ..evaluation import Evaluation
from ..messages import STOPS, Response
from ..models import Model, is_scripted
from ..scripted import ScriptedModel
from ..trace import OUTCOMES, Run, says_something
from .local import CUT_OFF

Result = TypeVar("Result", Run, Response, list[Response], Evaluation)  # a run, a reply, a conversation's replies, an evaluation

REFERENCE = "scripted reference"
NEEDS = ("an answer", "a tool call")

# How a run that gave no answer ended, in the fewest words (the rest come from trace.OUTCOMES).
_ENDINGS = {
    "max_steps": "ran out of steps",
    "max_tokens": "was cut off at max_tokens",
    "refusal": "refused",
    "error": "stopped on a failed call",
}


def _fresh(script: Any) -> ScriptedModel:
    """A scripted model that plays `script` from its first step, whatever `script` was given as."""
    if isinstance(script, ScriptedModel):
        return dataclasses.replace(script)  # a new instance: nothing played yet
    if script is None:
        raise CourseError("beside_reference needs the lesson's script (the one given to select_model) for the reference")
    return ScriptedModel(script)


def _cut(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis: a line that compares runs stays short."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _quoted(text: str, width: int = 48) -> str:
    return repr(_cut(text, width))


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def describe(result: Run | Response | list[Response] | Evaluation) -> str:
    """A run, a reply, a conversation's replies or an evaluation in a few words: steps, Z, how it ended, the answer
    (or what came instead); for an evaluation, the tasks passed and their interval."""
    if isinstance(result, Evaluation):
        low, high = result.estimate.interval
        return (f"{result.label}: {result.estimate.successes}/{result.estimate.trials} tasks passed "
                f"(95 % interval {low:.2f}–{high:.2f}), Z = {result.Z:,} tokens in all")
    if isinstance(result, list) and result and all(isinstance(reply, Response) for reply in result):
        reads = ", ".join(str(reply.usage.total_input_tokens) for reply in result)
        return f"{len(result)} calls reading {reads} tokens; the last {describe(result[-1])}"
    if isinstance(result, Response):
        return _reply_in_words(result)
    if not isinstance(result, Run):
        raise CourseError(f"describe takes a Run, a Response or an Evaluation, not a {type(result).__name__}")
    n_calls = sum(len(step.response.tool_calls) for step in result.steps)
    head = f"{_steps(len(result.steps))}, {n_calls} tool call{'' if n_calls == 1 else 's'}, Z = {result.Z:,} tokens"
    if result.answered:
        return f"{head}, answered {_quoted(result.answer or '')}"
    if result.outcome in ("off_form", "empty_answer") and result.steps:
        why = "which breaks the answer's form" if result.outcome == "off_form" else "which says nothing"
        return f"{head}, ended with {_quoted(result.steps[-1].response.text)}, {why} ({result.outcome})"
    ending = _ENDINGS.get(result.outcome, OUTCOMES.get(result.outcome, result.outcome))
    return f"{head}, {ending} ({result.outcome}), no answer"


def _reply_in_words(reply: Response) -> str:
    """One reply in a few words: the calls it made, or what it wrote (local mode's cut-off note said, not quoted)."""
    if calls := reply.tool_calls:
        said = ", ".join(f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.input.items())})" for c in calls)
        return f"called {_cut(said, 80)} ({reply.stop_reason})"
    text = reply.text
    if text.startswith(CUT_OFF):  # local mode's own note, not the model's words
        note, _, so_far = text.partition(") ")
        wrote = note.strip("()") + (f", after writing {_quoted(so_far)}" if so_far.strip() else "")
    else:
        wrote = f"wrote {_quoted(text)}" if text.strip() else "wrote no text"
    return f"{wrote} ({reply.stop_reason}), no tool call"


def compare_line(yours: Run | Response | list[Response] | Evaluation, reference: Run | Response | list[Response] | Evaluation,
                 name: str) -> str:
    """The learner's run above the scripted reference, two labelled lines that read at a glance:

        your model (SmolLM2-135M-Instruct): 6 steps, ..., ran out of steps (max_steps), no answer
        scripted reference: 5 steps, ..., answered 'Saturn has the most known moons ...'
    """
    lines = (f"your model ({_cut(name, 60)}): {describe(yours)}", f"{REFERENCE}: {describe(reference)}")
    return "\n".join(one_line(line, 1000) for line in lines)  # each as safe text: nothing a model wrote can forge a line


@dataclasses.dataclass(frozen=True)
class Runs(Generic[Result]):
    """Your model's run of a task and the scripted reference's: one run, twice, in scripted mode.

    It unpacks as the pair `yours, reference`.
    """

    yours: Result
    reference: Result

    def __iter__(self) -> Iterator[Result]:
        return iter((self.yours, self.reference))

    @property
    def one_run(self) -> bool:
        """Whether the two are one run: the lesson's model was scripted."""
        return self.yours is self.reference

    def show(self, figure: Callable[[Result], object], needs: str | None = None) -> None:
        """Print `figure(run)`: see `show_beside`."""
        show_beside(figure, self, needs=needs)


YOURS = "your model:".ljust(len(REFERENCE) + 2)  # the two labels as wide as each other, so the lines read as a table


def show_beside(figure: Callable[..., object], *runs: Runs[Any], needs: str | None = None) -> None:
    """Print `figure` of the scripted reference's runs; under another model, of your runs first, each line labelled.

    `figure` takes one run from each of `runs`, in order: `show_beside(lambda a, b: a.Z / b.Z, inline, delegated)`.
    With `needs` ("an answer" or "a tool call"), your runs that lack it get `undefined_because`'s
    sentence instead of a figure that could not mean anything.
    """
    if not runs or not all(isinstance(r, Runs) for r in runs):
        raise CourseError("show_beside needs a figure, then what beside_reference returned for each run it reads")
    references = [r.reference for r in runs]
    if all(r.one_run for r in runs):
        print(figure(*references))
        return
    yours = [r.yours for r in runs]
    why = next((reason for run in yours if needs and (reason := undefined_because(run, needs))), None)
    for label, shown in ((YOURS, why or figure(*yours)), (f"{REFERENCE}: ", figure(*references))):
        text = str(shown)
        print(label.rstrip() + "\n" + text if "\n" in text else label + text)  # a figure of several lines: below its label


def beside_reference(run_on: Callable[[Model], Result], model: Model, script: Any) -> Runs[Result]:
    """Your run and the scripted reference's (`Runs`): `run_on(model)`, and the same task on the lesson's script.

    With a scripted `model` there is one run, returned as both, and nothing is printed: the
    lesson's own run is the reference. With any other model the task runs on both, and two
    computed lines compare them (`compare_line`).
    """
    if not callable(run_on):
        raise CourseError("beside_reference needs a function of a model that runs the task, "
                          "e.g. lambda m: Agent(m, tools).run(task)")
    if is_scripted(model):
        yours = run_on(model)
        return Runs(yours, yours)
    scripted = _fresh(script)  # first: a missing script is said before the learner's model is asked anything
    yours = run_on(model)
    reference = run_on(scripted)
    print(compare_line(yours, reference, getattr(model, "name", type(model).__name__)))
    return Runs(yours, reference)


def beside(run_on: Callable[[Model], Result], model: Model, script: Any) -> Result:
    """`run_on(model)`, your model's run (or reply, or replies); under any other model than the scripted one,
    the same task on the lesson's script too, and the two labelled lines of `compare_line`.

    `beside_reference` for a cell that goes on with your model's result alone: the prose
    speaks about the scripted reference through the line printed for it, so the cell
    needs no name for it, and the one line that runs your model is all it costs.
    """
    return beside_reference(run_on, model, script).yours


def undefined_because(result: Run | Response, needs: str = "an answer") -> str | None:
    """None when `result` has what a figure needs; else one sentence saying why the figure is not defined.

    `needs` is "an answer" (a ratio of runs, a "same conclusion", a verdict) or "a tool call"
    (a cost per article read, a fitted growth per step).
    """
    if needs not in NEEDS:
        raise CourseError(f"undefined_because: needs is one of {', '.join(map(repr, NEEDS))}, not {needs!r}")
    if isinstance(result, Response):
        has = bool(result.tool_calls) if needs == "a tool call" else (  # an answer as the loop takes one: not cut off
            STOPS[result.stop_reason].move == "answer" and says_something(result.text))
        who = "the scripted reply" if result.model == "scripted" else f"your model's reply ({_cut(result.model, 60)})"
    elif isinstance(result, Run):
        has = any(s.response.tool_calls for s in result.steps) if needs == "a tool call" else result.answered
        who = "the scripted run" if result.scripted else f"your model's run ({_cut(result.model, 60)})"
    else:
        raise CourseError(f"undefined_because takes a Run or a Response, not a {type(result).__name__}")
    if has:
        return None
    what = describe(result).removesuffix(", no answer")  # the sentence says so already
    return f"not defined: {who} has no {needs.split(' ', 1)[1]} ({what})"

"""Every lesson's quiz, in one place: the notebook asks what the key answers, and the check is fair.

Each lesson module's `QUIZ` holds the keys (teachagent/exercises/quizzes.py); each notebook asks
the questions in a markdown cell ("**Quiz 6.1.** ... - a) ... - b) ...") followed by a cell
calling `quiz("6.1", ...)`. Here: the options a notebook shows are exactly the key's, every
lesson has at least three questions, a right letter is accepted however it is written,
each wrong letter gets its own line, and no hostile object gets a traceback or a "correct".
"""

import importlib
import re
import sys
from pathlib import Path

import nbformat
import pytest
from learner_objects import AlwaysEqual, Broken

from teachagent.exercises import quiz

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("0[1-9]_*.ipynb"))
KEYS = {name: key for path in LESSONS
        for name, key in importlib.import_module(f"teachagent.exercises.lesson{int(path.name[:2])}").QUIZ.items()}


def asked(notebook: Path) -> dict[str, list[str]]:
    """The quiz questions a notebook asks (a bold "Quiz 6.1." or "4.1" heading), each with the option letters it shows."""
    questions = {}
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "markdown":
            continue
        heading = r"\*\*(?:Quiz |Question )?(\d+\.\d+)\.?\*\*"  # **Quiz 6.1.** or **4.1**; never **Exercise 4.1.**
        for name, body in re.findall(heading + r"(.*?)(?=" + heading.replace(r"(\d+\.\d+)", r"\d+\.\d+") + r"|\Z)",
                                     cell.source, flags=re.S):
            questions[name] = re.findall(r"^\s*[-*]\s*\**\(?([a-z])\)", body, flags=re.M)
    return questions


class LyingStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

    def strip(self, *args):
        raise RuntimeError("a learner's str method")


class Exits(str):
    def lower(self):
        sys.exit(0)


def line(capsys, question: str) -> str:
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(f"quiz {question}: "), out
    return out.removeprefix(f"quiz {question}: ")


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_each_lesson_asks_at_least_three_questions_with_the_keys_options(notebook):
    lesson = int(notebook.name[:2])
    questions = asked(notebook)
    keys = {name for name in KEYS if name.startswith(f"{lesson}.")}
    assert len(questions) >= 3, f"{notebook.name} asks {sorted(questions)}"
    assert set(questions) == keys, f"{notebook.name} asks {sorted(questions)}; the keys are {sorted(keys)}"
    for name, letters in questions.items():
        assert letters == KEYS[name].letters, f"quiz {name} shows options {letters}, its key knows {KEYS[name].letters}"
        source = nbformat.writes(nbformat.read(notebook, as_version=4))
        assert f'quiz(\\"{name}\\", quiz_{name.replace(".", "_")})' in source, f"no cell checks quiz {name}"


@pytest.mark.parametrize("question", sorted(KEYS))
def test_the_right_letter_however_written(capsys, question):
    answer = KEYS[question].answer
    for written in (answer, answer.upper(), f" ({answer}) ", f"{answer})"):
        quiz(question, written)
        assert line(capsys, question) == f"correct: ({answer}) — {KEYS[question].right}\n"


@pytest.mark.parametrize("question", sorted(KEYS))
def test_each_wrong_letter_says_why_not(capsys, question):
    for letter, why in KEYS[question].wrong.items():
        quiz(question, letter.upper())
        assert line(capsys, question) == f"not yet: ({letter}) is not it: {why}\n"


@pytest.mark.parametrize("question", sorted(KEYS))
@pytest.mark.parametrize("hostile", [..., AlwaysEqual(), Broken(), 1, None, "z", "a or b", "",
                                     LyingStr("a"), Exits("a")], ids=lambda value: type(value).__name__)
def test_nothing_hostile_passes_or_raises(capsys, question, hostile):
    quiz(question, hostile)
    said = line(capsys, question)
    if isinstance(hostile, str) and type(hostile) is not str:  # a str subclass is read as the letter it holds
        assert said.startswith(("correct: ", "not yet: (a) is not it"))
    else:
        assert said.startswith("not yet: ")

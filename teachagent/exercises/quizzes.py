"""The short quiz at the end of every lesson: a letter in, one line of feedback out.

A question and its options are written in the notebook; what is right, and why each
other option is not, lives in the lesson's check module as `QUIZ`:

    QUIZ = {"3.1": Question(answer="b", right="the loop stops when ...", wrong={"a": "...", "c": "..."})}

`quiz("3.1", "b")` prints `quiz 3.1: correct: the loop stops when ...`; a wrong letter
gets the line that explains that option, so a wrong answer still teaches something. The
line is the same kind as an exercise check's and never a traceback.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import CourseError
from .checks import NotYet, describe, filled, run_check

_LETTER = re.compile(r"[(\[]?\s*([a-z])\s*[)\].:]?")
NAME = re.compile(r"([0-9]{1,3})\.[0-9]{1,3}")  # a question's (and an exercise's) name: "3.1", in ASCII digits


class NoSuchQuestion(CourseError, ValueError):
    """`quiz` was asked about a question that does not exist, or named it in a form it cannot read."""


@dataclass(frozen=True)
class Question:
    """The key to one quiz question: the right letter, why it is right, and why each other letter is not."""

    answer: str
    right: str
    wrong: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.answer in self.wrong or not self.wrong:
            raise ValueError(f"a question needs wrong options other than its answer {self.answer!r}")

    @property
    def letters(self) -> list[str]:
        """Every option's letter, in order."""
        return sorted([self.answer, *self.wrong])

    def __repr__(self) -> str:
        return f"Question(options {', '.join(self.letters)}; the answer is hidden)"


def named(name: Any) -> Any:
    """A question's or an exercise's name as the plain text it holds (a str subclass's own methods never run);
    anything else as it is, to be refused by name."""
    return str.__str__(name) if isinstance(name, str) else name


def quiz(question: str, choice: Any) -> None:
    """Print one line: whether `choice` (a letter such as "b") answers quiz `question` (such as "3.1")."""
    question = named(question)
    key = _key(question)

    def test() -> str:
        letter = _letter(choice, key)
        if letter != key.answer:
            raise NotYet(f"({letter}) is not it: {key.wrong[letter]}")
        return f"({letter}) — {key.right}"

    print(f"quiz {question}: {run_check(question, test)}")


def _letter(choice: Any, key: Question) -> str:
    """The option the learner chose, as one lower-case letter; a clear NotYet for anything else."""
    choice = filled(choice, "your answer")
    options = ", ".join(f'"{letter}"' for letter in key.letters)
    if not isinstance(choice, str):
        raise NotYet(f"write the letter of your answer as text, one of {options}")
    if not str.strip(choice):  # the cell as it comes: `quiz_1_1 = ""`
        raise NotYet(f"put {', '.join(key.letters[:-1])} or {key.letters[-1]} between the quotes, "
                     "then run the cell again")
    match = _LETTER.fullmatch(str.lower(str.strip(choice)))
    if match is None or match.group(1) not in key.letters:
        raise NotYet(f"write just the letter of one option: one of {options}")
    return match.group(1)


def _key(question: Any) -> Question:
    """The key of question "N.M", from `teachagent.exercises.lessonN.QUIZ`; a one-line `NoSuchQuestion` if there is none."""
    named = NAME.fullmatch(question) if isinstance(question, str) else None
    if named is None:
        raise NoSuchQuestion(f"a quiz question is named like '3.1', as text in quotes, not {describe(question)}")
    try:
        module = importlib.import_module(f"teachagent.exercises.lesson{int(named.group(1))}")
    except ModuleNotFoundError:
        raise NoSuchQuestion(f"there is no quiz {question}: no lesson {int(named.group(1))} has questions; "
                             "each lesson's last cells name its own (such as '3.1')") from None
    questions: dict[str, Question] = getattr(module, "QUIZ", {})
    if question not in questions:
        raise NoSuchQuestion(f"there is no quiz {question}; lesson {int(named.group(1))}'s questions are "
                             f"{', '.join(questions) or 'none'}")
    return questions[question]

"""Exercises that start unsolved, and checks that say "not yet" instead of a traceback.

Course machinery, used by every lesson. An exercise cell holds starter code with the gap
marked `...`. At its end, a check runs the learner's code against the behaviour the
exercise asks for and prints one line:

    exercise 2.1: not yet: `add` still returns ... (fill in the marked gap)
    exercise 2.1: correct: add(2, 3) returned '5'

It never raises: a gap, a wrong answer and code that crashes (or calls `sys.exit`) all
end in "not yet" with what to look at. A fair check compares real built-in values, so
the helpers of checks.py turn what the learner's code returned into a plain `float`, `int`
or `str` without asking the learner's object anything: an object whose `__eq__` always
says True cannot pass for a right answer.

The reference solutions are not in
the notebooks: `solution("2.1")` (reveal.py) shows one when the learner asks. The short
conceptual questions at the end of each lesson are checked by `quiz("2.1", letter)`
(quizzes.py), and a "predict, then run" by `guess_line` (guesses.py). Each lesson's checks live
in `teachagent.exercises.lessonN`, where `tests/` feeds them right, wrong and hostile answers.
"""

from .checks import (
    NotYet,
    check,
    close,
    describe,
    error_text,
    expect,
    filled,
    number,
    numbers_in,
    plain,
    run_check,
    text,
    whole,
)
from .guesses import guess_line
from .quizzes import Question, quiz
from .reveal import solution

__all__ = [
    "NotYet",
    "Question",
    "check",
    "close",
    "describe",
    "error_text",
    "expect",
    "filled",
    "guess_line",
    "number",
    "numbers_in",
    "plain",
    "quiz",
    "run_check",
    "solution",
    "text",
    "whole",
]

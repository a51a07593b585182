"""Exercises that start unsolved, and checks that say "not yet" instead of a traceback.

Course machinery, used by every lesson. An exercise cell holds starter code with the gap
marked `...`. Below it, `check(...)` runs the learner's code against the behaviour the
exercise asks for and prints one line:

    exercise 2.1: not yet: `add` still returns ... (fill in the marked gap)
    exercise 2.1: correct: add(2, 3) returned '5'

It never raises: a gap, a wrong answer and code that crashes all end in "not yet" with
what to look at. The reference solution sits in a collapsed cell below, under names of
its own, and calls the same check, so "Run All" on a fresh notebook never fails and
never overwrites what the learner wrote. Each lesson's checks live in
`teachagent.exercises.lessonN`, where a test can feed them a wrong and a right answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class NotYet(Exception):
    """What a check found missing or wrong, in one line the learner can act on."""


def filled(value: Any, name: str) -> Any:
    """`value`, unless it is still the `...` that marks the gap."""
    if value is Ellipsis:
        raise NotYet(f"`{name}` is still ... (fill in the marked gap)")
    return value


def number(value: Any, name: str) -> float:
    """`value` as a float, unless it is the gap or not a number (a bool is no number here)."""
    value = filled(value, name)
    expect(isinstance(value, (int, float)) and not isinstance(value, bool), f"`{name}` should be a number, not {value!r}")
    return float(value)


def expect(condition: bool, problem: str) -> None:
    """Go on if `condition` holds; otherwise the check says "not yet: <problem>"."""
    if not condition:
        raise NotYet(problem)


def check(exercise: str, test: Callable[[], str]) -> None:
    """Run `test` and print one line: "correct: <what it showed>" or "not yet: <what to fix>".

    `test` returns a short account of what the learner's code did right, or raises
    `NotYet`. Any other exception from the learner's code is reported the same way, in
    one line. It prints and returns nothing, so a cell that ends with it shows that line only.
    """
    try:
        shown = test()
    except NotYet as problem:
        print(f"exercise {exercise}: not yet: {problem}")
        return
    except Exception as error:  # the learner's code crashed: name it, in one line, and carry on
        print(f"exercise {exercise}: not yet: your code raised {type(error).__name__}: {error}")
        return
    print(f"exercise {exercise}: correct: {shown}")

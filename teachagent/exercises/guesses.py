"""A lesson's "predict, then run": your guess beside the measured figure, in one line (lessons 1 and 3 to 6).

The figure a learner is asked to predict must not be in sight before they guess, wherever
the notebook is read (GitHub and nbviewer show every output, folded or not). So the lesson
prints it first through `guess_line`, whose stored output, with no guess yet, says only
that; the cells below it may then show the figure freely. It returns the line, so a lesson
can print it, or show it for your model's run and the scripted reference's (`show_beside`).
"""

from __future__ import annotations

import math
from typing import Any

from .checks import NotYet, describe, number


def guess_line(guess: Any, measured: float, said: str) -> str:
    """One line: your guess, then `said` with the measured figure; or that there is no guess yet.

    `said` is a sentence with one `{}` for the figure, formatted as it should be shown
    ("the main agent read {:.1f} times less"). Nothing of the figure is said before a guess.
    """
    if guess is Ellipsis:
        return "no guess yet: write a number in place of the ... in the guess cell, run it, then run this cell"
    try:
        value = number(guess, "your guess")
    except NotYet:
        value = math.nan
    if not math.isfinite(value):
        return f"your guess is {describe(guess)}, not a number: write one in place of the ..., such as 3"
    return f"you guessed {value:g}; {said.format(measured)}"

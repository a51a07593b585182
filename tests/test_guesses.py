"""A "predict, then run": the guess beside the figure, and nothing of the figure before a guess
(teachagent/exercises/guesses.py)."""

import numpy as np
import pytest
from learner_objects import AlwaysEqual, Broken

from teachagent.exercises import guess_line


def test_no_guess_yet_says_nothing_of_the_figure():
    line = guess_line(..., 22.8, "the main agent read {:.1f} times less")
    assert line.startswith("no guess yet") and "22.8" not in line and "\n" not in line


@pytest.mark.parametrize("guess, shown", [(10, "10"), (2.5, "2.5"), (np.float64(46.0), "46"), (-3, "-3")])
def test_a_guess_is_said_beside_the_figure(guess, shown):
    assert guess_line(guess, 22.84, "the main agent read {:.1f} times less") == (
        f"you guessed {shown}; the main agent read 22.8 times less")


@pytest.mark.parametrize("guess", ["10", None, AlwaysEqual(), Broken(), float("nan"), float("inf"), True])
def test_what_is_not_a_number_is_one_line_and_says_nothing_of_the_figure(guess):
    line = guess_line(guess, 22.8, "the main agent read {:.1f} times less")
    assert "not a number" in line and "22.8" not in line and "\n" not in line

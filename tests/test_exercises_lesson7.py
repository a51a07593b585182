"""The checks of lesson 7's exercises (notebooks/07_reliability.ipynb) say "not yet" to the gap and to wrong
answers, and "correct" to a right one; its "predict, then run" says what a guess missed."""

from __future__ import annotations

from teachagent import step_success
from teachagent.exercises.lesson7 import check_fifty_steps, check_q_by_hand, check_retries, compare_guess


def test_compare_guess(said):
    compare_guess(..., 0.79)
    assert said().startswith("no guess yet: ")
    for guess in ("most of the time", 79, True):
        compare_guess(guess, 0.79)
        assert said().startswith(f"your guess {guess!r} is not a chance between 0 and 1")
    compare_guess(0.3, 0.79)
    assert said() == "you guessed 30%; the formula gives 79.0%: 49 percentage points higher\n"
    compare_guess(0.95, 0.79)
    assert said() == "you guessed 95%; the formula gives 79.0%: 16 percentage points lower\n"
    compare_guess(0.8, 0.79)
    assert said() == "you guessed 80%; the formula gives 79.0%: close\n"


def test_q_by_hand(said):
    for answer in (..., "0.988", 0.95, 0.95 * (1 - 0.05 * 0.8)):
        check_q_by_hand(answer)
        assert said().startswith("exercise 7.1: not yet: ")
    check_q_by_hand(0.95 + 0.05 * 0.8 * 0.95)
    assert said() == "exercise 7.1: correct: q = 0.95 + 0.038 = 0.9880\n"


def test_retries(said):
    limit = 0.9 / (1 - 0.1 * 0.9)
    for answer in [(..., ...), (1, limit), (3, limit), (2.0, limit), (-1, limit), (2, ...), (2, 0.99), (2, 1.0),
                   (2, step_success(0.9, 0.9, 2))]:
        check_retries(*answer)
        assert said().startswith("exercise 7.2: not yet: ")
    check_retries(2, limit)
    assert said().startswith("exercise 7.2: correct: r = 2 gives q = 0.98829; unlimited retries give only 0.98901")


def test_fifty_steps(said):
    q = 0.9 ** (1 / 50)
    wrong = [(..., ..., ...), (0.9 / 50, False, True), (1 - 0.1 / 50 * 2, False, True), (q, ..., True), (q, False, ...),
             (q, True, True), (q, False, False), (q, True, False), (q, "no", "yes"), (q, 0, 1)]
    for answer in wrong:
        check_fifty_steps(*answer)
        assert said().startswith("exercise 7.3: not yet: ")
    check_fifty_steps(q, False, True)
    assert said() == ("exercise 7.3: correct: q ≥ 0.99790; without the check q = 0.99000, 0.605 over 50 steps; "
                            "with it q = 0.99899, 0.951\n")

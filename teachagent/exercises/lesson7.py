"""Checks for the exercises of notebooks/07_reliability.ipynb: how often a long task succeeds.

Also `compare_guess`, for the lesson's "predict, then run": a guess beside the computed
value, in one line.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

from ..reliability import step_success, task_success
from . import check, expect, filled, number


def is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def yes_or_no(value: Any, name: str) -> bool:
    """`value` if it is True or False; otherwise "not yet"."""
    value = filled(value, name)
    expect(isinstance(value, bool), f"`{name}` should be True or False, not {value!r}")
    return value


def compare_guess(guess: Any, computed: float) -> None:
    """Print one line: a guessed chance beside the computed one, or that there is no guess yet."""
    if guess is Ellipsis:
        print("no guess yet: write your guess in place of the ... above, run that cell, then this one")
    elif not is_number(guess) or not 0 <= guess <= 1:
        print(f"your guess {guess!r} is not a chance between 0 and 1 (write 0.5 for 50 %)")
    else:
        gap = computed - guess
        side = "close" if abs(gap) < 0.05 else f"{abs(gap) * 100:.0f} percentage points {'higher' if gap > 0 else 'lower'}"
        print(f"you guessed {guess:.0%}; the formula gives {computed:.1%}: {side}")


def check_q_by_hand(q_by_hand: Any) -> None:
    """7.1: q for p = 0.95, d = 0.8, r = 1, written out term by term."""

    def test() -> str:
        q = number(q_by_hand, "q_by_hand")
        p, d = 0.95, 0.8
        expect(math.isclose(q, step_success(p, d, 1), abs_tol=1e-5),
               f"q_by_hand = {q:.5f}: add term k = 0 (the first attempt succeeds) and term k = 1 "
               "(it fails, the check catches it, the retry succeeds)")
        return f"q = {p} + {p * (1 - p) * d:.3f} = {q:.4f}"

    check("7.1", test)


def check_retries(r_needed: Any, q_unlimited: Any) -> None:
    """7.2: the fewest retries r with q ≥ 0.985 for p = d = 0.9, and q with unlimited retries."""

    def test() -> str:
        p = d = 0.9
        r = filled(r_needed, "r_needed")
        expect(isinstance(r, Integral) and not isinstance(r, bool) and int(r) >= 0,
               f"`r_needed` should be a whole number of retries, 0 or more, not {r!r}")
        q = step_success(p, d, r)
        expect(q >= 0.985, f"r = {r} gives q = {q:.5f}, below 0.985")
        expect(r == 0 or step_success(p, d, r - 1) < 0.985, f"r = {r} is enough, but so is r = {r - 1}: find the fewest")
        limit = p / (1 - (1 - p) * d)
        expect(math.isclose(number(q_unlimited, "q_unlimited"), limit, abs_tol=1e-5),
               f"q_unlimited = {q_unlimited:.5f}: sum p ((1 − p) d)^k over every k = 0, 1, 2, ... (a geometric series)")
        return (f"r = {r} gives q = {q:.5f}; unlimited retries give only {limit:.5f} < 0.99, "
                "because a failure that slips past the check is final")

    check("7.2", test)


def check_fifty_steps(q_required: Any, unchecked_enough: Any, checked_enough: Any) -> None:
    """7.3: the q a 50-step task needs to succeed 90 % of the time, and whether p = 0.99 reaches it,
    without a check and with d = 0.9, r = 2."""

    def test() -> str:
        n, needed = 50, 0.9
        q_min = number(q_required, "q_required")
        expect(math.isclose(q_min, needed ** (1 / n), abs_tol=1e-5), f"q_required = {q_min:.5f}, but its 50th power is not 0.9")
        unchecked, checked = step_success(0.99, 0, 0), step_success(0.99, 0.9, 2)
        expect(yes_or_no(unchecked_enough, "unchecked_enough") == (unchecked >= q_min),
               f"`unchecked_enough` = {unchecked_enough}: compare the unchecked step's q (p itself) with q_required")
        expect(yes_or_no(checked_enough, "checked_enough") == (checked >= q_min),
               f"`checked_enough` = {checked_enough}: compare the checked step's q with q_required")
        return (f"q ≥ {q_min:.5f}; without the check q = {unchecked:.5f}, {task_success(unchecked, n):.3f} over {n} steps; "
                f"with it q = {checked:.5f}, {task_success(checked, n):.3f}")

    check("7.3", test)

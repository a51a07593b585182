"""Checks for the exercises and the quiz of notebooks/07_reliability.ipynb: how often a long task succeeds.

Each check reads the learner's values as plain numbers (`number`, `whole`) before comparing,
and accepts any answer within the precision its exercise states (0.00001), so a rounding
difference is named as one, not as a wrong method. The lesson's "predict, then run" uses
`guesses.guess_line`, as the other lessons do.
"""

from __future__ import annotations

from typing import Any

from ..reliability import step_success, task_success
from .checks import NotYet, check, close, describe, expect, filled, number, plain, whole
from .lesson8 import SAMPLE_NOTES as SAMPLE_NOTES  # the houseplant notes, on which this lesson measures a real model
from .quizzes import Question

PRECISION = 1e-5  # what the statements of 7.1–7.3 promise: "within 0.00001"


def yes_or_no(value: Any, name: str) -> bool:
    """`value` if it is True or False, numpy's included (not 1, not "yes"); otherwise "not yet"."""
    value = plain(filled(value, name))  # np.bool_(True), what comparing numpy numbers gives, is True
    expect(type(value) is bool, f"`{name}` should be True or False, not {describe(value)}")
    return value is True


def near(got: float, want: float, name: str, method_hint: str) -> None:
    """Within PRECISION of `want`; just outside it is a rounding difference, further a wrong method."""
    if close(got, want, abs=PRECISION):
        return
    if close(got, want, abs=5e-4):  # within rounding to three decimals
        raise NotYet(f"`{name}` = {got} is close to the right value, but not within 0.00001: "
                     "keep more decimals (let Python compute it instead of rounding)")
    raise NotYet(f"`{name}` = {got:.5f}: {method_hint}")


def check_q_by_hand(q_by_hand: Any) -> None:
    """7.1: q for p = 0.95, δ = 0.8, r = 1, written out path by path."""

    def test() -> str:
        q = number(q_by_hand, "q_by_hand")
        p, delta = 0.95, 0.8
        near(q, step_success(p, delta, 1), "q_by_hand",
             "add term j = 0 (the first attempt is right) and term j = 1 "
             "(it is wrong, the check notices, the retry is right)")
        return f"q = {p} + {p * (1 - p) * delta:.3f} = {q:.4f}"

    check("7.1", test)


def check_retries(r_needed: Any, q_unlimited: Any) -> None:
    """7.2: the fewest retries r with q ≥ 0.985 for p = δ = 0.9, and q with unlimited retries."""

    def test() -> str:
        p = delta = 0.9
        r = whole(r_needed, "r_needed")
        expect(0 <= r <= 10_000, f"`r_needed` = {r}: a number of retries is 0 or more")
        q = step_success(p, delta, r)
        expect(q >= 0.985, f"r = {r} gives q = {q:.5f}, below 0.985")
        expect(r == 0 or step_success(p, delta, r - 1) < 0.985, f"r = {r} is enough, but so is r = {r - 1}: find the fewest")
        limit = p / (1 - (1 - p) * delta)
        near(number(q_unlimited, "q_unlimited"), limit, "q_unlimited",
             "sum p ((1 − p) δ)^j over every j = 0, 1, 2, ... (a geometric series)")
        return (f"r = {r} gives q = {q:.5f}; unlimited retries give only {limit:.5f} < 0.99, "
                "because a failure the check misses is final")

    check("7.2", test)


def check_fifty_steps(q_required: Any, unchecked_enough: Any, checked_enough: Any) -> None:
    """7.3: the q a 50-step task needs to succeed 90 % of the time, and whether p = 0.99 reaches it,
    without a check and with δ = 0.9, r = 2."""

    def test() -> str:
        n, needed = 50, 0.9
        q_min = number(q_required, "q_required")
        near(q_min, needed ** (1 / n), "q_required", "its 50th power is not 0.9: take the power 1/50 of 0.9")
        q_min = needed ** (1 / n)  # judge the two verdicts against the exact requirement
        unchecked, checked = step_success(0.99, 0, 0), step_success(0.99, 0.9, 2)
        mine = yes_or_no(unchecked_enough, "unchecked_enough")
        expect(mine == (unchecked >= q_min),
               f"`unchecked_enough` = {mine}: compare the unchecked step's q (p itself) with q_required")
        theirs = yes_or_no(checked_enough, "checked_enough")
        expect(theirs == (checked >= q_min), f"`checked_enough` = {theirs}: compare the checked step's q with q_required")
        return (f"q ≥ {q_min:.5f}; without the check q = {unchecked:.5f}, {task_success(unchecked, n):.3f} over {n} steps; "
                f"with it q = {checked:.5f}, {task_success(checked, n):.3f}")

    check("7.3", test)


def check_tradeoff(per_success: Any, best_r: Any, wins: dict[int | None, int], tokens: dict[int | None, int]) -> None:
    """7.4: the tokens one success costs for r = 0, 1, 2 (all tokens read over the runs that truly succeeded),
    from the measured `wins[r]` and `tokens[r]`, and the r whose success costs the fewest.

    Section 7 keeps its unchecked runs under the key None: the verdict then prices them too,
    since on a short task no check at all can be cheaper per success than any r.
    """

    def test() -> str:
        expect(all(wins[r] > 0 for r in RETRIES),
               "some r has no success at all, so a success has no cost to compute: measure more runs")
        want = [tokens[r] / wins[r] for r in RETRIES]
        filled(per_success, "per_success")
        keyed = isinstance(per_success, dict) and all(r in per_success for r in RETRIES)  # keyed by r, like wins
        got = [per_success[r] for r in RETRIES] if keyed else per_success
        if isinstance(got, (str, bytes)) or not hasattr(got, "__len__") or not hasattr(got, "__iter__"):
            raise NotYet(f"`per_success` should be a list of three numbers, one for each r, not {describe(per_success)}")
        got = list(got)
        expect(len(got) == len(RETRIES), f"`per_success` has {len(got)} numbers: it needs three, for r = 0, 1 and 2")
        for r, mine, right in zip(RETRIES, got, want):
            value = number(mine, f"per_success[{r}]")
            expect(close(value, right, abs=1.0),
                   f"per_success[{r}] = {value:,.1f}, but r = {r} read {tokens[r]:,} tokens and succeeded {wins[r]} times: "
                   "divide the tokens by the successes")
        cheapest = min(RETRIES, key=lambda r: want[r])
        chosen = whole(best_r, "best_r")
        expect(chosen == cheapest,
               f"best_r = {chosen}: r = {cheapest} costs the fewest tokens per success ({want[cheapest]:,.0f})")
        said = " · ".join(f"r = {r}: {want[r]:,.0f} tokens per success" for r in RETRIES) + f"; the cheapest is r = {cheapest}"
        if wins.get(None) and tokens.get(None):
            unchecked = tokens[None] / wins[None]
            said += (f"; with no check, {unchecked:,.0f}: {'cheaper' if unchecked < want[cheapest] else 'dearer'} "
                     "on this short task, where a failure is rare enough to pay for")
        return said

    check("7.4", test)


RETRIES = (0, 1, 2)  # the r of exercise 7.4, in the order `per_success` lists them


_A, _B, _STEPS = step_success(0.99, 0, 0), step_success(0.9, 0.9, 2), 60  # quiz 7.2: A unchecked, B checked
_ODDS = f"{_A}^{_STEPS} = {task_success(_A, _STEPS):.3f} against {_B:.5f}^{_STEPS} = {task_success(_B, _STEPS):.3f}"

QUIZ = {
    "7.1": Question(
        answer="c",
        right="with δ = 0 no failure is ever noticed, so no retry is ever made: only the term j = 0 is left, q = p",
        wrong={"a": "a retry happens only after the check notices a failure, and with δ = 0 it never does",
               "b": "a retry can only follow a failure the check noticed; with δ = 0 none happens, so q stays p"},
    ),
    "7.2": Question(
        answer="b",
        right=f"{_ODDS}: what decides a long task is 1 − q, however q is reached",
        wrong={"a": f"a check helps only if it brings q above the other agent's; here B's q = {_B:.5f} is below A's {_A}",
               "c": f"(q_A / q_B)^n grows with n: the gap widens with every step ({_ODDS})"},
    ),
    "7.3": Question(
        answer="a",
        right="a run is one draw; K, Z and the outcome vary from run to run, so rates and averages need many runs",
        wrong={"b": "the next run may take another path, use more steps or run out of budget: one run is one sample",
               "c": "one run shows what can happen, and it is a real data point; it just cannot show how often"},
    ),
    "7.4": Question(
        answer="c",
        right="look for a difference between the simulated step and the formula's; and a 95 % interval misses "
              "the true value in about 1 experiment of 20: rerun with other seeds, then decide",
        wrong={"a": "about 1 in 20 such intervals misses even when the formula is exact: one miss is weak evidence",
               "b": "widening the interval until it fits makes the test say nothing: look for the cause instead"},
    ),
}

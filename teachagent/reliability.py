"""How often a long task succeeds: the checked step, qⁿ and n₅₀ (introduced in notebooks/07_reliability.ipynb).

The checked step, as a state machine: an attempt is right with probability p; a check
then looks at it, never objects to a right attempt, and notices a wrong one with
probability δ (`delta`); a noticed failure sends the agent back to try again, at most r
times; an unnoticed one, or one noticed with no retry left, ends the step as failed.
Counting the paths to success (j noticed failures, then a right attempt; k stays the
index of a model call, as in lessons 3 and 6) gives

    q = p Σ_{j=0}^{r} ((1 - p) δ)^j .

n independent steps all succeed with probability qⁿ. Solving qⁿ = 1/2 for n gives the
task length done half the time,

    n₅₀ = ln 2 / (-ln q) ≈ 0.69 / (1 - q)   for q near 1,

and the whole lengths done at least half the time are 1, ..., ⌊n₅₀⌋. METR's "50 % time
horizon" (Kwa et al., Measuring AI Ability to Complete Long Tasks, 2025) is fitted to
real agents on tasks timed by people; n₅₀ is a toy that shows why such a horizon exists.

(The course writes δ for the catch chance; the source text writes d for both it and the
tokens a step adds, which lesson 6 keeps as d.) This module computes these; simulation.py
measures them, and course/plots.py and course/widgets.py draw them.
"""

from __future__ import annotations

import math

from .base.errors import check_number


def step_success(p: float, delta: float, r: int) -> float:
    """q: the chance that a checked step with up to r retries ends in success, when an attempt
    works with probability p and the check catches a failed one with probability δ (`delta`)."""
    check_number("p", p, at_least=0, at_most=1)
    check_number("delta", delta, at_least=0, at_most=1)
    check_number("r", r, whole=True, at_least=0, at_most=10_000)
    caught_failure = (1 - p) * delta
    return min(1.0, p * sum(caught_failure**j for j in range(r + 1)))  # rounding can pass 1 by a hair


def task_success(q: float, n: int) -> float:
    """qⁿ: the chance that all n independent steps succeed."""
    check_number("q", q, at_least=0, at_most=1)
    check_number("n", n, whole=True, at_least=1, at_most=10**6)
    return q**n


def n50(q: float) -> float:
    """The number of steps a task can have and still succeed half the time: ln 2 / -ln q."""
    check_number("q", q, above=0, below=1)
    return math.log(2) / -math.log(q)


def n50_approx(q: float) -> float:
    """0.69 / (1 - q): n₅₀ for q near 1, from -ln q ≈ 1 - q."""
    check_number("q", q, above=0, below=1)
    return 0.69 / (1 - q)


def floor_n50(q: float) -> int:
    """⌊n₅₀⌋: the largest whole n with qⁿ ≥ 1/2, the longest task done at least half the time.

    Read off n₅₀, then checked against qⁿ itself, so that rounding in the logarithms can
    never put it one step off. It is 0 when even one step succeeds less than half the time.
    """
    n = math.floor(n50(q))  # validates q
    while q ** (n + 1) >= 0.5:
        n += 1
    while n > 0 and q**n < 0.5:
        n -= 1
    return n

"""The checks of lesson 7's exercises and quiz (notebooks/07_reliability.ipynb): right answers in several styles
are "correct", plausible wrong ones and hostile objects get one line of "not yet"; the quiz's figures are computed."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from learner_objects import AlwaysEqual, Broken, Exits, LyingInt

from teachagent import step_success
from teachagent.exercises.lesson7 import QUIZ, check_fifty_steps, check_q_by_hand, check_retries, check_tradeoff

HOSTILE = [AlwaysEqual(), LyingInt(0), LyingInt(7), Broken(), Exits()]


# 7.1: p = 0.95, δ = 0.8, r = 1


@pytest.mark.parametrize("answer", [
    0.95 + 0.05 * 0.8 * 0.95,  # the reference's style
    0.95 * (1 + 0.05 * 0.8),  # p factored out
    sum(0.95 * (0.05 * 0.8) ** k for k in range(2)),  # the sum, with a loop
    float(Fraction(95, 100) + Fraction(5, 100) * Fraction(8, 10) * Fraction(95, 100)),  # exact, then a float
    0.988,  # the exact value, typed in: 0.988 is exactly right
    np.float64(0.988),
])
def test_q_by_hand_right(said, answer):
    check_q_by_hand(answer)
    assert said("7.1") == "correct: q = 0.95 + 0.038 = 0.9880\n"


@pytest.mark.parametrize("answer, because", [
    (..., "is still ..."),
    (0.95, "add term j = 0"),  # the first path only
    (0.95 * (1 - 0.05 * 0.8), "add term j = 0"),  # a minus for a plus
    (0.95 + 0.05 * 0.8, "add term j = 0"),  # forgot that the retry must be right
    (0.99, "add term j = 0"),  # rounded to two decimals: 0.002 off is a method error
    (0.9881, "keep more decimals"),  # a rounding difference, named as one
    ("0.988", "should be a number"),
    (True, "should be a number"),
])
def test_q_by_hand_wrong(said, answer, because):
    check_q_by_hand(answer)
    assert because in said("7.1")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_q_by_hand_hostile(said, hostile):
    check_q_by_hand(hostile)
    assert said("7.1").startswith("not yet: ")


# 7.2: the fewest r with q ≥ 0.985 (r = 2), and q with unlimited retries

LIMIT = 0.9 / (1 - 0.1 * 0.9)


@pytest.mark.parametrize("r, q", [
    (2, LIMIT),
    (2.0, LIMIT),  # a whole number written as a float
    (np.int64(2), np.float64(LIMIT)),
    (2, sum(0.9 * 0.09**k for k in range(2000))),  # the series summed far enough
    (2, 0.9 / 0.91),
    (2, 0.98901),  # rounded to five decimals, as the statement allows
])
def test_retries_right(said, r, q):
    check_retries(r, q)
    assert said("7.2").startswith("correct: r = 2 gives q = 0.98829; unlimited retries give only 0.98901")


@pytest.mark.parametrize("answer, because", [
    ((..., ...), "is still ..."),
    ((1, LIMIT), "below 0.985"),
    ((3, LIMIT), "but so is r = 2"),
    ((0, LIMIT), "below 0.985"),
    ((2.5, LIMIT), "whole number"),
    ((-1, LIMIT), "0 or more"),
    ((2, ...), "is still ..."),
    ((2, 0.99), "geometric series"),  # the hoped-for 0.99
    ((2, 1.0), "geometric series"),
    ((2, step_success(0.9, 0.9, 2)), "geometric series"),  # q at r = 2, not the limit
    ((2, 0.989), "keep more decimals"),  # a rounding difference, named as one
])
def test_retries_wrong(said, answer, because):
    check_retries(*answer)
    assert because in said("7.2")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_retries_hostile(said, hostile):
    check_retries(hostile, LIMIT)
    assert said("7.2").startswith("not yet: ")
    check_retries(2, hostile)
    assert said("7.2").startswith("not yet: ")


def test_an_int_that_equals_zero_cannot_skip_the_fewest_test(said):
    check_retries(LyingInt(3), LIMIT)  # read as the 3 it holds: 2 is enough too
    assert said("7.2") == "not yet: r = 3 is enough, but so is r = 2: find the fewest\n"


# 7.3: q⁵⁰ ≥ 0.9 needs q ≥ 0.99790; p = 0.99 is not enough, the checked step is

Q = 0.9 ** (1 / 50)
RIGHT_73 = ("correct: q ≥ 0.99790; without the check q = 0.99000, 0.605 over 50 steps; "
            "with it q = 0.99899, 0.951\n")


@pytest.mark.parametrize("answer", [
    (Q, False, True),
    (math.exp(math.log(0.9) / 50), False, True),  # by logarithms
    (np.power(0.9, 1 / 50), np.bool_(False) == np.bool_(True), True),
    (0.99790, 0.99 >= 0.99790, step_success(0.99, 0.9, 2) >= 0.99790),  # rounded to five decimals
])
def test_fifty_steps_right(said, answer):
    q, unchecked, checked = answer
    check_fifty_steps(q, bool(unchecked), checked)
    assert said("7.3") == RIGHT_73


@pytest.mark.parametrize("answer, because", [
    ((..., ..., ...), "is still ..."),
    ((0.9 / 50, False, True), "take the power 1/50"),
    ((1 - 0.1 / 50 * 2, False, True), "take the power 1/50"),
    ((0.9 ** 50, False, True), "take the power 1/50"),
    ((0.998, False, True), "keep more decimals"),
    ((Q, ..., True), "is still ..."),
    ((Q, False, ...), "is still ..."),
    ((Q, True, True), "`unchecked_enough` = True"),
    ((Q, False, False), "`checked_enough` = False"),
    ((Q, True, False), "`unchecked_enough` = True"),
    ((Q, "no", "yes"), "should be True or False, not 'no'"),
    ((Q, 0, 1), "should be True or False, not 0"),
])
def test_fifty_steps_wrong(said, answer, because):
    check_fifty_steps(*answer)
    assert because in said("7.3")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_fifty_steps_hostile(said, hostile):
    for answer in ((hostile, False, True), (Q, hostile, True), (Q, False, hostile)):
        check_fifty_steps(*answer)
        assert said("7.3").startswith("not yet: ")


# the quiz


def test_quiz_7_2_says_the_odds_it_computes():
    assert "0.99^60 = 0.547 against 0.98829^60 = 0.493" in QUIZ["7.2"].right  # 0.98829^60 = 0.4932...
    assert f"{step_success(0.9, 0.9, 2) ** 60:.3f}" == "0.493"


# 7.4: tokens per success for r = 0, 1, 2, from the measured wins and tokens

WINS = {0: 230, 1: 350, 2: 374}
TOKENS = {0: 1_000_000, 1: 1_200_000, 2: 1_250_000}
COSTS = [TOKENS[r] / WINS[r] for r in (0, 1, 2)]  # 4348, 3429, 3342: r = 2 is the cheapest
RIGHT_74 = ("correct: r = 0: 4,348 tokens per success · r = 1: 3,429 tokens per success · "
            "r = 2: 3,342 tokens per success; the cheapest is r = 2\n")


@pytest.mark.parametrize("answer", [
    (COSTS, 2),
    (tuple(COSTS), 2.0),
    (np.array(COSTS), np.int64(2)),
    ([round(c) for c in COSTS], 2),  # whole tokens, as the statement allows
    ({0: COSTS[0], 1: COSTS[1], 2: COSTS[2]}, 2),  # keyed by r, like wins and tokens
    ([TOKENS[r] // WINS[r] for r in (0, 1, 2)], min((0, 1, 2), key=lambda r: TOKENS[r] / WINS[r])),
])
def test_tradeoff_right(said, answer):
    check_tradeoff(*answer, WINS, TOKENS)
    assert said("7.4") == RIGHT_74


def test_tradeoff_reads_the_measured_numbers(said):
    tokens = {**TOKENS, 2: 2_000_000}  # now r = 2's success costs 5,348: r = 1 is the cheapest
    check_tradeoff([tokens[r] / WINS[r] for r in (0, 1, 2)], 1, WINS, tokens)
    assert said("7.4").endswith("the cheapest is r = 1\n")
    check_tradeoff([tokens[r] / WINS[r] for r in (0, 1, 2)], 2, WINS, tokens)
    assert "best_r = 2: r = 1 costs the fewest" in said("7.4")


@pytest.mark.parametrize("answer, because", [
    ((..., 2), "is still ..."),
    ((COSTS, ...), "is still ..."),
    ((COSTS[:2], 2), "has 2 numbers"),
    ((COSTS + [1.0], 2), "has 4 numbers"),
    (([WINS[r] / TOKENS[r] for r in (0, 1, 2)], 2), "divide the tokens by the successes"),  # upside down
    (([TOKENS[r] / 400 for r in (0, 1, 2)], 2), "divide the tokens by the successes"),  # per run, not per success
    ((list(reversed(COSTS)), 2), "per_success[0]"),
    (([c + 2 for c in COSTS], 2), "per_success[0]"),  # just outside 1 token
    ((COSTS, 0), "best_r = 0: r = 2 costs the fewest"),  # the cheapest run, not the cheapest success
    ((COSTS, 2.5), "whole number"),
    ((COSTS, "2"), "should be a number"),
    (("4348, 3429, 3342", 2), "should be a list of three numbers"),
    ((["4348", 3429, 3342], 2), "should be a number"),
    (({0: 1.0, 1: 2.0}, 2), "has 2 numbers"),
])
def test_tradeoff_wrong(said, answer, because):
    check_tradeoff(*answer, WINS, TOKENS)
    assert because in said("7.4")


def test_tradeoff_prices_the_unchecked_runs_section_7_keeps_under_none(said):
    wins, tokens = {**WINS, None: 224}, {**TOKENS, None: 225_000}  # 1,004 tokens per success: cheaper than any r
    check_tradeoff(COSTS, 2, wins, tokens)
    assert said("7.4") == RIGHT_74.removesuffix("\n") + (
        "; with no check, 1,004: cheaper on this short task, where a failure is rare enough to pay for\n")
    check_tradeoff({None: 1004.0, 0: COSTS[0], 1: COSTS[1], 2: COSTS[2]}, 2, wins, tokens)  # keyed like wins
    assert said("7.4").startswith("correct: ")


def test_tradeoff_without_a_success(said):
    check_tradeoff([1.0, 2.0, 3.0], 2, {**WINS, 0: 0}, TOKENS)
    assert "no success at all" in said("7.4")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_tradeoff_hostile(said, hostile):
    for answer in ((hostile, 2), (COSTS, hostile), ([hostile, *COSTS[1:]], 2)):
        check_tradeoff(*answer, WINS, TOKENS)
        assert said("7.4").startswith("not yet: ")

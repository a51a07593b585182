"""The checks of lesson 6's exercises and quiz (notebooks/06_cost.ipynb): right answers in several styles are
"correct", plausible wrong ones and hostile objects get one line of "not yet"."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from learner_objects import AlwaysEqual, Broken, Exits, LyingFloat, LyingInt

from teachagent import cached_usages, fitted_d, predicted_total, run_cost
from teachagent.exercises.lesson6 import QUIZ, check_crossover, check_opus, check_six_articles, research_run, tripled


class LoudStr(str):
    def __eq__(self, other):
        return True

    def strip(self, *args):
        return "excerpts"

    def lower(self):
        return "excerpts"

    __hash__ = str.__hash__


HOSTILE = [AlwaysEqual(), LyingInt(1), LyingFloat(1.0), Broken(), Exits()]


# 6.1: Z for the first six articles (K = 7 calls), within 5 %

C = research_run("everything").context_sizes
RIGHT_61 = predicted_total(7, C[0], fitted_d(C))


@pytest.mark.parametrize("answer", [
    RIGHT_61,
    7 * C[0] + fitted_d(C) * 7 * 6 / 2,  # the theorem written out
    sum(C[0] + (k - 1) * fitted_d(C) for k in range(1, 8)),  # the sum itself
    predicted_total(7, C[0], fitted_d(C, "least_squares")),  # the other fit
    round(RIGHT_61),
    55_000,  # a rounded prediction, well within 5 %
    np.float64(RIGHT_61),
])
def test_six_articles_right(said, answer):
    check_six_articles(answer)
    assert said("6.1").startswith("correct: predicted ")


@pytest.mark.parametrize("answer, because", [
    (..., "is still ..."),
    ("55,000", "should be a number"),
    (predicted_total(6, C[0], fitted_d(C)), "too low"),  # K = 6 forgets the answering call
    (2 * RIGHT_61, "too high"),
    (research_run("everything").Z, "too high"),  # the ten-article run's Z
    (6 * C[0], "too low"),  # the linear term alone
])
def test_six_articles_wrong(said, answer, because):
    check_six_articles(answer)
    assert because in said("6.1")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_six_articles_hostile(said, hostile):
    check_six_articles(hostile)
    assert said("6.1").startswith("not yet: ")


# 6.2: Opus prices, to the cent or better, and which saves more


@pytest.fixture(scope="module")
def opus():
    everything, excerpt = research_run("everything"), research_run("excerpt")
    return {"plain": run_cost(everything, "claude-opus-5-5"),
            "cached": run_cost(everything, "claude-opus-5-5", cached_usages(everything)),
            "excerpt": run_cost(excerpt, "claude-opus-5-5")}


RIGHT_62 = "correct: plain $0.5680, cached $0.1567, excerpt $0.0179: excerpts save more\n"


@pytest.mark.parametrize("style", ["exact", "cents", "strings", "numpy"])
def test_opus_right(said, opus, style):
    plain, cached, excerpt = opus["plain"], opus["cached"], opus["excerpt"]
    answers = {
        "exact": (plain, cached, excerpt, "excerpts"),
        "cents": (round(plain, 2), round(cached, 2), round(excerpt, 2), "Excerpts"),  # rounded to cents, a capital
        "strings": (plain, cached, excerpt, " excerpts "),  # spaces around
        "numpy": (np.float64(plain), np.float64(cached), np.float64(excerpt), "EXCERPT"),
    }
    check_opus(*answers[style])
    assert said() == "exercise 6.2: " + RIGHT_62


def test_opus_wrong(said, opus):
    plain, cached, excerpt = opus["plain"], opus["cached"], opus["excerpt"]
    wrong = [
        ((..., ..., ..., ...), "is still ..."),
        ((plain, ..., excerpt, "excerpts"), "`cached` is still ..."),
        ((plain, plain, excerpt, "excerpts"), "`cached` = $0.5680 is not what"),  # the cached price left uncached
        ((run_cost(research_run("everything"), "claude-sonnet-5-5"), cached, excerpt, "excerpts"), "`plain` = $0.2840"),
        ((plain, cached, run_cost(research_run("excerpt"), "claude-haiku-5-5"), "excerpts"), "`excerpt` ="),
        ((plain, cached, excerpt, "caching"), "compare the savings"),  # the question, answered wrong
        ((plain, cached, excerpt, "sub-agents"), "should be 'caching' or 'excerpts'"),
        ((plain, cached, excerpt, ...), "`saves_more` is still ..."),
        ((plain, cached, excerpt, True), "should be text"),
        ((f"{plain}", cached, excerpt, "excerpts"), "should be a number"),
    ]
    for answer, because in wrong:
        check_opus(*answer)
        assert because in said("6.2"), answer


def test_opus_hostile(said, opus):
    plain, cached, excerpt = opus["plain"], opus["cached"], opus["excerpt"]
    for hostile in HOSTILE:
        for answer in ((hostile, cached, excerpt, "excerpts"), (plain, hostile, excerpt, "excerpts"),
                       (plain, cached, hostile, "excerpts"), (plain, cached, excerpt, hostile)):
            check_opus(*answer)
            assert said("6.2").startswith("not yet: ")
    check_opus(plain, cached, excerpt, LoudStr("caching"))  # read as the "caching" it holds, whatever it claims
    assert "compare the savings" in said("6.2")


# 6.3: the smallest K with d K(K−1)/2 > K c₁


def loop(c1, d):
    K = 1
    while d * K * (K - 1) / 2 <= K * c1:
        K += 1
    return K


RIGHT_63 = [
    loop,  # try K = 1, 2, 3, ...
    lambda c1, d: int(2 * c1 / d) + 2,  # the algebra, in floats
    lambda c1, d: 2 * c1 // d + 2,  # floor division gives a float here: 7.0 is a whole number
    lambda c1, d: math.floor(2 * c1 / d) + 2,
    lambda c1, d: next(K for K in range(1, 10_000) if d * (K - 1) / 2 > c1),  # divided by K first
    lambda c1, d: np.int64(int(2 * c1 / d) + 2),
]


@pytest.mark.parametrize("crossover", RIGHT_63)
def test_crossover_right(said, crossover):
    check_crossover(crossover)
    assert said("6.3").startswith("correct: c₁ = 504, d = 170: the quadratic term leads from K = 7 calls on")


@pytest.mark.parametrize("crossover, because", [
    (lambda c1, d: ..., "is still ..."),
    (lambda c1, d: None, "should be a number"),
    (lambda c1, d: 2 * c1 / d + 2, "whole number"),  # not a whole number
    (lambda c1, d: int(2 * c1 / d) + 3, "already above the linear term at K ="),  # one too many
    (lambda c1, d: -(-2 * c1 // d) + 1, "is not above the linear one yet"),  # equal terms are not "larger"
    (lambda c1, d: 7, "crossover(100, 50) = 7"),  # the excerpt run's answer, and nothing else
    (lambda c1, d: 0, "1 or more"),
    (lambda c1, d: 1 / 0, "ZeroDivisionError"),
])
def test_crossover_wrong(said, crossover, because):
    check_crossover(crossover)
    assert because in said("6.3")


@pytest.mark.parametrize("hostile", [*HOSTILE, LyingInt(7)])
def test_crossover_hostile(said, hostile):
    check_crossover(lambda c1, d: hostile)
    assert said("6.3").startswith("not yet: ")
    check_crossover(lambda c1, d: sys.exit(3))
    assert "sys.exit()" in said("6.3")


# the quiz


# the quiz


@pytest.mark.parametrize("K", [2, 5, 50])
def test_quiz_6_1s_short_run_ratio_is_the_theorems(K):
    assert tripled(K) == pytest.approx(predicted_total(3 * K, 0, 7) / predicted_total(K, 0, 7))


def test_quiz_6_1s_feedback_gives_the_short_runs_and_holds_9_for_long_ones():
    assert "15 at K = 2, 10.5 at K = 5" in QUIZ["6.1"].right
    assert tripled(1000) == pytest.approx(9, abs=0.01)

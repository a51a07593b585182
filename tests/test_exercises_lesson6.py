"""The checks of lesson 6's exercises (notebooks/06_cost.ipynb) say "not yet" to the gap and to wrong answers,
and "correct" to a right one."""

from __future__ import annotations

import pytest

from teachagent import cached_usages, fitted_d, predicted_total, run_cost
from teachagent.exercises.lesson6 import check_crossover, check_opus, check_six_articles, research_run


@pytest.fixture(scope="module")
def opus():
    everything, excerpt = research_run("everything"), research_run("excerpt")
    return {"plain": run_cost(everything, "claude-opus-5-5"),
            "cached": run_cost(everything, "claude-opus-5-5", cached_usages(everything)),
            "excerpt": run_cost(excerpt, "claude-opus-5-5")}


def test_six_articles(said):
    c = research_run("everything").context_sizes
    right = predicted_total(7, c[0], fitted_d(c))
    for answer in (..., "55,000", predicted_total(6, c[0], fitted_d(c)), 2 * right):  # K = 6 forgets the answering call
        check_six_articles(answer)
        assert said().startswith("exercise 6.1: not yet: ")
    check_six_articles(right)
    assert said().startswith("exercise 6.1: correct: predicted 54,909, measured 54,991")


def test_opus(said, opus):
    plain, cached, excerpt = opus["plain"], opus["cached"], opus["excerpt"]
    wrong = [
        (..., ..., ..., ...),
        (plain, ..., excerpt, "excerpts"),
        (plain, plain, excerpt, "excerpts"),  # the cached price left uncached
        (run_cost(research_run("everything"), "claude-sonnet-5-5"), cached, excerpt, "excerpts"),  # another model
        (plain, cached, excerpt, "caching"),  # the question the exercise asks, answered wrong
        (plain, cached, excerpt, "excerpt"),
        (plain, cached, excerpt, ...),
    ]
    for answer in wrong:
        check_opus(*answer)
        assert said().startswith("exercise 6.2: not yet: ")
    check_opus(plain, cached, excerpt, "excerpts")
    assert said() == "exercise 6.2: correct: plain $0.5678, cached $0.1565, excerpt $0.0177: excerpts save more\n"


def test_crossover(said):
    def loop(c1, d):
        K = 1
        while d * K * (K - 1) / 2 <= K * c1:
            K += 1
        return K

    wrong = [
        lambda c1, d: ...,
        lambda c1, d: None,
        lambda c1, d: 2 * c1 / d + 2,  # not a whole number
        lambda c1, d: int(2 * c1 / d) + 3,  # one too many
        lambda c1, d: -(-2 * c1 // d) + 1,  # right unless 2 c1 / d is whole: then the terms are only equal
        lambda c1, d: 7,  # the excerpt run's answer, and nothing else
        lambda c1, d: 1 / 0,
    ]
    for crossover in wrong:
        check_crossover(crossover)
        assert said().startswith("exercise 6.3: not yet: ")
    for crossover in (loop, lambda c1, d: int(2 * c1 / d) + 2):
        check_crossover(crossover)
        assert said().startswith("exercise 6.3: correct: c₁ = 504, d = 170: the quadratic term leads from K = 7 calls on")

"""Checks for the exercises of notebooks/06_cost.ipynb: what the loop costs.

Each check makes its own scripted research runs, the same ones the lesson makes, so it
knows the right answer whatever the notebook's variables hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from numbers import Integral
from typing import Any

from ..cost import cached_usages, fitted_d, run_cost
from ..research.corpus import Library, load_corpus
from ..research.researcher import QUESTION, research_agent
from ..trace import Run
from . import check, expect, filled, number

OPUS = "claude-opus-5-5"


@cache
def research_run(strategy: str, articles: int = 10) -> Run:
    """Lesson 5's scripted researcher with `strategy`, over the first `articles` articles."""
    library = Library(dict(list(load_corpus().items())[:articles]))
    return research_agent(strategy, library=library).run(QUESTION)


def check_six_articles(prediction: Any) -> None:
    """6.1: a prediction of Z for reading the first six articles, within 5 % of what that run reads."""

    def test() -> str:
        predicted = number(prediction, "prediction")
        measured = research_run("everything", 6).Z
        off = (predicted - measured) / measured
        expect(abs(off) < 0.05, f"your prediction {predicted:,.0f} is more than 5 % too {'high' if off > 0 else 'low'}: "
                                "check K, c₁ and d")
        return f"predicted {predicted:,.0f}, measured {measured:,} ({off:+.1%})"

    check("6.1", test)


def check_opus(plain: Any, cached: Any, excerpt: Any, saves_more: Any) -> None:
    """6.2: the Opus 5.5 price of read-everything, with and without caching, and of the excerpt run;
    and which saves more dollars, caching or excerpts."""

    def test() -> str:
        everything = research_run("everything")
        right = {
            "plain": run_cost(everything, OPUS),
            "cached": run_cost(everything, OPUS, cached_usages(everything)),
            "excerpt": run_cost(research_run("excerpt"), OPUS),
        }
        what = {"plain": "the read-everything run without caching", "cached": "the read-everything run with caching",
                "excerpt": "the excerpt run without caching"}
        for name, value in (("plain", plain), ("cached", cached), ("excerpt", excerpt)):
            expect(math.isclose(number(value, name), right[name], rel_tol=1e-3),
                   f"`{name}` = ${value:.4f} is not what {what[name]} costs on {OPUS}")
        answer = filled(saves_more, "saves_more")
        expect(answer in ("caching", "excerpts"), f"`saves_more` should be 'caching' or 'excerpts', not {answer!r}")
        winner = "excerpts" if right["excerpt"] < right["cached"] else "caching"
        expect(answer == winner, f"`saves_more` = {answer!r}: compare the savings, plain − cached and plain − excerpt")
        return (f"plain ${plain:.4f}, cached ${cached:.4f}, excerpt ${excerpt:.4f}: "
                f"{winner} {'save' if winner == 'excerpts' else 'saves'} more")

    check("6.2", test)


def quadratic_wins(K: int, c1: float, d: float) -> bool:
    """Whether the quadratic term d K(K-1)/2 is above the linear term K c1."""
    return d * K * (K - 1) / 2 > K * c1


def check_crossover(crossover: Callable[[float, float], Any]) -> None:
    """6.3: `crossover(c1, d)` is the smallest K with d K(K-1)/2 > K c1, tried on the excerpt run and a few more."""

    def test() -> str:
        sizes = research_run("excerpt").context_sizes
        c1, d = sizes[0], fitted_d(sizes)
        more = [(100, 50), (2000, 1500), (10, 100)]
        for c1_, d_ in [(c1, d), *more]:
            call = f"crossover({c1_}, {d_:g})"
            K = filled(crossover(c1_, d_), call)
            expect(isinstance(K, Integral) and not isinstance(K, bool) and int(K) >= 1,
                   f"{call} returned {K!r}; a number of calls is a whole number, 1 or more")
            expect(quadratic_wins(K, c1_, d_), f"{call} = {K}, but at K = {K} the quadratic term is not above the linear one yet")
            expect(K == 1 or not quadratic_wins(K - 1, c1_, d_),
                   f"{call} = {K}, but the quadratic term is already above the linear term at K = {K - 1}: find the smallest K")
        return (f"c₁ = {c1}, d = {d:.0f}: the quadratic term leads from K = {crossover(c1, d)} calls on, "
                f"and the excerpt run stops at K = {len(sizes)}; right on {len(more)} more (c₁, d) too")

    check("6.3", test)

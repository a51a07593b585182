"""Checks for the exercises and the quiz of notebooks/06_cost.ipynb: what the loop costs.

Each check makes its own scripted research runs, the same ones the lesson makes, so it
knows the right answer whatever the notebook's variables hold. Learners' values are read
as plain numbers and text (`number`, `whole`, `text`) before anything is compared.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from ..cost import cached_usages, fitted_d, run_cost
from ..research.corpus import Library, load_corpus
from ..research.researcher import QUESTION, research_agent
from ..trace import Run
from .checks import check, close, expect, number, text, whole
from .quizzes import Question

OPUS = "claude-opus-5-5"
SAVERS = {"excerpts": "excerpts", "excerpt": "excerpts", "caching": "caching", "cache": "caching"}


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
                                "check K (six articles are how many calls?), c₁ and d")
        return f"predicted {predicted:,.0f}, measured {measured:,} ({off:+.1%})"

    check("6.1", test)


def check_opus(plain: Any, cached: Any, excerpt: Any, saves_more: Any) -> None:
    """6.2: the Opus 5.5 price of read-everything, with and without caching, and of the excerpt run, each to
    the cent or better; and which saves more dollars, caching or excerpts (case and spaces do not matter)."""

    def test() -> str:
        everything = research_run("everything")
        right = {
            "plain": run_cost(everything, OPUS),
            "cached": run_cost(everything, OPUS, cached_usages(everything)),
            "excerpt": run_cost(research_run("excerpt"), OPUS),
        }
        what = {"plain": "the read-everything run without caching", "cached": "the read-everything run with caching",
                "excerpt": "the excerpt run without caching"}
        got = {}
        for name, value in (("plain", plain), ("cached", cached), ("excerpt", excerpt)):
            got[name] = number(value, name)
            expect(close(got[name], right[name], rel=1e-3, abs=0.005),  # to the cent: within half a cent
                   f"`{name}` = ${got[name]:.4f} is not what {what[name]} costs on {OPUS}")
        answer = text(saves_more, "saves_more").strip().lower()
        expect(answer in SAVERS, f"`saves_more` should be 'caching' or 'excerpts', not {answer[:40]!r}")
        winner = "excerpts" if right["excerpt"] < right["cached"] else "caching"
        expect(SAVERS[answer] == winner, f"`saves_more` = {answer!r}: compare the savings, plain − cached and plain − excerpt")
        return (f"plain ${right['plain']:.4f}, cached ${right['cached']:.4f}, excerpt ${right['excerpt']:.4f}: "
                f"{winner} {'save' if winner == 'excerpts' else 'saves'} more")

    check("6.2", test)


def quadratic_wins(K: int, c1: float, d: float) -> bool:
    """Whether the quadratic term d K(K-1)/2 is above the linear term K c1."""
    return d * K * (K - 1) / 2 > K * c1


def check_crossover(crossover: Callable[[float, float], Any]) -> None:
    """6.3: `crossover(c1, d)` is the smallest K with d K(K-1)/2 > K c1, tried on the excerpt run and a few more (d > 0)."""

    def test() -> str:
        sizes = research_run("excerpt").context_sizes
        c1, d = sizes[0], fitted_d(sizes)
        more = [(100, 50), (2000, 1500), (10, 100)]
        found = []
        for c1_, d_ in [(c1, d), *more]:
            call = f"crossover({c1_}, {d_:g})"
            K = whole(crossover(c1_, d_), call)
            expect(K >= 1, f"{call} returned {K}; a number of calls is 1 or more")
            expect(quadratic_wins(K, c1_, d_), f"{call} = {K}, but at K = {K} the quadratic term is not above the linear one yet")
            expect(K == 1 or not quadratic_wins(K - 1, c1_, d_),
                   f"{call} = {K}, but the quadratic term is already above the linear term at K = {K - 1}: find the smallest K")
            found.append(K)
        return (f"c₁ = {c1}, d = {d:.0f}: the quadratic term leads from K = {found[0]} calls on, "
                f"and the excerpt run stops at K = {len(sizes)}; right on {len(more)} more (c₁, d) too, "
                f"such as (100, 50), where 2c₁/d is whole and K = {found[1]}")

    check("6.3", test)


def tripled(K: int) -> float:
    """Z(3K)/Z(K) when c₁ = 0 and every step adds the same d: 3(3K − 1)/(K − 1), which tends to 9."""
    return 3 * (3 * K - 1) / (K - 1)


QUIZ = {
    "6.1": Question(
        answer="b",
        right=f"with c₁ small, Z ≈ d K(K−1)/2, about d K²/2 for a long run, and (3K)² = 9 K²; a short run "
              f"gains more than that, 3(3K−1)/(K−1): {tripled(2):g} at K = 2, {tripled(5):g} at K = 5",
        wrong={"a": "that would hold if every call read the same context; here each call also rereads all the earlier steps",
               "c": "tripling the calls also triples the context the last calls read, so the tokens grow about "
                    "3 × 3 = 9 times, not 3 × 2"},
    ),
    "6.2": Question(
        answer="a",
        right="caching leaves every c_k as it was; the repeated prefix is billed at the cache-read rate, a tenth or less",
        wrong={"b": "the model still reads its whole context at every call; the cache changes what a token costs, not how many",
               "c": "the context grows exactly as before: caching is a billing and speed matter, not a change to c_k"},
    ),
    "6.3": Question(
        answer="c",
        right="the main agent is still a loop whose context grows each call, so its Z stays quadratic, with a much smaller d",
        wrong={"a": "the main context still grows by each helper's report; only the helpers' separate runs add up linearly",
               "b": "each helper starts from a fresh, short context and reads one article: their total grows linearly, "
                    "and the main agent's context still grows"},
    ),
    "6.4": Question(
        answer="b",
        right="a note says that a result was there, not what it said: the compacted run's answer lost what the earlier "
              "articles said, and only reading an article again would bring its text back",
        wrong={"a": "the notes and the model's own steps say which articles it read, not what they said: the compacted "
                    "run's answer lost the points the earlier articles made",
               "c": "the calculator's results arrive in the last turn of results, which Compaction keeps: the verdict "
                    "and its numbers come out the same"},
    ),
}

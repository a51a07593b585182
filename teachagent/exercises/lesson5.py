"""Checks for the exercises of notebooks/05_research_kl.ipynb (lesson 5: a research agent).

5.1 `check_kl_by_tool`: D_KL(0.9‖0.6) in bits, computed by the calculate tool through the dispatcher.
5.2 `check_read_best`: a function that reads the section search ranks first, and words that find
    where KL fails the triangle inequality.
5.3 `check_js`: the Jensen–Shannon divergence, symmetric where KL is not.

Each prints one line, "correct: ..." or "not yet: ..." (see `teachagent.exercises`). The
values they compare with are computed here with `math`, not with the course's calculator.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..base.display import shorten
from ..messages import ToolResult
from ..research.corpus import Library
from ..tokens import count_tokens
from . import NotYet, check, expect, filled, number


def kl_bits(p: float, q: float) -> float:
    """D_KL(p‖q) in bits for two yes/no distributions."""
    return p * math.log2(p / q) + (1 - p) * math.log2((1 - p) / (1 - q))


def js_bits(p: float, q: float) -> float:
    """The Jensen–Shannon divergence of two yes/no distributions, in bits."""
    m = (p + q) / 2
    return kl_bits(p, m) / 2 + kl_bits(q, m) / 2


def _calculated(content: str) -> float:
    """The number a result of calculate ends with ('expression = value'), or NotYet if it has none."""
    expression, _, value = content.rpartition(" = ")
    try:
        if expression:
            return float(value)
    except ValueError:
        pass
    raise NotYet(f"that is not a result of calculate ('expression = value'): {shorten(repr(content))}")


def check_kl_by_tool(result: Any) -> None:
    """5.1: `result` is what the calculate tool returned for D_KL(0.9‖0.6) in bits."""

    def test() -> str:
        answer = filled(result, "result")
        expect(isinstance(answer, ToolResult),
               f"`result` is {shorten(repr(answer))}; it should be what tools(...) returns, a ToolResult")
        expect(not answer.is_error, f"the tool returned an error: {shorten(' '.join(answer.content.split()), 200)}")
        value = _calculated(answer.content)
        expect(not math.isclose(value, kl_bits(0.6, 0.9), rel_tol=1e-5),
               f"{shorten(answer.content)} is D_KL(0.6‖0.9): the two distributions are the wrong way round")
        expect(math.isclose(value, kl_bits(0.9, 0.6), rel_tol=1e-5),
               f"{shorten(answer.content)} is not D_KL(0.9‖0.6); weigh log2 of each ratio by 0.9 and by 0.1")
        return f"{answer.content} bits; the other way round, D_KL(0.6‖0.9) = {kl_bits(0.6, 0.9):.3f} bits"

    check("5.1", test)


def check_read_best(read_best: Callable[[str], Any], triangle_query: Any) -> None:
    """5.2: `read_best(query)` is the text of the section search ranks first; `triangle_query` finds
    the section of the KL article on the triangle inequality."""
    library = Library()

    def test() -> str:
        for query in ("is KL divergence symmetric", "Hellinger distance"):
            doc, section, _ = library.search(query)[0]
            got = filled(read_best(query), "read_best(query)")
            expect(got == library.read(doc, section=section),
                   f"read_best({query!r}) is not the text of {doc} § {section!r}, which search ranks first")
        words = filled(triangle_query, "triangle_query")
        hits = library.search(words)
        expect(bool(hits), f"search finds nothing for {words!r}")
        doc, section, _ = hits[0]
        expect(doc == "kl-divergence" and "triangle" in section.lower(),
               f"search ranks {doc} § {section!r} first for {words!r}: not the KL article's section on the triangle inequality")
        excerpt, article = count_tokens(read_best(words)), count_tokens(library.read(doc))
        return f"{words!r} leads to {doc} § {section!r}, {excerpt} tokens to read instead of the whole article's {article}"

    check("5.2", test)


PAIRS = [(0.7, 0.5), (0.9, 0.6), (0.2, 0.8)]


def check_js(js: Callable[[float, float], Any]) -> None:
    """5.3: `js(p, q)` is the Jensen–Shannon divergence in bits, the same both ways round."""

    def test() -> str:
        for p, q in PAIRS:
            forward, backward = number(js(p, q), f"js({p}, {q})"), number(js(q, p), f"js({q}, {p})")
            expect(math.isclose(forward, backward, rel_tol=1e-9),
                   f"js({p}, {q}) = {forward:.6g} but js({q}, {p}) = {backward:.6g}: not symmetric")
            expect(math.isclose(forward, js_bits(p, q), rel_tol=1e-6),
                   f"js({p}, {q}) = {forward:.6g} bits, which is not JS({p}, {q}); check m and the two halves")
        return (f"JS(0.7, 0.5) = JS(0.5, 0.7) = {js(0.7, 0.5):.4f} bits, while "
                f"D_KL(0.7‖0.5) = {kl_bits(0.7, 0.5):.3f} and D_KL(0.5‖0.7) = {kl_bits(0.5, 0.7):.3f}")

    check("5.3", test)

"""Checks for the exercises of notebooks/05_research_kl.ipynb (lesson 5: a research agent).

5.1 `check_kl_by_tool`: D_KL(0.9‖0.6) in bits, computed by the calculate tool through the dispatcher
    (its ToolResult, or the text it printed).
5.2 `check_read_best`: a function that reads the section search ranks first, and words that find
    where KL fails the triangle inequality.
5.3 `check_js`: the Jensen–Shannon divergence, symmetric where KL is not.
`QUIZ`: the key to the lesson's four quiz questions.

Each prints one line, "correct: ..." or "not yet: ..." (see `teachagent.exercises`). The
values they compare with are computed here with `math`, not with the course's calculator,
and each tolerance fits the precision the exercise's statement asks for.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..base.display import shorten
from ..dispatch import Dispatcher
from ..messages import ToolCall, ToolResult
from ..research.calculator import calculate
from ..research.corpus import Library
from ..tokens import count_tokens
from .checks import NotYet, check, close, describe, expect, filled, number, text
from .quizzes import Question


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


PRINTED = 1e-5  # calculate prints six significant digits: a value it printed is within this (relative) of the truth


def check_kl_by_tool(result: Any) -> None:
    """5.1: `result` is what the calculate tool returned for D_KL(0.9‖0.6) in bits: the ToolResult or its text."""

    def test() -> str:
        answer = filled(result, "result")
        expect(isinstance(answer, (ToolResult, str)),
               f"`result` is {describe(answer)}; it should be what tools(...) returns, a ToolResult, or its .content")
        content = text(answer.content, "result.content") if isinstance(answer, ToolResult) else text(answer, "result")
        failed = answer.is_error is True if isinstance(answer, ToolResult) else content.startswith("CalculatorError")
        expect(not failed, f"the tool returned an error: {shorten(' '.join(content.split()), 200)}")
        value = _calculated(content)
        if isinstance(answer, str):  # text alone could be typed in: it must be what the tool prints for its expression
            printed = Dispatcher([calculate])(ToolCall("check", "calculate", {"expression": content.rpartition(" = ")[0]}))
            expect(printed.content == content, f"{shorten(repr(content))} is not what the calculate tool printed: "
                                                f"for that expression it prints {shorten(repr(printed.content))}")
        expect(not close(value, kl_bits(0.6, 0.9), rel=PRINTED),
               f"{shorten(content)} is D_KL(0.6‖0.9): the two distributions are the wrong way round")
        expect(close(value, kl_bits(0.9, 0.6), rel=PRINTED),
               f"{shorten(content)} is not D_KL(0.9‖0.6); weigh log2 of each ratio by 0.9 and by 0.1")
        return f"{content} bits; the other way round, D_KL(0.6‖0.9) = {kl_bits(0.6, 0.9):.3f} bits"

    check("5.1", test)


def check_read_best(read_best: Callable[[str], Any], triangle_query: Any) -> None:
    """5.2: `read_best(query)` is the text of the section search ranks first; `triangle_query` finds
    the section of the KL article on the triangle inequality."""
    library = Library()

    def test() -> str:
        for query in ("is KL divergence symmetric", "Hellinger distance"):
            doc, section, _ = library.search(query)[0]
            got = text(read_best(query), f"read_best({query!r})")
            expect(got.strip() == library.read(doc, section=section).strip(),
                   f"read_best({query!r}) is not the text of {doc} § {section!r}, which search ranks first")
        words = text(triangle_query, "triangle_query")
        hits = library.search(words)
        expect(bool(hits), f"search finds nothing for {words!r}")
        doc, section, _ = hits[0]
        expect(doc == "kl-divergence" and "triangle" in section.lower(),
               f"search ranks {doc} § {section!r} first for {words!r}: not the KL article's section on the triangle inequality")
        excerpt, article = count_tokens(library.read(doc, section=section)), count_tokens(library.read(doc))
        return f"{words!r} leads to {doc} § {section!r}, {excerpt} tokens to read instead of the whole article's {article}"

    check("5.2", test)


PAIRS = [(0.7, 0.5), (0.9, 0.6), (0.2, 0.8)]  # named in the exercise's statement
DIGITS = 5e-4  # "four significant digits", as the statement asks: a value rounded to four is within this
NEAR = 5e-2  # within 5 % but not four digits: rounded too early, not a wrong method


def check_js(js: Callable[[float, float], Any]) -> None:
    """5.3: `js(p, q)` is the Jensen–Shannon divergence in bits to four significant digits, the same both ways round."""

    def test() -> str:
        for p, q in PAIRS:
            forward, backward = number(js(p, q), f"js({p}, {q})"), number(js(q, p), f"js({q}, {p})")
            expect(close(forward, backward, rel=DIGITS),
                   f"js({p}, {q}) = {forward:.6g} but js({q}, {p}) = {backward:.6g}: not symmetric")
            want = js_bits(p, q)
            if not close(forward, want, rel=DIGITS) and close(forward, want, rel=NEAR):
                raise NotYet(f"js({p}, {q}) = {forward:.6g} bits, near JS({p}, {q}) = {want:.6g} but not to four "
                             "significant digits: the method is right; keep more digits of each term before adding them")
            expect(close(forward, want, rel=DIGITS),
                   f"js({p}, {q}) = {forward:.6g} bits, which is not JS({p}, {q}); "
                   f"check m = ({p} + {q}) / 2 and that each half is D_KL of one distribution against m")
        return (f"JS(0.7, 0.5) = JS(0.5, 0.7) = {js_bits(0.7, 0.5):.4f} bits, while "
                f"D_KL(0.7‖0.5) = {kl_bits(0.7, 0.5):.3f} and D_KL(0.5‖0.7) = {kl_bits(0.5, 0.7):.3f}")

    check("5.3", test)


QUIZ = {
    "5.1": Question(
        answer="a",
        right="one order weighs the two log-ratios by 0.7 and 0.3, the other by 0.5 and 0.5, and each ratio turns "
              "over as well; nothing makes the two changes cancel, so the two values differ",
        wrong={
            "b": "the ratios do turn over, but the weights change too: with the weights fixed, the sum would "
                 "only change sign, and D_KL is never negative",
            "c": "the difference is in the formula: section 1 computes both orders with math.log2, no calculator involved",
        },
    ),
    "5.2": Question(
        answer="c",
        right="a metric must be symmetric for every pair, so a single pair where the two orders differ "
              "(0.7 and 0.5 in section 1) settles it",
        wrong={
            "a": "non-negativity is one of the metric axioms, and KL satisfies it: it shows nothing against",
            "b": "that is the other axiom KL satisfies (zero exactly when the distributions are equal)",
        },
    ),
    "5.3": Question(
        answer="b",
        right="each article read whole stays in the context, and every later call reads it again, so Z "
              "adds up the same articles many times",
        wrong={
            "a": "the answers of both strategies are short, and an answer is written once, not reread",
            "c": "the tool specs are the same on every call of both runs: part of c₁, they do not grow",
        },
    ),
    "5.4": Question(
        answer="a",
        right="the handler can only mark where the text came from; the gullible scripted reader of section 6 "
              "shows a model that obeys it all the same",
        wrong={
            "b": "nothing in a tool_result stops a model from following it: section 6's gullible reader does",
            "c": "the calculator only evaluates the expressions it is given; it never sees the conclusion",
        },
    ),
}

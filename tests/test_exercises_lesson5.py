"""The checks of lesson 5's exercises and quiz (teachagent/exercises/lesson5.py).

For each exercise: right answers written in several styles say "correct", plausible wrong
ones say "not yet" with the real mistake, and hostile objects (an `__eq__` that always says
True, a `__str__`/`__len__`/`__bool__` that raises, `sys.exit()`) get one line too.
"""

from __future__ import annotations

import math
import sys

import pytest
from learner_objects import AlwaysEqual, Broken, LyingFloat

from teachagent import Dispatcher, Library, ToolCall, ToolResult, calculate, evaluate, kl_expression
from teachagent.exercises.lesson5 import check_js, check_kl_by_tool, check_read_best

library = Library()
tools = Dispatcher([*library.tools(), calculate])


class LoudStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

    def __str__(self):
        return "what you want to hear"


def tampered(content):
    """A ToolResult whose content was swapped for something else after it was made."""
    result = ToolResult("x", "placeholder = 0")
    object.__setattr__(result, "content", content)
    return result


def calculated(expression):
    return tools(ToolCall("x", "calculate", {"expression": expression}))


def printed(expression):
    """The number the calculate tool printed for `expression` (six significant digits)."""
    return float(calculated(expression).content.rsplit(" = ", 1)[1])


# 5.1


def test_kl_by_tool_right(said):
    check_kl_by_tool(calculated("0.9*log2(0.9/0.6) + 0.1*log2(0.1/0.4)"))
    assert said("5.1") == ("correct: 0.9*log2(0.9/0.6) + 0.1*log2(0.1/0.4) = 0.326466 bits; "
                           "the other way round, D_KL(0.6‖0.9) = 0.449 bits\n")


@pytest.mark.parametrize("expression", [
    kl_expression(0.9, 0.6),
    "0.9*log2(1.5) + 0.1*log2(0.25)",
    "(0.9*ln(0.9/0.6) + 0.1*ln(0.1/0.4)) / ln(2)",
    "0.9 * log2(3/2) - 0.1 * log2(4)",
])
def test_kl_by_tool_right_in_other_styles(said, expression):
    check_kl_by_tool(calculated(expression))
    assert said("5.1").startswith(f"correct: {expression} = 0.326466 bits")


def test_kl_by_tool_takes_the_text_the_tool_printed(said):
    check_kl_by_tool(calculated(kl_expression(0.9, 0.6)).content)
    assert said("5.1").startswith(f"correct: {kl_expression(0.9, 0.6)} = 0.326466 bits")


@pytest.mark.parametrize("wrong, problem", [
    ("x = 0.326466", "is not what the calculate tool printed"),  # typed in, in the tool's form
    ("0.9*log2(1.5) + 0.1*log2(0.25) = 0.3265", "is not what the calculate tool printed"),
    (calculated("log2(0)").content, "the tool returned an error: CalculatorError"),
    (calculated(kl_expression(0.6, 0.9)).content, "the two distributions are the wrong way round"),
    ("0.326466", "not a result of calculate"),
])
def test_kl_by_tool_text_not_yet(said, wrong, problem):
    check_kl_by_tool(wrong)
    line = said("5.1")
    assert line.startswith("not yet: ") and problem in line, line


@pytest.mark.parametrize("wrong, problem", [
    (..., "`result` is still ..."),
    (0.326466, "`result` is 0.326466; it should be what tools(...) returns, a ToolResult"),
    (calculated(...), "the tool returned an error: the input does not match the schema of tool 'calculate'; it was not run: - "),
    (calculated("0.9*log2(0.9/0.6) + 0.1*log2(0.1/0.4"), "the tool returned an error: CalculatorError"),
    (calculated(kl_expression(0.6, 0.9)), "the two distributions are the wrong way round"),
    (calculated("0.9*log2(0.9/0.6)"), "is not D_KL(0.9‖0.6)"),
    (calculated("0.9*ln(0.9/0.6) + 0.1*ln(0.1/0.4)"), "is not D_KL(0.9‖0.6)"),
    (calculated("0.33"), "is not D_KL(0.9‖0.6)"),  # a rounded number typed in, not the tool's value
    (tools(ToolCall("x", "search", {"query": "KL"})), "not a result of calculate"),
    (ToolResult("x", "0.326466"), "not a result of calculate"),
])
def test_kl_by_tool_not_yet(said, wrong, problem):
    check_kl_by_tool(wrong)
    line = said("5.1")
    assert line.startswith("not yet: ") and problem in line, line


@pytest.mark.parametrize("hostile", [
    AlwaysEqual(),
    Broken(),
    ToolResult("x", LoudStr("anything = 0.326466")),  # read as the characters it holds: still the tool's form
    tampered(Broken()),
    ToolResult("x", "0.9*log2(1.5) + 0.1*log2(0.25) = 0.326466", is_error=AlwaysEqual()),
])
def test_kl_by_tool_hostile(said, hostile):
    check_kl_by_tool(hostile)
    line = said("5.1")
    assert line.count("\n") == 1


def test_kl_by_tool_refuses_content_that_is_not_text(said):
    check_kl_by_tool(tampered(Broken()))
    assert said("5.1") == "not yet: `result.content` should be text (a str), not an object of type Broken\n"


# 5.2


def read_best(query):
    doc, section, _ = library.search(query)[0]
    return library.read(doc, section=section)


def read_best_unpacked(query):
    best = library.search(query)[0]
    return library.read(best[0], section=best[1])


def read_best_through_the_tool(query):  # the read tool returns the same text as library.read
    doc, section, _ = library.search(query)[0]
    return tools(ToolCall("r", "read", {"doc_id": doc, "section": section})).content


def read_best_stripped(query):
    hits = library.search(query)
    return library.read(hits[0][0], section=hits[0][1]).strip() + "\n"


def test_read_best_right(said):
    check_read_best(read_best, "KL triangle inequality")
    line = said("5.2")
    assert line.startswith("correct: 'KL triangle inequality' leads to kl-divergence § "
                           "'The triangle inequality fails, so KL is not a metric', "), line


@pytest.mark.parametrize("function, query", [
    (read_best_unpacked, "triangle inequality KL divergence"),
    (read_best_through_the_tool, "triangle inequality fails KL"),
    (read_best_stripped, "KL TRIANGLE INEQUALITY"),
])
def test_read_best_right_in_other_styles(said, function, query):
    check_read_best(function, query)
    assert said("5.2").startswith(f"correct: {query!r} leads to kl-divergence § "), query


@pytest.mark.parametrize("function, query, problem", [
    (lambda query: ..., "triangle", "`read_best('is KL divergence symmetric')` is still ..."),
    (read_best, ..., "`triangle_query` is still ..."),
    (lambda query: library.read(library.search(query)[0][0]), "triangle", "is not the text of f-divergences"),
    (lambda query: library.search(query)[0][2], "triangle", "is not the text of"),
    (lambda query: library.search(query)[0], "triangle", "should be text (a str), not an object of type tuple"),
    (read_best, "KL divergence symmetric", "search ranks f-divergences § 'When is an f-divergence symmetric?' first"),
    (read_best, "squared Euclidean distance", "search ranks metric-axioms"),
    (read_best, "does KL satisfy the triangle inequality", "search ranks jensen-shannon"),
    (read_best, "zzzz", "search finds nothing for 'zzzz'"),
    (read_best, "", "your code raised ValueError: the query has no words"),
])
def test_read_best_not_yet(said, function, query, problem):
    check_read_best(function, query)
    line = said("5.2")
    assert line.startswith("not yet: ") and problem in line, line


@pytest.mark.parametrize("function, query", [
    (lambda query: AlwaysEqual(), "KL triangle inequality"),
    (lambda query: LoudStr("not the section"), "KL triangle inequality"),
    (lambda query: Broken(), "KL triangle inequality"),
    (lambda query: sys.exit(1), "KL triangle inequality"),
    (read_best, Broken()),
    (read_best, AlwaysEqual()),
])
def test_read_best_hostile(said, function, query):
    check_read_best(function, query)
    assert said("5.2").startswith("not yet: ")


# 5.3


def js(p, q):
    m = (p + q) / 2
    return 0.5 * evaluate(kl_expression(p, m)) + 0.5 * evaluate(kl_expression(q, m))


def js_from_printed_digits(p, q):  # issue 23: the calculate tool's own printed digits must pass
    m = (p + q) / 2
    return (printed(kl_expression(p, m)) + printed(kl_expression(q, m))) / 2


def js_with_math(p, q):
    def kl(a, b):
        return a * math.log2(a / b) + (1 - a) * math.log2((1 - a) / (1 - b))

    m = (p + q) / 2
    return (kl(p, m) + kl(q, m)) / 2


def js_by_entropies(p, q):  # JS = H(m) − (H(p) + H(q)) / 2, another right way
    def h(x):
        return -(x * math.log2(x) + (1 - x) * math.log2(1 - x))

    return h((p + q) / 2) - (h(p) + h(q)) / 2


def test_js_right(said):
    check_js(js)
    assert said("5.3") == ("correct: JS(0.7, 0.5) = JS(0.5, 0.7) = 0.0303 bits, "
                           "while D_KL(0.7‖0.5) = 0.119 and D_KL(0.5‖0.7) = 0.126\n")


@pytest.mark.parametrize("right", [js_from_printed_digits, js_with_math, js_by_entropies,
                                   lambda p, q: round(js(p, q), 6)])
def test_js_right_in_other_styles(said, right):
    check_js(right)
    assert said("5.3").startswith("correct: JS(0.7, 0.5) = JS(0.5, 0.7) = 0.0303 bits")


@pytest.mark.parametrize("wrong, problem", [
    (lambda p, q: ..., "`js(0.7, 0.5)` is still ..."),
    (lambda p, q: f"{js(p, q):.4f}", "`js(0.7, 0.5)` should be a number, not '0.0303'"),
    (lambda p, q: evaluate(kl_expression(p, q)), "js(0.7, 0.5) = 0.118709 but js(0.5, 0.7) = 0.125769: not symmetric"),
    (lambda p, q: evaluate(kl_expression(p, q)) / 2 + evaluate(kl_expression(q, p)) / 2,
     "which is not JS(0.7, 0.5); check m = (0.7 + 0.5) / 2"),
    (lambda p, q: evaluate(kl_expression(p, (p + q) / 2)), "not symmetric"),
    (lambda p, q: evaluate(kl_expression(p, (p + q) / 2)) + evaluate(kl_expression(q, (p + q) / 2)),
     "which is not JS(0.7, 0.5)"),  # the halves left out
    (lambda p, q: js_with_math(p, q) * math.log(2), "which is not JS(0.7, 0.5)"),  # nats, not bits
    (lambda p, q: 0.03031, "which is not JS(0.9, 0.6)"),  # the first pair's value typed in
    (lambda p, q: evaluate(kl_expression(p, p + q)), "your code raised CalculatorError"),
])
def test_js_not_yet(said, wrong, problem):
    check_js(wrong)
    line = said("5.3")
    assert line.startswith("not yet: ") and problem in line, line


def test_js_rounded_too_early_is_not_called_a_method_error(said):
    check_js(lambda p, q: round(js(p, q), 3))
    line = said("5.3")
    assert line.startswith("not yet: js(0.7, 0.5) = 0.03 bits, near JS(0.7, 0.5)") and "the method is right" in line, line
    assert "check m" not in line


@pytest.mark.parametrize("hostile", [
    lambda p, q: AlwaysEqual(),
    lambda p, q: LyingFloat(0.5),
    lambda p, q: Broken(),
    lambda p, q: sys.exit(0),
])
def test_js_hostile(said, hostile):
    check_js(hostile)
    assert said("5.3").startswith("not yet: ")


# the quiz

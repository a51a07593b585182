"""The checks of lesson 5's exercises (teachagent/exercises/lesson5.py): each says "not yet" to
the gap and to wrong answers, and "correct" to a right one, in one printed line."""

from __future__ import annotations

import pytest

from teachagent import Dispatcher, Library, ToolCall, calculate, evaluate, kl_expression
from teachagent.exercises.lesson5 import check_js, check_kl_by_tool, check_read_best

library = Library()
tools = Dispatcher([*library.tools(), calculate])


def calculated(expression):
    return tools(ToolCall("x", "calculate", {"expression": expression}))


# 5.1


def test_kl_by_tool_right(said):
    check_kl_by_tool(calculated("0.9*log2(0.9/0.6) + 0.1*log2(0.1/0.4)"))
    assert said("5.1") == ("correct: 0.9*log2(0.9/0.6) + 0.1*log2(0.1/0.4) = 0.326466 bits; "
                                   "the other way round, D_KL(0.6‖0.9) = 0.449 bits\n")


@pytest.mark.parametrize("wrong, problem", [
    (..., "`result` is still ..."),
    (0.326466, "`result` is 0.326466; it should be what tools(...) returns, a ToolResult"),
    (calculated(...), "the tool returned an error: the input does not match the schema of tool 'calculate'; it was not run: - "),
    (calculated("0.9*log2(0.9/0.6) + 0.1*log2(0.1/0.4"), "the tool returned an error: CalculatorError"),
    (calculated(kl_expression(0.6, 0.9)), "the two distributions are the wrong way round"),
    (calculated("0.9*log2(0.9/0.6)"), "is not D_KL(0.9‖0.6)"),
    (calculated("0.9*ln(0.9/0.6) + 0.1*ln(0.1/0.4)"), "is not D_KL(0.9‖0.6)"),
    (tools(ToolCall("x", "search", {"query": "KL"})), "not a result of calculate"),
])
def test_kl_by_tool_not_yet(said, wrong, problem):
    check_kl_by_tool(wrong)
    line = said("5.1")
    assert line.startswith("not yet: ") and problem in line, line


# 5.2


def read_best(query):
    doc, section, _ = library.search(query)[0]
    return library.read(doc, section=section)


def test_read_best_right(said):
    check_read_best(read_best, "KL triangle inequality")
    line = said("5.2")
    assert line.startswith("correct: 'KL triangle inequality' leads to kl-divergence § "
                           "'The triangle inequality fails, so KL is not a metric', "), line


@pytest.mark.parametrize("function, query, problem", [
    (lambda query: ..., "triangle", "`read_best(query)` is still ..."),
    (read_best, ..., "`triangle_query` is still ..."),
    (lambda query: library.read(library.search(query)[0][0]), "triangle", "is not the text of f-divergences"),
    (lambda query: library.search(query)[0][2], "triangle", "is not the text of"),
    (read_best, "KL divergence symmetric", "search ranks f-divergences § 'When is an f-divergence symmetric?' first"),
    (read_best, "squared Euclidean distance", "search ranks metric-axioms"),
    (read_best, "zzzz", "search finds nothing for 'zzzz'"),
    (read_best, "", "your code raised ValueError: the query has no words"),
])
def test_read_best_not_yet(said, function, query, problem):
    check_read_best(function, query)
    line = said("5.2")
    assert line.startswith("not yet: ") and problem in line, line


# 5.3


def js(p, q):
    m = (p + q) / 2
    return 0.5 * evaluate(kl_expression(p, m)) + 0.5 * evaluate(kl_expression(q, m))


def test_js_right(said):
    check_js(js)
    assert said("5.3") == ("correct: JS(0.7, 0.5) = JS(0.5, 0.7) = 0.0303 bits, "
                                   "while D_KL(0.7‖0.5) = 0.119 and D_KL(0.5‖0.7) = 0.126\n")


@pytest.mark.parametrize("wrong, problem", [
    (lambda p, q: ..., "`js(0.7, 0.5)` is still ..."),
    (lambda p, q: f"{js(p, q):.4f}", "`js(0.7, 0.5)` should be a number, not '0.0303'"),
    (lambda p, q: evaluate(kl_expression(p, q)), "js(0.7, 0.5) = 0.118709 but js(0.5, 0.7) = 0.125769: not symmetric"),
    (lambda p, q: evaluate(kl_expression(p, q)) / 2 + evaluate(kl_expression(q, p)) / 2, "which is not JS(0.7, 0.5)"),
    (lambda p, q: evaluate(kl_expression(p, (p + q) / 2)), "not symmetric"),
    (lambda p, q: 0.0303, "js(0.7, 0.5) = 0.0303 bits, which is not JS(0.7, 0.5)"),
    (lambda p, q: evaluate(kl_expression(p, p + q)), "your code raised CalculatorError"),
])
def test_js_not_yet(said, wrong, problem):
    check_js(wrong)
    line = said("5.3")
    assert line.startswith("not yet: ") and problem in line, line

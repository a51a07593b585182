"""A calculator tool that never runs `eval` (introduced in notebooks/05_research_kl.ipynb).

An agent should not do arithmetic in its head: a model that writes "0.119" may have
computed it or made it up. A calculator tool makes the number come from code. But the
expression comes from the model, so it is untrusted input: we parse it with Python's
`ast` module and evaluate only numbers, + - * / ** and a few named functions, with
limits on length, nesting and exponent size so that no input can hang or crash us.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from ..tools import tool

MAX_CHARS = 300  # longer than any formula this course needs
MAX_DEPTH = 30  # nesting of the parsed expression
MAX_EXPONENT = 1000  # 10**1000 is already far past any float

FUNCTIONS: dict[str, Callable[[float], float]] = {
    "log2": math.log2,
    "ln": math.log,
    "log10": math.log10,
    "sqrt": math.sqrt,
    "exp": math.exp,
    "abs": abs,
}
CONSTANTS = {"pi": math.pi, "e": math.e}
BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
}
UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class CalculatorError(ValueError):
    """The expression is not one the calculator accepts; the message says why."""


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression such as `0.7*log2(0.7/0.5) + 0.3*log2(0.3/0.5)`."""
    if not isinstance(expression, str) or not expression.strip():
        raise CalculatorError("give an expression, such as 2*log2(3)")
    if len(expression) > MAX_CHARS:
        raise CalculatorError(f"the expression is {len(expression)} characters long; the limit is {MAX_CHARS}")
    try:
        tree = ast.parse(expression.strip().replace("^", "**"), mode="eval")
    except (SyntaxError, ValueError):  # a null byte: ValueError on Python 3.10 and early 3.11, SyntaxError later
        raise CalculatorError(f"cannot read {expression!r} as arithmetic") from None
    try:
        return float(_eval(tree.body, 0))
    except CalculatorError:
        raise
    except (ZeroDivisionError, OverflowError) as error:
        raise CalculatorError(f"{expression!r}: {error}") from None
    except ValueError as error:  # math domain errors, e.g. log2(0) or sqrt(-1)
        raise CalculatorError(f"{expression!r}: {error}") from None


def _eval(node: ast.AST, depth: int) -> float:
    """The value of one node; every intermediate value must be finite, so 1/(1e308*10) is no 0."""
    value = _value(node, depth)
    if not math.isfinite(value):
        raise CalculatorError(f"{ast.unparse(node)!r} has no finite value")
    return value


def _value(node: ast.AST, depth: int) -> float:
    """What one node is worth, read by its kind (`READERS`); a kind that is not arithmetic is refused."""
    if depth > MAX_DEPTH:
        raise CalculatorError(f"the expression is nested more than {MAX_DEPTH} levels deep")
    reader = READERS.get(type(node))
    if reader is None:
        raise _refused(node)
    return reader(node, depth + 1)


def _refused(node: ast.AST) -> CalculatorError:
    allowed = ", ".join(FUNCTIONS) + ", " + ", ".join(CONSTANTS)
    return CalculatorError(f"{ast.unparse(node)!r} is not allowed; use numbers, + - * / ** ( ) and {allowed}")


def _number(node: ast.Constant, depth: int) -> float:
    if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
        raise _refused(node)
    if not math.isfinite(node.value):  # 1e999 is read as infinity
        raise CalculatorError(f"the number {ast.unparse(node)} has no finite value")
    return node.value


def _constant(node: ast.Name, depth: int) -> float:
    if node.id not in CONSTANTS:
        raise _refused(node)
    return CONSTANTS[node.id]


def _unary(node: ast.UnaryOp, depth: int) -> float:
    if type(node.op) not in UNARY:
        raise _refused(node)
    return UNARY[type(node.op)](_eval(node.operand, depth))


def _binary(node: ast.BinOp, depth: int) -> float:
    if isinstance(node.op, ast.Pow):
        return _power(_eval(node.left, depth), _eval(node.right, depth), node)
    if type(node.op) not in BINARY:
        raise _refused(node)
    return BINARY[type(node.op)](_eval(node.left, depth), _eval(node.right, depth))


def _power(base: float, exponent: float, node: ast.AST) -> float:
    """base ** exponent, with the exponent bounded and no complex result: (-8) ** 0.5 has no real value."""
    if abs(exponent) > MAX_EXPONENT:
        raise CalculatorError(f"the exponent {exponent:g} is too large; the limit is {MAX_EXPONENT}")
    value: float | complex = float(base) ** exponent
    if isinstance(value, complex):  # e.g. (-8) ** 0.5, which must not reach sqrt() or abs()
        raise CalculatorError(f"{ast.unparse(node)!r} has no real value")
    return value


def _function(node: ast.Call, depth: int) -> float:
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        raise _refused(node)
    if len(node.args) != 1 or node.keywords:
        raise CalculatorError(f"{node.func.id}() takes exactly one argument")
    return FUNCTIONS[node.func.id](_eval(node.args[0], depth))


READERS: dict[type[ast.AST], Callable[[Any, int], float]] = {
    ast.Constant: _number, ast.Name: _constant, ast.UnaryOp: _unary, ast.BinOp: _binary, ast.Call: _function,
}


@tool
def calculate(expression: str) -> str:
    """Evaluate arithmetic: numbers, + - * / ** ( ), log2, ln, log10, sqrt, exp, abs, pi, e.

    Args:
        expression: the expression to evaluate.
    """
    return f"{expression} = {evaluate(expression):.6g}"

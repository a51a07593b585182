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
    if depth > MAX_DEPTH:
        raise CalculatorError(f"the expression is nested more than {MAX_DEPTH} levels deep")
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        if not math.isfinite(node.value):  # 1e999 is read as infinity
            raise CalculatorError(f"the number {ast.unparse(node)} has no finite value")
        return node.value
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](_eval(node.operand, depth + 1))
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        return BINARY[type(node.op)](_eval(node.left, depth + 1), _eval(node.right, depth + 1))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exponent = _eval(node.left, depth + 1), _eval(node.right, depth + 1)
        if abs(exponent) > MAX_EXPONENT:
            raise CalculatorError(f"the exponent {exponent:g} is too large; the limit is {MAX_EXPONENT}")
        value: float | complex = float(base) ** exponent
        if isinstance(value, complex):  # e.g. (-8) ** 0.5, which must not reach sqrt() or abs()
            raise CalculatorError(f"{ast.unparse(node)!r} has no real value")
        return value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if len(node.args) != 1 or node.keywords:
            raise CalculatorError(f"{node.func.id}() takes exactly one argument")
        return FUNCTIONS[node.func.id](_eval(node.args[0], depth + 1))
    allowed = ", ".join(FUNCTIONS) + ", " + ", ".join(CONSTANTS)
    raise CalculatorError(
        f"{ast.unparse(node)!r} is not allowed; use numbers, + - * / ** ( ) and {allowed}"
    )


@tool
def calculate(expression: str) -> str:
    """Evaluate arithmetic: numbers, + - * / ** ( ), log2, ln, log10, sqrt, exp, abs, pi, e.

    Args:
        expression: the expression to evaluate.
    """
    return f"{expression} = {evaluate(expression):.6g}"

"""The helpers every exercise check is built from (each lesson's checks: teachagent/exercises/lessonN.py).

A check runs the learner's code and must end in one line, "not yet: ..." or "correct:
...", whatever that code does. `NotYet` carries the line; `filled` notices the `...` of an
unfilled gap; `number`, `whole`, `text` and `plain` read what the learner's code returned
as plain built-in values without asking the learner's object anything (an object whose
`__eq__` always says True cannot pass); `check` and `run_check` turn anything the code
raises, or `sys.exit`, into that one line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..base.errors import exception_text, type_name


class NotYet(Exception):
    """What a check found missing or wrong, in one line the learner can act on."""


def filled(value: Any, name: str) -> Any:
    """`value`, unless it is still the `...` that marks the gap."""
    if value is Ellipsis:
        raise NotYet(f"`{name}` is still ... (fill in the marked gap)")
    return value


def expect(condition: bool, problem: str) -> None:
    """Go on if `condition` holds; otherwise the check says "not yet: <problem>".

    Compute `condition` from built-in values (`number`, `whole`, `text` below), never by
    asking a learner's object whether it equals the answer.
    """
    if not condition:
        raise NotYet(problem)


def number(value: Any, name: str) -> float:
    """`value` as a plain float: an int or float (numpy's too), never a bool, never the gap.

    The value is read through the built-in types' own methods, so a subclass that redefines
    `__eq__` or `__float__` is read as the number it holds.
    """
    value = plain(filled(value, name))
    if isinstance(value, bool):
        raise NotYet(f"`{name}` should be a number, not the truth value {bool.__repr__(value)}")
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, int):
        try:
            return float(int.__int__(value))
        except OverflowError:  # 10**400: more than any float holds
            raise NotYet(f"`{name}` is a whole number of over 300 digits, too large to be the number asked for") from None
    raise NotYet(f"`{name}` should be a number, not {describe(value)}")


def plain(value: Any) -> Any:
    """A numpy number or truth value (a scalar, or an array of one value) as the Python one it holds; anything else as it is.

    numpy reads its own values (`.item()`; `float()` for np.longdouble, which `.item()`
    gives back unchanged), so np.float64(0.5), np.array(0.5) and np.bool_(True) are 0.5,
    0.5 and True. An array of several values is left as it is, and refused by the check.
    """
    if not _is_numpy_scalar(value) and not (_is_numpy_array(value) and value.ndim == 0):
        return value
    value = value.item()  # np.float64(0.5) -> 0.5, np.array(True) -> True
    if _is_numpy_scalar(value) and _is_numpy_floating(value):
        value = float(value)  # np.longdouble, whose .item() is itself
    return value


def whole(value: Any, name: str) -> int:
    """`value` as a plain int: an int (numpy's too) or a float with no fractional part."""
    got = number(value, name)
    if not math.isfinite(got) or not got.is_integer():
        raise NotYet(f"`{name}` should be a whole number, not {got!r}")
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__int__(value)  # exact, even past 2**53
    return int(got)


def text(value: Any, name: str) -> str:
    """`value` as a plain str (a str subclass is read as the characters it holds)."""
    value = filled(value, name)
    if not isinstance(value, str):
        raise NotYet(f"`{name}` should be text (a str), not {describe(value)}")
    return str.__str__(value)


_NUMBER = re.compile(r"(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


def numbers_in(sentence: str) -> list[float]:
    """Every number a sentence states, in order: "100°C is 212.0°F" gives [100.0, 212.0].

    Thousands separators ("1,358") and a typographic minus ("−40") are read as a person
    reads them, so a check can look for the number it expects anywhere in an answer.
    """
    found = []
    for match in _NUMBER.finditer(sentence):
        token = match.group().replace(",", "").replace("−", "-")
        if token.strip("-") and any(ch.isdigit() for ch in token):
            found.append(float(token))
    return found


def close(got: float, want: float, *, rel: float = 1e-9, abs: float = 0.0) -> bool:
    """True when `got` is within `rel` (relative) or `abs` (absolute) of `want`: how precise an answer must be."""
    return math.isclose(got, want, rel_tol=rel, abs_tol=abs)


def describe(value: Any) -> str:
    """A short account of a learner's value for a message; never fails, whatever the value's methods do."""
    if type(value) in (str, int, float, bool, type(None)):
        try:
            shown = repr(value)
        except ValueError:  # an int too long to turn into digits
            return "a very large int"
        return shown if len(shown) <= 60 else shown[:57] + "..."
    kind = type_name(value, "")
    return f"an object of type {kind}" if kind else "an object whose type has no readable name"


def error_text(error: BaseException) -> str:
    """`Kind: message` for an exception from the learner's code, even one whose name or `__str__` raises."""
    return exception_text(error)


def check(exercise: str, test: Callable[[], str]) -> None:
    """Run `test` and print one line: "correct: <what it showed>" or "not yet: <what to fix>".

    `test` returns a short account of what the learner's code did right, or raises
    `NotYet`. Anything else the learner's code raises (`SystemExit` from `sys.exit()`
    included) is reported the same way, in one line; only Ctrl-C still stops the cell. It
    prints and returns nothing, so a cell that ends with it shows that line only.
    """
    verdict = run_check(exercise, test)
    print(f"exercise {exercise}: {verdict}")


def run_check(label: str, test: Callable[[], str]) -> str:
    """The verdict line of `test`, without the label: "correct: …" or "not yet: …", on one line
    whatever text of the learner's it quotes (an answer, an error message of several lines)."""
    return " ".join(_verdict(test).split("\n"))


def _verdict(test: Callable[[], str]) -> str:
    try:
        shown = test()
    except NotYet as problem:
        return f"not yet: {problem}"  # the check's own words
    except KeyboardInterrupt:
        raise
    except SystemExit:
        return "not yet: your code called sys.exit(), which would stop the notebook's kernel: return a value instead"
    except BaseException as error:  # the learner's code crashed: name it, in one line, and carry on
        return f"not yet: your code raised {error_text(error)}"
    if not isinstance(shown, str):  # a check's own account; never a learner object
        shown = describe(shown)
    return f"correct: {str.__str__(shown)}"


def _is_numpy_scalar(value: Any) -> bool:
    """A numpy scalar (np.int64, np.float32, np.bool_ …): numpy's own type, read through its `.item()`."""
    return type(value).__module__ == "numpy" and type(value).__name__ != "ndarray" and hasattr(type(value), "item")


def _is_numpy_array(value: Any) -> bool:
    """numpy's own ndarray (not a subclass of it a learner wrote)."""
    return type(value).__module__ == "numpy" and type(value).__name__ == "ndarray"


def _is_numpy_floating(value: Any) -> bool:
    """A numpy floating-point scalar (np.float64, np.longdouble …), told by its type's ancestry: nothing is imported."""
    return any(kind.__module__ == "numpy" and kind.__name__ == "floating" for kind in type(value).__mro__)

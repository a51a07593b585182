"""Errors a learner can cause, and the one check every numeric setting goes through.

Below the ideas, in `base/`: every module of the course may raise these, and this one imports
nothing else from teachagent.

A learner who has no API key, no cassette, or who edited a prompt that a recording must
match needs one line that says what happened and what to do, not thirty lines of the
library's insides ending in that line. IPython shows an exception through its
`_render_traceback_` method when the exception has one, so each of these errors renders
as its own message. In a terminal they print the usual way.

Code the course did not write (a learner's function, a tool, a model) may raise anything,
even an exception whose class name or message cannot be read; `exception_text` says
what it can of one in a line, and never raises.

Numbers a person or a model sets (budgets, timeouts, `max_tokens`, probabilities, sizes)
all pass `check_number`, so a NaN, an infinity, a bool or a string gets the same kind of
message wherever it is typed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

# The largest values the settings take: past these a number is a typo, not a setting.
A_DAY = 24 * 3600  # seconds: the longest timeout any call, tool or file lock may be given
MOST_TOKENS = 10**12  # more tokens than any run reads or any price tier starts at


class CourseError(Exception):
    """An error whose message is the whole story: what went wrong and the fix."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class ShortIfCourseCause(Exception):
    """An error raised from another (`raise ... from cause`) that reads as one line in Jupyter when the
    cause was a learner's (a CourseError), and as the whole traceback when it was anything else: a bug.

    For a bug the hook must not exist: IPython asks `hasattr`, and an error raised inside
    the hook itself would hide the very traceback that is needed.
    """

    @property
    def _render_traceback_(self) -> Callable[[], list[str]]:
        if not isinstance(self.__cause__, CourseError):
            raise AttributeError("_render_traceback_")  # hasattr() is False: IPython's usual traceback
        return lambda: [f"{type(self).__name__}: {self}"]


class failing:
    """A block whose failure comes out as `error("<what> failed: <what was raised>")`, raised from it; Ctrl-C
    passes as it came. The agent loop says so where a run failed (notebooks/03_agent_loop.ipynb): a model, a
    compaction or a learner's `on_step` may raise anything, SystemExit included. (A class, not a generator:
    the loop enters two of these every step.)"""

    def __init__(self, what: str, error: Callable[[str], BaseException]) -> None:
        self.what, self.error = what, error

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, raised: BaseException | None, trace: object) -> Literal[False]:
        if raised is None or isinstance(raised, KeyboardInterrupt):
            return False
        raise self.error(f"{self.what} failed: {exception_text(raised, limit=None)}") from raised


class PromptTooLong(CourseError, ValueError):
    """The context alone is larger than the model's context window, so the call is refused (window.py, lesson 4).

    The Messages API answers such a request with HTTP 400 (invalid_request_error, "prompt is
    too long: N tokens > W maximum") and the model never reads it: there is no reply and no
    stop reason. `tokens` and `window` are None when the API's message did not give them.
    """

    def __init__(self, tokens: int | None, window: int | None, model: str) -> None:
        self.tokens, self.window, self.model = tokens, window, model
        counts = f": {tokens} tokens > {window} maximum" if tokens is not None and window is not None else ""
        super().__init__(
            f"prompt is too long for {model}{counts}. The model read nothing; send a shorter context "
            "(an excerpt instead of a whole document, a sub-agent, fewer old tool results)"
        )


class SettingError(CourseError, ValueError):
    """A setting was given a value it cannot take."""


def check_number(
    name: str,
    value: Any,
    *,
    whole: bool = False,
    at_least: float | None = None,
    above: float | None = None,
    at_most: float | None = None,
    below: float | None = None,
    unit: str = "",
) -> Any:
    """`value` itself if it is a finite number in range for the setting `name`; a `SettingError` otherwise.

    `whole` asks for an int; `at_least`/`above` and `at_most`/`below` bound it. Bools are refused
    (True is not a budget), and so are NaN and the infinities.
    """
    kinds = (int,) if whole else (int, float)
    usable = (
        isinstance(value, kinds)
        and not isinstance(value, bool)
        and (isinstance(value, int) or math.isfinite(value))  # an int is finite, and may be too big for a float
        and (above is None or value > above)
        and (at_least is None or value >= at_least)
        and (at_most is None or value <= at_most)
        and (below is None or value < below)
    )
    if not usable:
        raise SettingError(f"{name} must be {_wanted(whole, at_least, above, at_most, below, unit)}, got {shown_value(value)}")
    return value


def _wanted(whole: bool, at_least: float | None, above: float | None, at_most: float | None, below: float | None,
            unit: str) -> str:
    """What a setting takes, in words: "a whole number between 1 and 1,000,000", "a number above 0 seconds"."""
    wanted = "a whole number" if whole else "a number"
    if at_least is not None and at_most is not None:
        return f"{wanted} between {_bound(at_least)} and {_bound(at_most)}" + (f" {unit}" if unit else "")
    lower = f" above {_bound(above)}" if above is not None else f" of at least {_bound(at_least)}" if at_least is not None else ""
    upper = f" below {_bound(below)}" if below is not None else f" at most {_bound(at_most)}" if at_most is not None else ""
    return wanted + lower + (" and" if lower and upper else "") + upper + (f" {unit}" if unit else "")


def checked_name(setting: str, value: Any) -> str | None:
    """A model's name given as `setting` (an argument or a variable): None when it is blank (unset), else the name.

    A name is one word of characters that show as themselves: a line break, a space or an escape
    in it could forge a header, a banner line or a request the server reads differently.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise SettingError(f"{setting} must name a model, as text; got {shown_value(value)}")
    name = str.__str__(value).strip()
    if not name:
        return None
    if not name.isprintable() or any(ch.isspace() for ch in name):
        raise SettingError(f"{setting} must name a model in one word, with no spaces, line breaks or control "
                           f"characters; got {shown_value(name)}")
    return name


def _bound(limit: float) -> str:
    """A bound as a reader writes it: 86,400 and 1,000,000 for whole numbers, 0.5 for others."""
    return f"{int(limit):,}" if float(limit).is_integer() else f"{limit:g}"


def shown_value(value: Any) -> str:
    """A short repr of `value` for a message, even when repr itself refuses (an int of 5,000 digits, a broken __repr__)."""
    try:
        shown = repr(value)
        shown = str.__str__(shown) if isinstance(shown, str) else ""
    except Exception:
        return f"a value of type {type_name(value)} that cannot be shown"
    return shown if len(shown) <= 60 else shown[:57] + "..."


def type_name(value: Any, unknown: str = "an unnamed type") -> str:
    """The name of `value`'s class as plain text, or `unknown` if a metaclass makes reading it raise or lie."""
    try:
        name = type(value).__name__
        return str.__str__(name) if isinstance(name, str) else unknown
    except BaseException:  # a metaclass whose __name__ raises
        return unknown


def exception_text(error: BaseException, limit: int | None = 200) -> str:
    """`Kind: message` for an exception raised by code the course did not write; it never raises.

    The class's name and the message are each read once, guarded, and turned into plain
    str: a `__name__` or a `__str__` that raises, or a message of a str subclass whose
    methods raise, is named as such rather than breaking whatever reports it. The message
    is put on one line and cut at `limit` characters; with `limit=None` it is kept as
    written (a tool's error, which the model reads whole).
    """
    kind = type_name(error, "an exception")
    try:
        message = str(error)
        message = str.__str__(message) if isinstance(message, str) else ""
    except BaseException:  # a broken __str__ must not break what reports it
        return f"{kind} (whose message could not be shown)"
    if limit is not None:
        message = " ".join(message.split())
        message = message[: limit - 3] + "..." if len(message) > limit else message
    return f"{kind}: {message}" if message else kind

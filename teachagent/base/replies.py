"""The model seam: what the loop takes from a model, checked and copied here.

Below the agent loop (notebooks/03_agent_loop.ipynb), which calls `checked_reply` by that
one name. A `Response` checks its own blocks and stop reason when it is made; what it
cannot check is a reply that is not a Response at all (a model written by hand returns
all sorts at first), usage counts that are not counts, and tool input a saved run could
not hold (NaN, the infinities, numbers of over 300 digits, nesting too deep: formats.py).
Each is a `BadReply` saying what is wrong, and the run ends with its record kept.

What the loop keeps is a copy, made again by the reply's own constructors (`Response.copy`),
so checked again, with each call's input as a saved run would read it back (`formats.as_saved`):
a model that changes the reply it returned (a call's input turned into a list) changes nothing
the loop runs or saves. Of teachagent this module imports only `base/`; the reply's type is the
caller's (`checked_reply(reply, Response)`).
"""

from __future__ import annotations

from typing import Any, TypeVar

from .display import shorten
from .errors import CourseError, SettingError, check_number, exception_text, type_name
from .formats import unstorable

T = TypeVar("T")
MAX_COUNT = 10**15  # a usage count past this is no count of anything (the saved-run schema's limit)


class BadReply(CourseError, TypeError):
    """A model returned something the loop cannot use (a model written by hand often does, at first)."""


def checked_reply(reply: Any, kind: type[T]) -> T:
    """A copy of `reply` the loop can keep as a step and a saved run can hold; else a `BadReply` saying why.

    `kind` is the type a model's reply must have (`Response`); its `copy()` makes the reply
    again through the constructors, which check it as they did when it was first made. Before
    that, what no constructor checks is checked here: the usage counts and each call's input.
    A stand-in whose fields raise when read is a BadReply too.
    """
    if not isinstance(reply, kind):
        raise BadReply(f"Model.complete must return a {kind.__name__}, got {type_name(reply)}: {shorten(repr(reply), 100)}")
    try:
        usage: Any = getattr(reply, "usage", None)
        if not callable(getattr(usage, "to_dict", None)):
            raise BadReply(f"a {kind.__name__}'s usage must be a Usage, got {type_name(usage)}: {shorten(repr(usage), 100)}")
        problem = _usage_problem(usage.to_dict()) or _input_problem(reply.tool_calls)  # type: ignore[attr-defined]
        if problem:
            raise BadReply(problem)
        return reply.copy()  # type: ignore[attr-defined, no-any-return]
    except BadReply:
        raise
    except Exception as error:  # a property of a stand-in object that raises
        raise BadReply(f"the reply could not be read: {exception_text(error)}") from None


def _usage_problem(usage: dict[str, Any]) -> str | None:
    for name, value in usage.items():
        if type(value) is not int or value < 0:  # the quick test; check_number words the refusal
            try:
                check_number(f"usage.{name}", value, whole=True, at_least=0)
            except SettingError as error:
                return str(error)
        if value > MAX_COUNT:
            return f"usage.{name} is {value:.3g}, more than any call reads or writes ({MAX_COUNT:.0e})"
    return None


def _input_problem(calls: list[Any]) -> str | None:
    for call in calls:
        if not isinstance(call.id, str):
            return f"a tool call's id must be a str, got {type_name(call.id)}: {shorten(repr(call.id), 100)}"
        if problem := unstorable(call.input):
            return f"the input of tool call {shorten(call.id, 60)!r} cannot be written as JSON and saved: {problem}"
    return None

"""The tool seam: running a tool the model called, so that nothing it does reaches the loop but text.

Below the dispatcher (notebooks/02_tools.ipynb), which calls `run_tool` by that one name and
reads like its lesson: find the tool, check the call, run it. What can go wrong while a
tool runs is sorted out here, each into a line the model can read and act on:
- input that breaks the tool's schema: the first few problems, the tool not run;
- a person asked first (`ask`) who says no, or an approver that raises or answers anything
  but True or False: the tool not run, and why;
- a tool that raises (anything, even an exception whose message cannot be read), calls
  `sys.exit`, runs past its time limit (base/timelimit.py), or returns something that is
  not text: the tool's failure, in words.
Ctrl-C (KeyboardInterrupt) is the learner's: it still stops the run.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .display import shorten
from .errors import exception_text, shown_value
from .timelimit import call_within

MAX_PROBLEMS = 10  # schema errors listed in one result; enough to fix a call, short enough to read
MAX_PROBLEM_CHARS = 300  # a problem line quotes the bad value, which may be huge


class BadInput(Exception):
    """The input failed the tool's schema: `problems` lists the first few ways."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems


def schema_problems(validator: Any, tool_input: dict[str, Any]) -> list[str]:
    """The first problems jsonschema's `validator` finds in `tool_input` (one more than are shown, if there are more)."""
    found = itertools.islice(validator.iter_errors(tool_input), MAX_PROBLEMS + 1)
    return [shorten(f"input{e.json_path[1:]}: {e.message}", MAX_PROBLEM_CHARS) for e in found]


def refusal(approve: Callable[..., object], call: Any, name: str) -> str | None:
    """None if `approve(call)` said True; else why the call to tool `name` is not run.

    `approve` is guarded as a tool is: one that raises, or answers anything but True or False
    (a numpy bool, "yes", None), refuses the call, and the run goes on.
    """
    try:
        said = approve(call)
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        return f"approve raised {exception_text(error)}, so this call to {name!r} was not run"
    if said is True:
        return None
    if said is False:
        return f"the user did not approve this call to {name!r}, so it was not run"
    return f"approve must answer True or False, and answered {shown_value(said)}, so this call to {name!r} was not run"


def run_tool(name: str, fn: Callable[..., Any], tool_input: dict[str, Any], timeout: float | None, validator: Any,
             ask: Callable[[], str | None] | None = None) -> tuple[str, bool]:
    """Check `tool_input` against the schema and run `fn(**tool_input)`; return (content, is_error).

    The check runs inside the time limit too (a million-item input takes seconds to check).
    `ask`, for a tool that asks first, is called between the check and the run, outside the
    time limit: a person is asked only about input that would run, and may take their time;
    it gives why the call is not run, or None to run it.
    """

    def check() -> None:
        if problems := schema_problems(validator, tool_input):
            raise BadInput(problems)

    def checked_then_run() -> Any:
        check()
        return fn(**tool_input)

    if ask is None:
        outcome = call_within(checked_then_run, timeout, {})
    else:
        outcome = call_within(check, timeout, {})
        if outcome is not None and outcome[0]:
            refused = ask()
            if refused is not None:
                return refused, True
            outcome = call_within(fn, timeout, tool_input)
    if outcome is None:
        return f"tool {name!r} did not finish within {timeout:g} s", True
    return _said(name, *outcome)


def _said(name: str, returned: bool, value: Any) -> tuple[str, bool]:
    """What a finished call comes to: its text, or its failure in words."""
    if isinstance(value, KeyboardInterrupt):
        raise value
    if isinstance(value, BadInput):
        problems = value.problems[:MAX_PROBLEMS] + (["... and more problems"] if len(value.problems) > MAX_PROBLEMS else [])
        listing = "\n".join(f"- {p}" for p in problems)
        return f"the input does not match the schema of tool {name!r}; it was not run:\n{listing}", True
    if isinstance(value, SystemExit):
        return f"tool {name!r} tried to end the program (sys.exit({value.code!r})); it was stopped", True
    if not returned:  # the model reads what went wrong, not a traceback, even when the message cannot be read
        return exception_text(value, limit=None), True
    if not isinstance(value, str):
        return f"tool {name!r} returned {type(value).__name__}, not str; a tool must return text", True
    return str.__str__(value), False  # a plain str: a subclass's own len or hash could raise later

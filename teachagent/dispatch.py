"""The dispatcher: the code that runs the tool calls a model writes (introduced in notebooks/02_tools.ipynb).

This is the handler N of the formal model: it takes a `ToolCall` the model wrote and
returns the `ToolResult` that goes back to it. The model only ever writes a call; the
dispatcher decides whether to run it. It runs the tool only when the name exists and
the input matches the tool's JSON schema, and every way a call can fail (unknown tool,
bad input, the tool raising, hanging, or returning something other than text) becomes
an error result the model can read and act on. Nothing the model writes makes it raise.

A tool made with `ask_first=True` changes something, so a person decides: after its input
has passed the schema, the dispatcher calls `approve(call)`, and only `True` runs it. The
default asks on the terminal with `input()`; a notebook passes a callback of its own. A
"no" goes back to the model as an error result, like any other failed call, and the run goes on.
So does an approver that raises or answers anything but True or False (a numpy bool, "yes",
None): it is guarded like a tool, the call is not run, and the result says why.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable
from typing import Any

from .base.display import one_line, shorten
from .base.errors import SettingError, exception_text, shown_value
from .base.schema import input_validator
from .base.timelimit import call_within
from .messages import ToolCall, ToolResult
from .tools import Tool, check_timeout

MAX_PROBLEMS = 10  # schema errors listed in one result; enough to fix a call, short enough to read
MAX_PROBLEM_CHARS = 300  # a problem line quotes the bad value, which may be huge

Approver = Callable[[ToolCall], bool]  # asked before an ask_first tool runs: True runs it, False does not


def ask_in_terminal(call: ToolCall) -> bool:
    """The default approver: show the call and run it only on a typed yes.

    The call is shown as safe text (`one_line`): what the model wrote cannot reorder or hide
    what the person reads. Where nobody can type an answer (a script with its input closed, a
    kernel without a keyboard), the answer is no.
    """
    name, shown = one_line(call.name), one_line(json.dumps(call.input, ensure_ascii=False, default=repr), 300)
    try:
        answer = input(f"The model asks to run {name} with {shown}. Run it? [y/N] ")
    except (EOFError, NotImplementedError):  # IPython's StdinNotImplementedError is a NotImplementedError
        return False
    return answer.strip().lower() in ("y", "yes")


class Dispatcher:
    """Runs tool calls against a fixed set of tools, turning every failure into a ToolResult.

    `approve(call)` is asked before each run of a tool made with `ask_first=True`.
    """

    def __init__(self, tools: Iterable[Tool], approve: Approver = ask_in_terminal) -> None:
        if not callable(approve):
            raise SettingError("approve must be a function of a ToolCall returning True or False, "
                               f"got {shorten(repr(approve), 100)}")
        self.approve = approve
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, Any] = {}  # one per tool, built once
        self.specs: list[dict[str, Any]] = []  # what the model is told of the tools, in the order given: fixed for a run
        for t in tools:
            if not isinstance(t, Tool):
                raise TypeError(f"Dispatcher takes Tool objects (make one with @tool), got {t!r}")
            if t.name in self._tools:
                raise SettingError(f"two tools are named {t.name!r}; the model calls tools by name, so names must differ")
            spec = t.spec  # read once: a tool's choices may change between runs, never within one
            try:
                self._validators[t.name] = input_validator(spec["input_schema"])  # checked once per schema
            except ValueError as exc:
                raise ValueError(f"tool {t.name!r} has an invalid input_schema: {exc}") from exc
            check_timeout(t.name, t.timeout)  # again: a Tool's fields can be changed after it was made
            self._tools[t.name] = t
            self.specs.append(spec)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def __repr__(self) -> str:
        return f"Dispatcher(tools={self.names})"

    def __call__(self, call: ToolCall) -> ToolResult:
        """Check one call, run it if it is valid, and report what happened."""
        # read with getattr: a stand-in object that lacks a field still gets an error result
        call_id: str = getattr(call, "id", "")
        name, tool_input = getattr(call, "name", None), getattr(call, "input", None)

        def error(message: str) -> ToolResult:
            return ToolResult(call_id, message, is_error=True)

        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            available = ", ".join(map(repr, self._tools)) or "none"
            return error(f"there is no tool named {shorten(repr(name), 100)}; the available tools are: {available}")
        unparsed = getattr(call, "unparsed", None)
        if isinstance(unparsed, str):
            return error(f"the arguments of this call to {name!r} are not a JSON object, so it was not run: "
                         f"{shorten(repr(unparsed), 200)}; write them as one JSON object")
        if not isinstance(tool_input, dict):
            return error(f"the input to {name!r} must be a JSON object, got {type(tool_input).__name__}")

        asked = (lambda: self._refused(call)) if tool.ask_first else None
        content, is_error = _run(tool, self._validators[tool.name], tool_input, asked)
        return ToolResult(call_id, content, is_error)

    def _refused(self, call: ToolCall) -> str | None:
        """None if `approve` said True of this call; else why it is not run, for the model to read.

        `approve` is guarded as a tool is: one that raises, or answers anything but True or
        False, refuses the call, and the run goes on. Ctrl-C is the learner's, and still stops it.
        """
        try:
            said = self.approve(call)
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            return f"approve raised {exception_text(error)}, so this call to {call.name!r} was not run"
        if said is True:
            return None
        if said is False:
            return f"the user did not approve this call to {call.name!r}, so it was not run"
        return (f"approve must answer True or False, and answered {shown_value(said)}, so this call to "
                f"{call.name!r} was not run")


class _BadInput(Exception):
    """The input failed the tool's schema: `problems` lists the first few ways."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems


def _run(tool: Tool, validator: Any, tool_input: dict[str, Any], asked: Callable[[], str | None] | None) -> tuple[str, bool]:
    """Check `tool_input` against the schema and run `tool` on it; return (content, is_error).

    The check runs inside the time limit too (a million-item input takes seconds to check),
    and stops at the first few problems. With a timeout we stop waiting when the time is up
    (base/timelimit.py). `asked`, for an ask_first tool, is called between the check and the
    run, outside the time limit: a person is asked only about input that would run, and may
    take their time; it gives why the call is not run, or None to run it. A tool that calls
    `sys.exit` is reported like one that raises; Ctrl-C (KeyboardInterrupt) is the learner's,
    so it still stops the run.
    """

    def check() -> None:
        found = itertools.islice(validator.iter_errors(tool_input), MAX_PROBLEMS + 1)
        problems = [shorten(f"input{e.json_path[1:]}: {e.message}", MAX_PROBLEM_CHARS) for e in found]
        if problems:
            raise _BadInput(problems)

    def checked_then_run() -> Any:
        check()
        return tool.fn(**tool_input)

    if asked is None:
        outcome = call_within(checked_then_run, tool.timeout, {})
    else:
        outcome = call_within(check, tool.timeout, {})
        if outcome is not None and outcome[0]:
            refused = asked()
            if refused is not None:
                return refused, True
            outcome = call_within(tool.fn, tool.timeout, tool_input)
    if outcome is None:
        return f"tool {tool.name!r} did not finish within {tool.timeout:g} s", True
    returned, value = outcome
    if isinstance(value, KeyboardInterrupt):
        raise value
    if isinstance(value, _BadInput):
        problems = value.problems
        if len(problems) > MAX_PROBLEMS:
            problems[MAX_PROBLEMS:] = ["... and more problems"]
        listing = "\n".join(f"- {p}" for p in problems)
        return f"the input does not match the schema of tool {tool.name!r}; it was not run:\n{listing}", True
    if isinstance(value, SystemExit):
        return f"tool {tool.name!r} tried to end the program (sys.exit({value.code!r})); it was stopped", True
    if not returned:  # the model reads what went wrong, not a traceback, even when the message cannot be read
        return exception_text(value, limit=None), True
    if not isinstance(value, str):
        return f"tool {tool.name!r} returned {type(value).__name__}, not str; a tool must return text", True
    return str.__str__(value), False  # a plain str: a subclass's own len or hash could raise later

"""The dispatcher: the code that runs the tool calls a model writes (introduced in notebooks/02_tools.ipynb).

This is the handler N of the formal model: it takes a `ToolCall` the model wrote and
returns the `ToolResult` that goes back to it. The model only ever writes a call; the
dispatcher decides whether to run it. It runs the tool only when the name exists and
the input matches the tool's JSON schema, and every way a call can fail (unknown tool,
bad input, the tool raising, hanging, or returning something other than text) becomes
an error result the model can read and act on. Nothing the model writes makes it raise.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from .base.display import shorten
from .base.errors import SettingError, exception_text
from .base.schema import input_validator
from .base.timelimit import call_within
from .messages import ToolCall, ToolResult
from .tools import Tool, check_timeout

MAX_PROBLEMS = 10  # schema errors listed in one result; enough to fix a call, short enough to read
MAX_PROBLEM_CHARS = 300  # a problem line quotes the bad value, which may be huge


class Dispatcher:
    """Runs tool calls against a fixed set of tools, turning every failure into a ToolResult."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, Any] = {}  # one per tool, built once
        for t in tools:
            if not isinstance(t, Tool):
                raise TypeError(f"Dispatcher takes Tool objects (make one with @tool), got {t!r}")
            if t.name in self._tools:
                raise SettingError(f"two tools are named {t.name!r}; the model calls tools by name, so names must differ")
            try:
                self._validators[t.name] = input_validator(t.input_schema)  # checked once per schema
            except ValueError as exc:
                raise ValueError(f"tool {t.name!r} has an invalid input_schema: {exc}") from exc
            check_timeout(t.name, t.timeout)  # again: a Tool's fields can be changed after it was made
            self._tools[t.name] = t

    @property
    def specs(self) -> list[dict[str, Any]]:
        """The tool specs to send to the model, in the order the tools were given."""
        return [t.spec for t in self._tools.values()]

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

        content, is_error = _run(tool, self._validators[tool.name], tool_input)
        return ToolResult(call_id, content, is_error)


class _BadInput(Exception):
    """The input failed the tool's schema: `problems` lists the first few ways."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems


def _run(tool: Tool, validator: Any, tool_input: dict[str, Any]) -> tuple[str, bool]:
    """Check `tool_input` against the schema and run `tool` on it; return (content, is_error).

    The check runs inside the time limit too (a million-item input takes seconds to check),
    and stops at the first few problems. With a timeout we stop waiting when the time is up
    (base/timelimit.py). A tool that calls `sys.exit` is reported like one that raises;
    Ctrl-C (KeyboardInterrupt) is the learner's, so it still stops the run.
    """

    def checked_then_run() -> Any:
        found = itertools.islice(validator.iter_errors(tool_input), MAX_PROBLEMS + 1)
        problems = [shorten(f"input{e.json_path[1:]}: {e.message}", MAX_PROBLEM_CHARS) for e in found]
        if problems:
            raise _BadInput(problems)
        return tool.fn(**tool_input)

    outcome = call_within(checked_then_run, tool.timeout, {})
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

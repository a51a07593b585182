"""The dispatcher: the code that runs the tool calls a model writes (introduced in notebooks/02_tools.ipynb).

This is the handler N of the formal model: it takes a `ToolCall` the model wrote and
returns the `ToolResult` that goes back to it. The model only ever writes a call; the
dispatcher decides whether to run it. It runs the tool only when the name exists and
the input matches the tool's JSON schema, and every way a call can fail (unknown tool,
bad input, the tool raising, hanging, or returning something other than text) becomes
an error result the model can read and act on. Nothing the model writes makes it raise.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from .display import shorten
from .errors import SettingError
from .messages import ToolCall, ToolResult
from .tools import Tool

MAX_PROBLEMS = 10  # schema errors listed in one result; enough to fix a call, short enough to read
MAX_PROBLEM_CHARS = 300  # a problem line quotes the bad value, which may be huge


class Dispatcher:
    """Runs tool calls against a fixed set of tools, turning every failure into a ToolResult."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        from jsonschema import Draft202012Validator, SchemaError  # imported here to keep `import teachagent` light

        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, Any] = {}  # one per tool, built once
        for t in tools:
            if not isinstance(t, Tool):
                raise TypeError(f"Dispatcher takes Tool objects (make one with @tool), got {t!r}")
            if t.name in self._tools:
                raise SettingError(f"two tools are named {t.name!r}; the model calls tools by name, so names must differ")
            try:
                Draft202012Validator.check_schema(t.input_schema)
            except SchemaError as exc:
                raise ValueError(f"tool {t.name!r} has an invalid input_schema: {exc.message}") from exc
            self._tools[t.name] = t
            self._validators[t.name] = Draft202012Validator(t.input_schema)

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
        if not isinstance(tool_input, dict):
            return error(f"the input to {name!r} must be a JSON object, got {type(tool_input).__name__}")

        problems = [
            shorten(f"input{e.json_path[1:]}: {e.message}", MAX_PROBLEM_CHARS)
            for e in self._validators[tool.name].iter_errors(tool_input)
        ]
        if problems:
            if len(problems) > MAX_PROBLEMS:
                problems[MAX_PROBLEMS:] = [f"... and {len(problems) - MAX_PROBLEMS} more problems"]
            listing = "\n".join(f"- {p}" for p in problems)
            return error(f"the input does not match the schema of tool {name!r}; it was not run:\n{listing}")

        content, is_error = _run(tool, tool_input)
        return ToolResult(call_id, content, is_error)


def _run(tool: Tool, tool_input: dict[str, Any]) -> tuple[str, bool]:
    """Run `tool` on a checked input; return (content, is_error).

    With a timeout the tool runs in a separate thread, and we stop waiting for it when
    the time is up. Python cannot kill a thread, so a tool that hangs keeps running in
    the background until it ends by itself; as a daemon thread it at least does not
    keep the program from exiting.
    """
    outcome: list[tuple[bool, Any]] = []  # (True, returned value) or (False, exception)

    def attempt() -> None:
        try:
            outcome.append((True, tool.fn(**tool_input)))
        except Exception as exc:
            outcome.append((False, exc))

    if tool.timeout is None:
        attempt()
    else:
        worker = threading.Thread(target=attempt, name=f"tool {tool.name}", daemon=True)
        worker.start()
        worker.join(tool.timeout)
        if worker.is_alive():
            return f"tool {tool.name!r} did not finish within {tool.timeout:g} s", True
    if not outcome:  # only a BaseException such as SystemExit ends a thread without a word
        return f"tool {tool.name!r} stopped without returning", True

    returned, value = outcome[0]
    if not returned:  # the model reads what went wrong, not a traceback
        message = str(value)
        return (f"{type(value).__name__}: {message}" if message else type(value).__name__), True
    if not isinstance(value, str):
        return f"tool {tool.name!r} returned {type(value).__name__}, not str; a tool must return text", True
    return value, False

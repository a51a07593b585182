"""The dispatcher: the code that runs the tool calls a model writes (introduced in notebooks/02_tools.ipynb).

This is the handler N of the formal model: it takes a `ToolCall` the model wrote and
returns the `ToolResult` that goes back to it. The model only ever writes a call; the
dispatcher decides whether to run it. It runs the tool only when the name exists and
the input matches the tool's JSON schema, and every way a call can fail (unknown tool,
bad input, the tool raising, hanging, or returning something other than text) becomes
an error result the model can read and act on. Nothing the model writes makes it raise:
what can go wrong while a tool runs is sorted out at the tool seam, base/tool_runs.py.

A tool made with `ask_first=True` changes something, so a person decides: after its input
has passed the schema, the dispatcher calls `approve(call)`, and only `True` runs it. The
default asks on the terminal with `input()`; a notebook passes a callback of its own. A
"no" goes back to the model as an error result, like any other failed call, and the run goes on.
So does an approver that raises or answers anything but True or False (a numpy bool, "yes",
None): it is guarded like a tool, the call is not run, and the result says why.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from .base.display import one_line, shorten
from .base.errors import SettingError
from .base.formats import as_saved
from .base.schema import tool_input_validator
from .base.tool_runs import refusal, run_tool
from .messages import ToolCall, ToolResult
from .tools import Tool, check_timeout

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


def checked_tools(tools: Iterable[Tool], approve: Approver = ask_in_terminal, schemas: bool = True) -> list[Tool]:
    """`tools` as a list, if a dispatcher can run them with `approve`; else one error saying which tool is wrong and how.
    (`schemas=False`: their input schemas are left to the caller, who builds their validators anyway.)"""
    if not callable(approve):
        raise SettingError(f"approve must be a function of a ToolCall returning True or False, got {shorten(repr(approve), 100)}")
    tools, names = list(tools), set()
    for t in tools:
        if not isinstance(t, Tool):
            raise TypeError(f"Dispatcher takes Tool objects (make one with @tool), got {t!r}")
        if t.name in names:
            raise SettingError(f"two tools are named {t.name!r}; the model calls tools by name, so names must differ")
        names.add(t.name)
        if schemas:
            tool_input_validator(t.name, t.input_schema)
        check_timeout(t.name, t.timeout)  # again: a Tool's fields can be changed after it was made
    return tools


class Dispatcher:
    """Runs tool calls against a fixed set of tools, turning every failure into a ToolResult.

    `approve(call)` is asked before each run of a tool made with `ask_first=True`. An agent keeps
    its dispatcher from run to run while it `serves` the agent's tools as they are then.
    """

    def __init__(self, tools: Iterable[Tool], approve: Approver = ask_in_terminal) -> None:
        self.approve = approve
        self._tools = {t.name: t for t in checked_tools(tools, approve, schemas=False)}
        self.specs = as_saved([t.spec for t in self._tools.values()])  # read once, and copied: a run's tools stay as it began
        self._validators = {spec["name"]: tool_input_validator(spec["name"], spec["input_schema"]) for spec in self.specs}

    def serves(self, tools: Iterable[Tool], approve: Approver) -> bool:
        """Whether a dispatcher made now of `tools` and `approve` would be this one: the same tools (checked again: a
        time limit may have changed), telling the model what they told it then (`choices` may list new values)."""
        tools = checked_tools(tools, approve, schemas=False)
        return approve is self.approve and tools == [*self._tools.values()] and [t.spec for t in tools] == self.specs

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

        ask = (lambda: refusal(self.approve, call, tool.name)) if tool.ask_first else None
        content, is_error = run_tool(tool.name, tool.fn, tool_input, tool.timeout, self._validators[tool.name], ask)
        return ToolResult(call_id, content, is_error)

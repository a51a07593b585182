"""Checks for the exercises of notebooks/09_mcp.ipynb (lesson 9: tools from another process, MCP).

9.1 `check_as_tool`: a `tools/list` entry and a procedure made into a `Tool`: the three parts the
    model reads taken from the JSON, the fourth the function given.
9.2 `check_as_result`: a `tools/call` reply made into a `ToolResult`: its text blocks, its `isError` flag.
9.3 `check_own_server`: a server of the learner's own (the SDK's `MCPServer`) with a tool `shout`,
    started and called over MCP.
`QUIZ`: the key to the lesson's three quiz questions.

Each prints one line, "correct: ..." or "not yet: ..." (see `teachagent.exercises`). What
the learner's code returns is compared with values built here, on inputs the statements
name, read as plain built-in values.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.display import shorten
from ..dispatch import Dispatcher
from ..messages import ToolCall, ToolResult
from ..remote_tools import MCPServerError, mcp_tools
from ..tools import Tool
from .checks import NotYet, check, describe, expect, filled, text
from .quizzes import Question

LISTED: list[dict[str, Any]] = [  # entries of tools/list, as servers send them: the ones the check of 9.1 tries
    {"name": "add", "description": "Add two whole numbers.", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}},
    {"name": "today", "description": "Today's date, as YYYY-MM-DD.", "inputSchema": {"type": "object", "properties": {}},
     "annotations": {"readOnlyHint": True}},
    {"name": "get_weather", "title": "Weather", "description": "The weather in a city.", "inputSchema": {
        "type": "object", "properties": {"city": {"type": "string", "description": "a city's name"}}, "required": ["city"]}},
]


def _spec(listed: dict[str, Any]) -> dict[str, Any]:
    return {"name": listed["name"], "description": listed["description"], "input_schema": listed["inputSchema"]}


def _recording(calls: list[dict[str, Any]]) -> Callable[..., str]:
    """A procedure that notes each call's arguments in `calls` and returns 'ran'."""

    def procedure(**arguments: Any) -> str:
        calls.append(arguments)
        return "ran"

    return procedure


def check_as_tool(as_tool: Callable[[dict[str, Any], Callable[..., str]], Any]) -> None:
    """9.1: `as_tool(listed, procedure)` is a `Tool` with the entry's name, description and schema, running `procedure`."""

    def test() -> str:
        for listed in LISTED:
            calls: list[dict[str, Any]] = []
            procedure = _recording(calls)

            entry = json.loads(json.dumps(listed))  # a fresh copy: what the learner's code changes stays there
            made = filled(as_tool(entry, procedure), f"as_tool(<{listed['name']}>, procedure)")
            expect(isinstance(made, Tool), f"as_tool(<{listed['name']}>, procedure) is {describe(made)}, not a Tool")
            expect(made.spec == _spec(listed), f"the Tool made of {listed['name']!r} gives the model "
                   f"{shorten(repr(made.spec), 160)}; tools/list said {shorten(repr(_spec(listed)), 160)}")
            arguments = {key: 1 if value["type"] == "integer" else "Oslo" for key, value in
                         listed["inputSchema"]["properties"].items()}
            result = Dispatcher([made], approve=lambda call: True)(ToolCall("c", listed["name"], arguments))
            expect(calls == [arguments] and result.content == "ran",
                   f"calling the Tool made of {listed['name']!r} did not run the procedure given "
                   f"(the dispatcher said {shorten(repr(result.content), 120)})")
        return "the three parts the model reads come from tools/list, the fourth is the function you gave"

    check("9.1", test)


# (a tools/call reply, what its ToolResult must hold): the ones the check of 9.2 tries
REPLIES: list[tuple[dict[str, Any], tuple[str, bool]]] = [
    ({"content": [{"type": "text", "text": "12 °C, cloudy"}], "isError": False}, ("12 °C, cloudy", False)),
    ({"content": [{"type": "text", "text": "no city named 'Olso'"}], "isError": True}, ("no city named 'Olso'", True)),
    ({"content": [{"type": "text", "text": "line 1"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                  {"type": "text", "text": "line 2"}]}, ("line 1\nline 2", False)),
    ({"content": []}, ("", False)),
]


def check_as_result(as_result: Callable[[str, dict[str, Any]], Any]) -> None:
    """9.2: `as_result(call_id, reply)` is the `ToolResult` of a tools/call reply: its text blocks, its isError."""

    def test() -> str:
        for number, (reply, (content, is_error)) in enumerate(REPLIES, 1):
            call_id = f"call_{number}"
            made = filled(as_result(call_id, json.loads(json.dumps(reply))), f"as_result({call_id!r}, reply)")
            shown = shorten(json.dumps(reply, ensure_ascii=False), 120)
            expect(isinstance(made, ToolResult), f"as_result({call_id!r}, {shown}) is {describe(made)}, not a ToolResult")
            expect(made.tool_use_id == call_id, f"the ToolResult of {shown} answers call {made.tool_use_id!r}, not {call_id!r}")
            got = text(made.content, "its content")
            expect(got == content, f"the ToolResult of {shown} holds {shorten(repr(got), 80)}, not {content!r}")
            expect(made.is_error is is_error, f"the ToolResult of {shown} has is_error={made.is_error!r}; "
                   f"isError {'is true' if is_error else 'is false or missing'} there")
        return "text blocks joined by newlines, others left out, isError as is_error (false when missing)"

    check("9.2", test)


SAID = "Tools can live elsewhere"  # what the check of 9.3 asks the learner's server to shout


def check_own_server(server_code: Any, shout_over_mcp: Callable[[str], Any]) -> None:
    """9.3: `server_code` is a server with a tool `shout(text)` that returns the text in capitals;
    `shout_over_mcp(text)` starts it with `mcp_tools` and returns what the call gave (a ToolResult, or its text)."""

    def test() -> str:
        code = text(server_code, "server_code")
        with tempfile.TemporaryDirectory() as folder:  # the server, started by the check itself: what it lists and does
            path = Path(folder) / "check_server.py"
            path.write_text(code, encoding="utf-8")
            try:
                server = mcp_tools([sys.executable, str(path)], timeout=30, ask_first=False)
            except MCPServerError as error:
                raise NotYet(f"the server did not start: {shorten(str(error), 300)}") from None
            with server:
                names = [t.name for t in server]
                expect("shout" in names, f"the server lists {names or 'no tools'}, and no tool named 'shout'")
                properties = list(next(t for t in server if t.name == "shout").input_schema.get("properties", {}))
                expect(properties == ["text"], f"shout takes {properties}; give it one parameter, text")
                said = Dispatcher(server.tools)(ToolCall("check", "shout", {"text": SAID}))
        expect(not said.is_error, f"the call to shout failed: {shorten(said.content, 200)}")
        expect(said.content.startswith(SAID.upper()),
               f"shout({SAID!r}) gave {shorten(repr(said.content), 100)}, which does not start with {SAID.upper()!r}")
        result = filled(shout_over_mcp(SAID), f"shout_over_mcp({SAID!r})")
        if isinstance(result, ToolResult):
            content = text(result.content, "the result's content")
            expect("did not approve" not in content, "the call was not run: its server does not mark shout read-only, "
                   "so it asks you first; start your own server with mcp_tools(..., ask_first=False)")
            expect(result.is_error is False, f"the call failed: {shorten(content, 200)}")
        else:
            content = text(result, f"shout_over_mcp({SAID!r})")
        expect(content == said.content, f"shout_over_mcp({SAID!r}) gave {shorten(repr(content), 100)}; "
               f"the server answers {shorten(repr(said.content), 100)}")
        return f"your server shouted {content!r} from another process"

    check("9.3", test)


QUIZ = {
    "9.1": Question(
        answer="c",
        right="the client gives the model the same three parts as any tool: its name, its description and its "
              "input schema; only the procedure stays with the server",
        wrong={
            "a": "the model needs the description and the schema to write a call, so the client passes them on",
            "b": "the procedure never leaves the server: the client knows only what tools/list says",
        },
    ),
    "9.2": Question(
        answer="b",
        right="the call gives up at its time limit and becomes an error result, which the model reads like any "
              "other; the loop goes on",
        wrong={
            "a": "a call waits at most its time limit: a server that never answers cannot hang the loop",
            "c": "a failed call is data, not the end of the run: the model reads the error and may try something else",
        },
    ),
    "9.3": Question(
        answer="d",
        right="a tool's description is part of the specs sent with every call, ahead of the task: the model reads "
              "it before it has run anything",
        wrong={
            "a": "a tool_result holds what a call returned; the description arrives before any call, with the specs",
            "b": "the system prompt is the one we wrote; the specs are sent beside it, and a server writes its own",
            "c": "the client leaves the user's question as it is; a server's tools travel in the specs, beside it",
        },
    ),
}

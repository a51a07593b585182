"""The checks of lesson 9's exercises (teachagent/exercises/lesson9.py).

Right answers written in several styles say "correct", plausible wrong ones say "not yet"
with the real mistake, and hostile objects (an `__eq__` that always says True, a
`__str__` that raises, `sys.exit()`) get one line too. The checks of 9.3 start real MCP
servers (the learner's, written with the SDK's `MCPServer`), each bounded by its time limits.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from learner_objects import AlwaysEqual, Broken

from teachagent import Dispatcher, Tool, ToolCall, ToolResult, mcp_tools, tool
from teachagent.exercises.lesson9 import check_as_result, check_as_tool, check_own_server

# 9.1


def as_tool_plain(listed, procedure):
    return Tool(name=listed["name"], description=listed["description"], input_schema=listed["inputSchema"], fn=procedure)


def as_tool_with_the_decorator(listed, procedure):
    return tool(procedure, name=listed["name"], description=listed["description"], schema=listed["inputSchema"])


def as_tool_of_the_course(listed, procedure):
    from teachagent.remote_tools import tool_from_listing

    return tool_from_listing(listed, procedure)


@pytest.mark.parametrize("as_tool", [as_tool_plain, as_tool_with_the_decorator, as_tool_of_the_course])
def test_as_tool_right(said, as_tool):
    check_as_tool(as_tool)
    assert said("9.1") == "correct: the three parts the model reads come from tools/list, the fourth is the function you gave\n"


@pytest.mark.parametrize(("as_tool", "problem"), [
    (lambda listed, procedure: ..., "`as_tool(<add>, procedure)` is still ... (fill in the marked gap)"),
    (lambda listed, procedure: listed, "as_tool(<add>, procedure) is an object of type dict, not a Tool"),
    (lambda listed, procedure: Tool(listed["name"], listed.get("title", listed["description"]), listed["inputSchema"],
                                    procedure), "the Tool made of 'get_weather' gives the model"),
    (lambda listed, procedure: Tool(listed["name"], listed["description"], {"type": "object"}, procedure),
     "the Tool made of 'add' gives the model"),
    (lambda listed, procedure: Tool(listed["name"], listed["description"], listed["inputSchema"], lambda **kw: "ran"),
     "calling the Tool made of 'add' did not run the procedure given"),
    (lambda listed, procedure: AlwaysEqual(), "not a Tool"),
    (lambda listed, procedure: Broken(), "not a Tool"),
    (lambda listed, procedure: sys.exit(0), "your code called sys.exit()"),
])
def test_as_tool_wrong(said, as_tool, problem):
    check_as_tool(as_tool)
    line = said("9.1")
    assert line.startswith("not yet: ") and problem in line, line


# 9.2


def as_result_plain(call_id, reply):
    texts = [block["text"] for block in reply["content"] if block["type"] == "text"]
    return ToolResult(call_id, "\n".join(texts), is_error=reply.get("isError", False))


def as_result_in_a_loop(call_id, reply):
    content = ""
    for block in reply.get("content", []):
        if block.get("type") == "text":
            content = content + "\n" + block["text"] if content else block["text"]
    return ToolResult(tool_use_id=call_id, content=content, is_error=bool(reply.get("isError")))


@pytest.mark.parametrize("as_result", [as_result_plain, as_result_in_a_loop])
def test_as_result_right(said, as_result):
    check_as_result(as_result)
    assert said("9.2").startswith("correct: text blocks joined by newlines")


@pytest.mark.parametrize(("as_result", "problem"), [
    (lambda call_id, reply: ..., "`as_result('call_1', reply)` is still ..."),
    (lambda call_id, reply: reply["content"][0]["text"], "not a ToolResult"),
    (lambda call_id, reply: ToolResult("x", as_result_plain(call_id, reply).content),
     "answers call 'x', not 'call_1'"),
    (lambda call_id, reply: ToolResult(call_id, reply["content"][0]["text"] if reply["content"] else ""),
     "has is_error=False; isError is true there"),
    (lambda call_id, reply: ToolResult(call_id, " ".join(b.get("text", "") for b in reply["content"]),
                                       reply.get("isError", False)), "holds 'line 1  line 2', not 'line 1\\nline 2'"),
    (lambda call_id, reply: ToolResult(call_id, AlwaysEqual(), False), "ToolResult.content must be a str"),
    (lambda call_id, reply: Broken(), "not a ToolResult"),
])
def test_as_result_wrong(said, as_result, problem):
    check_as_result(as_result)
    line = said("9.2")
    assert line.startswith("not yet: ") and problem in line, line


# 9.3. A server written with the SDK's MCPServer takes about 2 s to start (most of it importing the SDK), so only the
# right answer uses one; the other cases use the same server written with the standard library alone (JSON-RPC by
# hand, as in tests/mcp_servers/hostile.py), which starts at once. The check cannot tell them apart: both speak MCP.

SHOUTER = textwrap.dedent('''
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("shouter")

    @server.tool()
    def shout(text: str) -> str:
        """Return the text in capital letters."""
        return {body}

    server.run()
''')

QUICK_SHOUTER = textwrap.dedent('''
    import json, sys

    SHOUT = {{"name": "{name}", "description": "Return the text in capital letters.", "inputSchema": {{
        "type": "object", "properties": {{"text": {{"type": "string"}}}}, "required": ["text"]}}}}
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message["method"] == "initialize":
            result = {{"protocolVersion": message["params"]["protocolVersion"], "capabilities": {{"tools": {{}}}},
                      "serverInfo": {{"name": "quick-shouter", "version": "0"}}}}
        elif message["method"] == "tools/list":
            result = {{"tools": [SHOUT]}}
        else:
            text = message["params"]["arguments"]["text"]
            result = {{"content": [{{"type": "text", "text": {body}}}]}}
        print(json.dumps({{"jsonrpc": "2.0", "id": message["id"], "result": result}}), flush=True)
''')


def quick(body: str = "text.upper()", name: str = "shout") -> str:
    return QUICK_SHOUTER.format(body=body, name=name)


def over_mcp(code: str, folder: Path, **options):
    def shout_over_mcp(text):
        path = folder / "shout_server.py"
        path.write_text(code, encoding="utf-8")
        with mcp_tools([sys.executable, str(path)], **options) as shouter:
            return Dispatcher(shouter.tools)(ToolCall("s1", "shout", {"text": text}))

    return shout_over_mcp


def test_own_server_right(said, tmp_path):
    code = SHOUTER.format(body='text.upper() + "!"')
    check_own_server(code, over_mcp(code, tmp_path, ask_first=False))
    assert said("9.3") == "correct: your server shouted 'TOOLS CAN LIVE ELSEWHERE!' from another process\n"


def test_own_server_not_approved(said):
    declined = ToolResult("s1", "the user did not approve this call to 'shout', so it was not run", is_error=True)
    check_own_server(quick(), lambda text: declined)  # what a "no" gives, as in lesson 2
    assert said("9.3").startswith("not yet: the call was not run: its server does not mark shout read-only")


@pytest.mark.parametrize(("code", "problem"), [  # found by the check's own look at the server: shout_over_mcp is not run
    (quick("text.lower()"), "gave 'tools can live elsewhere', which does not start with 'TOOLS CAN LIVE"),
    (quick(name="yell"), "the server lists ['yell'], and no tool named 'shout'"),
    (quick().replace("for line in sys.stdin:", "raise SystemExit('no run today')\nfor line in sys.stdin:"),
     "the server did not start: the MCP server"),
    (SHOUTER.format(body="text.upper()").replace("from mcp", "from no_such_sdk"), "No module named 'no_such_sdk'"),
])
def test_own_server_wrong(said, code, problem):
    check_own_server(code, lambda text: pytest.fail("not to be called"))
    line = said("9.3")
    assert line.startswith("not yet: ") and problem in line, line


SERVER_OF_THE_CHECK = quick()


@pytest.mark.parametrize(("code", "shout_over_mcp", "problem"), [
    (..., None, "`server_code` is still ..."),
    (Broken(), None, "`server_code` should be text"),
    (SERVER_OF_THE_CHECK, lambda text: ..., "is still ..."),
    (SERVER_OF_THE_CHECK, lambda text: AlwaysEqual(), "should be text"),
    (SERVER_OF_THE_CHECK, lambda text: sys.exit(0), "your code called sys.exit()"),
    (SERVER_OF_THE_CHECK, lambda text: text.lower(), "the server answers 'TOOLS CAN LIVE ELSEWHERE'"),
])
def test_own_server_gaps_and_hostile_objects(said, code, shout_over_mcp, problem):
    check_own_server(code, shout_over_mcp)
    line = said("9.3")
    assert line.startswith("not yet: ") and problem in line, line

"""`python -m teachagent mcp` serves the course's tools to an MCP client (teachagent/course/mcp_server.py).

The client here is the `mcp` SDK's own `ClientSession` over `stdio_client`, as Claude
Desktop or any agent SDK would connect: `initialize`, `tools/list`, `tools/call`. Then
the course's `mcp_tools` over the server with its options, and lesson 5's research run
over it, which must be the in-process run: the same answer, the same Z. Options the server cannot
use end it at once with one line on stderr and exit code 2, with nothing on stdout (the
protocol's channel). Every server is bounded by the client's time limits, every
subprocess by its `timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import tempfile

import pytest

from teachagent import (
    QUESTION,
    Agent,
    Dispatcher,
    Library,
    MemoryStore,
    ScriptedModel,
    ToolCall,
    calculate,
    course_server_command,
    mcp_tools,
    research_agent,
    search_and_excerpt,
    system_prompt,
)
from teachagent.course.mcp_server import INSTRUCTIONS, course_tools


async def talk(command: list[str], stack: contextlib.ExitStack) -> dict:
    """initialize, tools/list and three tools/call, with the SDK's own client, as plain JSON."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(command=command[0], args=command[1:])
    errlog = stack.enter_context(tempfile.TemporaryFile("w+"))  # the server's stderr: pytest-xdist's has no file descriptor
    async with stdio_client(server, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        initialized = await asyncio.wait_for(session.initialize(), 60)
        listed = await asyncio.wait_for(session.list_tools(), 10)
        calls = [("calculate", {"expression": "log2(8)"}), ("read", {"doc_id": "no-such-article"}),
                 ("calculate", {"expr": "1"})]
        results = [await asyncio.wait_for(session.call_tool(name, arguments), 10) for name, arguments in calls]
    dump = {"by_alias": True, "exclude_none": True, "mode": "json"}
    return {"initialized": initialized.model_dump(**dump), "tools": [t.model_dump(**dump) for t in listed.tools],
            "results": [r.model_dump(**dump) for r in results]}


def test_the_server_answers_initialize_tools_list_and_tools_call():
    with contextlib.ExitStack() as stack:
        said = asyncio.run(talk([sys.executable, "-m", "teachagent", "mcp"], stack))
    assert said["initialized"]["serverInfo"]["name"] == "teachagent"
    assert said["initialized"]["instructions"] == INSTRUCTIONS
    assert "tools" in said["initialized"]["capabilities"]
    course = [*Library().tools(), calculate]
    assert [{"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]} for t in said["tools"]] \
        == [t.spec for t in course]  # each tool served exactly as the course defines it
    assert all(t["annotations"] == {"readOnlyHint": True} for t in said["tools"])
    in_process = Dispatcher(course)
    for result, (name, arguments) in zip(said["results"], [("calculate", {"expression": "log2(8)"}),
                                                           ("read", {"doc_id": "no-such-article"}),
                                                           ("calculate", {"expr": "1"})]):
        expected = in_process(ToolCall("x", name, arguments))
        assert result["content"] == [{"type": "text", "text": expected.content}]  # the lesson's own text, errors too
        assert result["isError"] is expected.is_error
    assert [r["isError"] for r in said["results"]] == [False, True, True]


def test_a_folder_and_a_memory_file_are_served_read_only_unless_save_note_is_named_and_lesson_5_runs_over_it(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("alpha", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("not yours", encoding="utf-8")
    notes = tmp_path / "notes.db"
    MemoryStore(notes).save("the meeting is on Tuesday")
    with mcp_tools(course_server_command(folder=tmp_path / "docs", memory=notes)) as server:
        assert [t.name for t in server] == ["search", "read", "calculate", "read_file", "search_notes", "list_notes"]
        assert not any(t.ask_first for t in server)  # every one of them marked read-only by the server
        tools = Dispatcher(server.tools)
        assert tools(ToolCall("1", "read_file", {"path": "a.txt"})).content == "alpha"
        outside = tools(ToolCall("2", "read_file", {"path": "../secret.txt"}))
        assert outside.is_error and "not yours" not in outside.content
        assert tools(ToolCall("3", "search_notes", {"query": "Tuesday"})).content == "[1] the meeting is on Tuesday"
        research_tools = [t for t in server if t.name in ("search", "read", "calculate")]
        lesson_5s_run_over_mcp(research_tools)
    with mcp_tools(course_server_command(memory=notes, allow=["save_note"])) as server:
        assert [t.name for t in server][-3:] == ["save_note", "search_notes", "list_notes"]
        assert [t.name for t in server if t.ask_first] == ["save_note"]  # the one that writes asks a person first
        saved = Dispatcher(server.tools, approve=lambda call: True)(ToolCall("4", "save_note", {"text": "bring cake"}))
        assert saved.content == "saved as note 2"
    assert [note.text for note in MemoryStore(notes).all()] == ["the meeting is on Tuesday", "bring cake"]


@pytest.mark.parametrize(("options", "said"), [
    (["--memory", "missing.db"], "there is no memory file 'missing.db'; read-only, the server does not create one"),
    (["--allow", "save_note"], "--allow save_note needs --memory FILE"),
    (["--folder", "no-such-folder"], "read_file_tool: the folder 'no-such-folder' does not exist"),
    (["--allow", "rm"], "argument --allow: invalid choice: 'rm' (choose from"),
])
def test_options_it_cannot_use_end_it_with_one_line_and_nothing_on_stdout(tmp_path, options, said):
    done = subprocess.run([sys.executable, "-m", "teachagent", "mcp", *options], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert said in done.stderr.strip().splitlines()[-1], done.stderr
    assert not (tmp_path / "missing.db").exists()  # read-only: nothing made


def test_course_tools_refuses_what_it_cannot_serve(tmp_path):
    from teachagent.base.errors import CourseError

    with pytest.raises(CourseError, match="the only one is save_note, not rm"):
        course_tools(allow=["rm"])
    assert [t.name for t in course_tools()] == ["search", "read", "calculate"]


def lesson_5s_run_over_mcp(tools):
    """Lesson 5's research run with `tools` served over MCP is the in-process run: the same answer, the same Z."""
    library = Library()
    in_process = research_agent("excerpt", library=library).run(QUESTION)
    over_mcp = Agent(ScriptedModel(search_and_excerpt(library)), tools, system_prompt(library), max_steps=15).run(QUESTION)
    assert over_mcp.answer == in_process.answer and over_mcp.outcome == "answer"
    assert over_mcp.context_sizes == in_process.context_sizes and over_mcp.Z == in_process.Z

"""An MCP server's tools as ordinary Tools (teachagent/remote_tools.py), through the real `mcp` SDK over stdio.

The servers are hostile on purpose (tests/mcp_servers/hostile.py, stdlib only, so each
starts in a few milliseconds): one dies mid-call, one hangs and ignores both the end of
its input and SIGTERM, one lies about its schemas, one floods, one writes lines that are
not MCP messages, one ends before it starts, one never answers. Each gives one clear
error result (or one line at the start) within its time limit, and no server process
outlives its connection or the program. Every wait here is bounded by the client's own
time limits and by the `timeout` of each subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from teachagent import Agent, Dispatcher, MCPServerError, MCPTools, Run, ScriptedModel, StepViewer, ToolCall, call, mcp_tools
from teachagent.base.errors import SettingError
from teachagent.course.replay import Player, Recorder
from teachagent.remote_tools import GRACE, MAX_RESULT_CHARS, result_text, tool_from_listing

HOSTILE = Path(__file__).parent / "mcp_servers" / "hostile.py"
TIMEOUT = 1.0  # seconds a call may wait here: long enough for a busy machine, short enough for a test
# whether a process still runs is asked with signal 0, which on Windows would be a Ctrl-C to it instead
by_signal_0 = pytest.mark.skipif(sys.platform == "win32", reason="asks whether a process runs with signal 0 (POSIX)")


@pytest.fixture(autouse=True)
def quick_sdk_shutdown(monkeypatch):
    """The SDK gives a server 2 s to end after its stdin closes, then 2 s after SIGTERM before SIGKILL; a hostile
    server here uses them all, idle time for a test. The order of the steps is unchanged. (Names of the SDK's
    own: if one is renamed, the waits are just longer.)"""
    for name in ("PROCESS_TERMINATION_TIMEOUT", "FORCE_KILL_TIMEOUT"):
        monkeypatch.setattr(f"mcp.client.stdio.{name}", 0.3, raising=False)


def hostile(mode: str, *more: str, **options) -> MCPTools:
    options.setdefault("timeout", TIMEOUT)
    options.setdefault("start_timeout", 30)
    return mcp_tools([sys.executable, str(HOSTILE), mode, *more], **options)


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie waiting to be reaped counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def wait_gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return gone(pid)


def run_call(server: MCPTools, name: str, arguments: dict | None = None):
    """One call through the course's own dispatcher, as the loop makes it: (result, seconds it took)."""
    started = time.monotonic()
    result = Dispatcher(server.tools, approve=lambda call: True)(ToolCall("t1", name, arguments or {}))
    return result, time.monotonic() - started


def test_an_mcp_tool_is_a_tool_with_its_procedure_elsewhere():
    with hostile("dies") as server:
        fine = server.tools[0]
        assert [t.name for t in server] == ["fine", "crash"] and len(server) == 2
        schema = {"type": "object", "properties": {}}
        assert fine.spec == {"name": "fine", "description": "Answer 'fine'.", "input_schema": schema}
        assert server.listing[0]["annotations"] == {"readOnlyHint": True}  # tools/list as the server sent it
        assert [t.ask_first for t in server] == [False, True]  # what the server does not mark read-only asks first
        assert fine.timeout == TIMEOUT + GRACE  # the dispatcher's limit, a little past the call's own
        result, _ = run_call(server, "fine")
        assert (result.content, result.is_error) == ("fine", False)
        assert repr(server) == "MCPTools(server='hostile-dies', running, tools=['fine', 'crash'])"
    assert repr(server).endswith("closed, tools=['fine', 'crash'])")
    result, seconds = run_call(server, "fine")
    assert result.is_error and "the connection to the MCP server 'hostile-dies' is closed" in result.content and seconds < 1


@pytest.mark.parametrize(("ask_first", "asking"), [(True, [True, True]), (False, [False, False]), ({"fine"}, [True, False])])
def test_ask_first_is_the_learners_choice_when_given(ask_first, asking):
    with hostile("dies", ask_first=ask_first) as server:
        assert [t.ask_first for t in server] == asking


def test_a_server_that_dies_mid_call_gives_one_error_and_the_loop_goes_on():
    with hostile("dies") as server:
        result, _ = run_call(server, "crash")  # its message, not the time limit's, says the death was noticed
        assert result.is_error and result.content == (
            "MCPToolError: the MCP server 'hostile-dies' has closed the connection (it ended?); "
            "the last line it wrote to stderr: 'about to crash'")
        again, seconds = run_call(server, "fine")
        assert again.is_error and "has closed the connection" in again.content and seconds < TIMEOUT  # not waited out


@by_signal_0
def test_a_server_that_hangs_gives_an_error_within_the_time_limit_and_is_killed_at_close(tmp_path):
    pidfile = tmp_path / "pid"
    server = hostile("hangs", str(pidfile))
    pid = int(pidfile.read_text())
    result, seconds = run_call(server, "wait")
    assert result.content == "MCPToolError: the MCP server 'hostile-hangs' did not answer within 1 s; the call was cancelled"
    assert TIMEOUT <= seconds < TIMEOUT + GRACE
    assert not gone(pid)
    started = time.monotonic()
    server.close()  # it ignores the end of its stdin and SIGTERM: the SDK's SIGKILL ends it
    assert gone(pid) and time.monotonic() - started < 10


def test_a_server_that_lies_about_its_schemas():
    with hostile("liar") as server:
        assert [t.name for t in server] == ["fine", "add", "total"]
        assert server.skipped == {
            "typo": "'banana' is not valid under any of the given schemas",
            "dotted.name": "tool name must be 1 to 64 letters, digits, '_' or '-' (the Messages API rule), got 'dotted.name'",
        }
        assert "left out: typo, dotted.name" in repr(server)
        wrong, _ = run_call(server, "add", {"a": 1, "b": 2})  # the input its schema asks for
        assert wrong.is_error and wrong.content == "MCPToolError: missing argument x (got ['a', 'b'])"
        unchecked, _ = run_call(server, "add", {"x": 1})  # what it really wants is refused before it is sent
        assert unchecked.is_error and "does not match the schema of tool 'add'" in unchecked.content
        broken, _ = run_call(server, "total")
        assert broken.is_error and broken.content.startswith(
            "MCPToolError: the MCP server 'hostile-liar' answered against its own output schema: ")
        assert "'lots' is not of type 'number'" in broken.content


def test_a_flood_is_refused_and_a_stream_without_end_times_out():
    with hostile("floods", timeout=3) as server:  # 2.5 million characters to parse: time to spare on a busy machine
        flood, seconds = run_call(server, "flood")
        assert flood.is_error and seconds < TIMEOUT
        assert flood.content == (f"MCPToolError: the MCP server's result is 2,500,000 characters, more than the "
                                 f"{MAX_RESULT_CHARS:,} a tool result may hold; it was not passed on")
        assert run_call(server, "fine")[0].content == "fine"  # the server itself is well
        endless, seconds = run_call(server, "endless")
        assert endless.is_error and "did not answer within 3 s" in endless.content and seconds < 3 + GRACE


def test_lines_that_are_not_mcp_messages():
    with hostile("garbage") as server:
        noisy, _ = run_call(server, "noisy")
        assert (noisy.content, noisy.is_error) == ("noisy but done", False)  # a stray line spoils nothing after it
        shapeless, _ = run_call(server, "shapeless")
        assert shapeless.content == ("MCPToolError: the MCP server 'hostile-garbage' answered with something "
                                     "that is not a tool result")
        garbage, seconds = run_call(server, "garbage")
        assert garbage.is_error and seconds < TIMEOUT + GRACE
        assert garbage.content == ("MCPToolError: the MCP server 'hostile-garbage' did not answer within 1 s; the call "
                                   "was cancelled; it also wrote 2 lines that are not MCP messages, the last: "
                                   "'this is not JSON'")


@by_signal_0
def test_a_server_that_cannot_start_is_one_line(tmp_path):
    with pytest.raises(MCPServerError, match=r"^the MCP server 'no-such-program-here' could not be started: "):
        mcp_tools(["no-such-program-here"])
    with pytest.raises(MCPServerError, match=r"ended before it had listed its tools; the last line it wrote to "
                                             r"stderr: 'cannot start: no configuration'$"):
        hostile("early")
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(MCPServerError, match=r"did not answer initialize and tools/list within 1 s$"):
        hostile("mute", str(pidfile), start_timeout=1)
    assert time.monotonic() - started < 8 and wait_gone(int(pidfile.read_text()), 2)
    assert MCPServerError("x")._render_traceback_() == ["MCPServerError: x"]  # one line in Jupyter


@pytest.mark.parametrize("command", ["python server.py", [], [sys.executable, 3]])
def test_the_command_is_a_list_of_strings(command):
    with pytest.raises(MCPServerError, match="needs the server's command as a list of strings"):
        mcp_tools(command)


def test_a_time_limit_is_a_number():
    with pytest.raises(SettingError, match="mcp_tools: timeout must be a number above 0"):
        mcp_tools([sys.executable, str(HOSTILE), "dies"], timeout=float("nan"))


@by_signal_0
def test_no_server_outlives_the_program_that_started_it(tmp_path):
    pidfile = tmp_path / "pid"
    script = textwrap.dedent(f"""
        import sys
        import mcp.client.stdio
        from teachagent import mcp_tools
        mcp.client.stdio.PROCESS_TERMINATION_TIMEOUT = mcp.client.stdio.FORCE_KILL_TIMEOUT = 0.3  # as quick_sdk_shutdown
        server = mcp_tools([sys.executable, {str(HOSTILE)!r}, "hangs", {str(pidfile)!r}])
        print(server.tools[0].name, flush=True)
    """)  # ends without close(), the server ignoring the end of its stdin and SIGTERM
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "fine\n", done.stderr
    assert gone(int(pidfile.read_text()))


def test_the_loop_approvals_the_step_viewer_and_a_saved_run_work_over_mcp_tools():
    def policy(messages):
        if len(messages) == 1:
            return [call("fine"), call("crash")]
        return "Done: " + " / ".join(b.content for b in messages[-1].content)

    asked = []
    with hostile("dies") as server:
        agent = Agent(ScriptedModel(policy), server.tools, max_steps=3, approve=lambda c: asked.append(c.name) or False)
        run = agent.run("Say fine.")
        assert asked == ["crash"]  # not read-only, so a person was asked, said no, and it never ran
        assert run.answer == "Done: fine / the user did not approve this call to 'crash', so it was not run"
        assert run_call(server, "fine")[0].content == "fine"  # the server is still alive
    assert Run.from_json(run.to_json()).answer == run.answer
    assert repr(StepViewer(run)) == "StepViewer(2 steps, showing step 1, outcome 'answer')"


def test_a_recording_over_mcp_tools_replays(tmp_path):
    def policy(messages):
        return call("fine") if len(messages) == 1 else f"It said {messages[-1].content[0].content}."

    with hostile("dies") as server:
        recorder = Recorder(ScriptedModel(policy), tmp_path / "c.jsonl")
        recorded = Agent(recorder, server.tools).run("Ask.")
        recorder.finish()
        replayed = Agent(Player(tmp_path / "c.jsonl"), server.tools).run("Ask.")
    assert replayed.answer == recorded.answer == "It said fine."
    assert [s.response for s in replayed.steps] == [s.response for s in recorded.steps]


def test_a_listing_and_a_result_read_as_the_course_reads_them():
    made = tool_from_listing({"name": "shout", "inputSchema": {"type": "object"}}, lambda: "HI")
    assert made.description == "shout (its server gave no description)"
    with pytest.raises(ValueError, match="must be a JSON schema for an object"):
        tool_from_listing({"name": "shout", "description": "d", "inputSchema": {"type": "string"}}, lambda: "")
    assert result_text({"content": [{"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png"},
                                    {"type": "text", "text": "b"}], "isError": True}) == (
        "a\n[image content (image/png): not shown, as a tool result here is text]\nb", True)
    assert result_text({"content": [], "structuredContent": {"n": 1}}) == ('{"n": 1}', False)


def test_importing_the_course_does_not_import_the_sdk():
    code = "import sys, teachagent; print(sorted(m for m in ('mcp', 'mcp_types', 'pydantic', 'anyio') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout.replace("'", '"')) == []

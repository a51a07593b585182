"""The dispatcher: it runs valid calls, and turns everything else into an error result."""

import os
import sys
import threading
import time
from types import SimpleNamespace
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent.agent import Agent
from teachagent.base.errors import CourseError, SettingError
from teachagent.base.tool_runs import MAX_PROBLEM_CHARS
from teachagent.dispatch import Dispatcher
from teachagent.messages import ToolCall, ToolResult
from teachagent.scripted import ScriptedModel
from teachagent.scripted import call as scripted_call
from teachagent.tools import Tool, read_file_tool, tool


def recording_dispatcher():
    """A dispatcher whose `note` tool records every input it is run with, plus two faulty tools."""
    runs = []

    @tool
    def note(path: str, count: int = 1, tags: list[str] | None = None, mode: Literal["a", "b"] = "a") -> str:
        """Record a note."""
        runs.append({"path": path, "count": count, "tags": tags, "mode": mode})
        return f"noted {path}"

    @tool
    def boom(x: int = 0) -> str:
        """Always fails."""
        raise ZeroDivisionError("division by zero")

    @tool
    def junk(x: int = 0) -> str:
        """Returns a number instead of text."""
        return 42

    return Dispatcher([note, boom, junk]), runs


def bypass(call_id, name, tool_input):
    """A ToolCall holding what ToolCall itself would refuse, as a buggy adapter might make."""
    call = ToolCall(call_id, "placeholder", {})
    object.__setattr__(call, "name", name)
    object.__setattr__(call, "input", tool_input)
    return call


def check(result, call_id):
    assert isinstance(result, ToolResult)
    assert isinstance(result.content, str)
    assert result.tool_use_id == call_id
    return result


# --- construction ----------------------------------------------------------------------


def test_specs_and_names_keep_the_given_order():
    d, _ = recording_dispatcher()
    assert d.names == ["note", "boom", "junk"]
    assert [s["name"] for s in d.specs] == ["note", "boom", "junk"]
    assert set(d.specs[0]) == {"name", "description", "input_schema"}


def test_repr_lists_the_tool_names():
    d, _ = recording_dispatcher()
    assert repr(d) == "Dispatcher(tools=['note', 'boom', 'junk'])"


def test_any_iterable_of_tools_will_do():
    d, _ = recording_dispatcher()
    tools = [Tool(s["name"], s["description"], s["input_schema"], str) for s in d.specs]
    assert Dispatcher(t for t in tools).names == ["note", "boom", "junk"]
    assert Dispatcher([]).names == []


def test_duplicate_names_are_refused_naming_the_duplicate():
    a = Tool("search", "one", {"type": "object"}, str)
    b = Tool("search", "two", {"type": "object"}, str)
    c = Tool("read", "three", {"type": "object"}, str)
    with pytest.raises(ValueError, match="two tools are named 'search'") as caught:
        Dispatcher([a, c, b])
    assert isinstance(caught.value, CourseError)  # one line in Jupyter: the learner's mistake, not a crash
    assert caught.value._render_traceback_() == [f"SettingError: {caught.value}"]
    with pytest.raises(SettingError, match="names must differ"):
        Agent(ScriptedModel(["never asked"]), tools=[a, b])  # the agent builds its dispatcher at once


@pytest.mark.parametrize("item", [print, "read_file", {"name": "x"}, None])
def test_non_tools_are_refused(item):
    with pytest.raises(TypeError, match="Tool objects"):
        Dispatcher([item])


def test_an_invalid_schema_is_refused_at_construction():
    bad = Tool("t", "d", {"type": "object", "properties": {"x": {"type": "strin"}}}, str)
    with pytest.raises(ValueError, match="tool 't' has an invalid input_schema"):
        Dispatcher([bad])


# --- the happy path and each kind of failure ----------------------------------------------


def test_a_valid_call_runs_the_tool_and_returns_its_text():
    d, runs = recording_dispatcher()
    result = d(ToolCall("toolu_1", "note", {"path": "a.txt", "tags": ["x"]}))
    assert result == ToolResult("toolu_1", "noted a.txt", is_error=False)
    assert runs == [{"path": "a.txt", "count": 1, "tags": ["x"], "mode": "a"}]


def test_an_unknown_tool_is_an_error_listing_the_available_ones():
    d, runs = recording_dispatcher()
    result = d(ToolCall("toolu_1", "write_file", {"path": "a.txt"}))
    assert result.is_error
    assert "'write_file'" in result.content
    assert "'note', 'boom', 'junk'" in result.content
    assert runs == []


def test_a_huge_unknown_name_is_shortened_in_the_message():
    d, _ = recording_dispatcher()
    result = d(ToolCall("1", "x" * 100_000, {}))
    assert result.is_error and len(result.content) < 300


def test_unknown_tool_with_no_tools_at_all():
    result = Dispatcher([])(ToolCall("1", "x", {}))
    assert result.is_error and "available tools are: none" in result.content


@pytest.mark.parametrize(
    "tool_input, expected",
    [
        ({"path": 42}, "input.path: 42 is not of type 'string'"),
        ({}, "input: 'path' is a required property"),
        ({"path": "a", "colour": "red"}, "'colour' was unexpected"),
        ({"path": "a", "tags": ["x", 7]}, "input.tags[1]: 7 is not of type 'string'"),
        ({"path": "a", "mode": "c"}, "input.mode: 'c' is not one of ['a', 'b']"),
        ({"path": "a", "count": True}, "input.count: True is not of type 'integer'"),
    ],
)
def test_input_that_fails_the_schema_is_an_error_and_the_tool_does_not_run(tool_input, expected):
    d, runs = recording_dispatcher()
    result = d(ToolCall("toolu_1", "note", tool_input))
    assert result.is_error
    assert "does not match the schema of tool 'note'; it was not run" in result.content
    assert expected in result.content
    assert runs == []


def test_every_schema_problem_is_listed():
    d, _ = recording_dispatcher()
    result = d(ToolCall("1", "note", {"count": "many", "extra": 1}))
    lines = result.content.splitlines()[1:]
    assert len(lines) == 3
    assert all(line.startswith("- input") for line in lines)


def test_many_problems_are_capped_and_long_ones_shortened():
    d, _ = recording_dispatcher()
    result = d(ToolCall("1", "note", {"path": "x" * 100_000, "tags": list(range(25))}))
    lines = result.content.splitlines()[1:]
    assert len(lines) == 11 and lines[-1] == "- ... and more problems"  # the rest are not looked for
    long = d(ToolCall("1", "note", {"path": ["x" * 100_000]})).content
    assert len(long) < MAX_PROBLEM_CHARS + 200 and long.endswith("more characters]")


def test_a_tool_that_raises_gives_type_and_message_without_traceback():
    d, _ = recording_dispatcher()
    result = d(ToolCall("1", "boom", {}))
    assert result == ToolResult("1", "ZeroDivisionError: division by zero", is_error=True)


def test_an_exception_without_a_message_gives_its_type():
    def fail() -> str:
        """Fails."""
        raise KeyError

    assert Dispatcher([tool(fail)])(ToolCall("1", "fail", {})).content == "KeyError"


def test_a_tool_that_returns_something_other_than_text_is_an_error():
    d, _ = recording_dispatcher()
    result = d(ToolCall("1", "junk", {}))
    assert result.is_error
    assert "returned int" in result.content and "must return text" in result.content


@pytest.mark.parametrize("timeout", [None, 5])
def test_returning_none_is_an_error_with_or_without_a_timeout(timeout):
    @tool(timeout=timeout)
    def forgetful() -> str:
        """Forgets to return."""

    result = Dispatcher([forgetful])(ToolCall("1", "forgetful", {}))
    assert result.is_error and "returned NoneType" in result.content


def test_a_tool_that_hangs_times_out():
    release = threading.Event()

    @tool(timeout=0.2)
    def hang() -> str:
        """Waits."""
        release.wait(30)
        return "too late"

    started = time.monotonic()
    result = Dispatcher([hang])(ToolCall("1", "hang", {}))
    elapsed = time.monotonic() - started
    release.set()
    assert result == ToolResult("1", "tool 'hang' did not finish within 0.2 s", is_error=True)
    assert 0.2 <= elapsed < 5


def test_a_tool_within_its_timeout_runs_in_a_daemon_thread():
    seen = []

    @tool(timeout=5)
    def where() -> str:
        """Says where it runs."""
        seen.append(threading.current_thread())
        return "here"

    assert Dispatcher([where])(ToolCall("1", "where", {})).content == "here"
    assert seen[0] is not threading.current_thread() and seen[0].daemon


def test_a_tool_without_timeout_runs_inline():
    seen = []

    @tool(timeout=None)
    def where() -> str:
        """Says where it runs."""
        seen.append(threading.current_thread())
        return "here"

    assert Dispatcher([where])(ToolCall("1", "where", {})).content == "here"
    assert seen == [threading.current_thread()]


@pytest.mark.parametrize("timeout", [None, 5])
def test_a_tool_that_calls_sys_exit_is_an_error_result_inline_or_on_a_worker(timeout):
    @tool(timeout=timeout)
    def leave() -> str:
        """Exits."""
        sys.exit(3)

    result = Dispatcher([leave])(ToolCall("1", "leave", {}))
    assert result == ToolResult("1", "tool 'leave' tried to end the program (sys.exit(3)); it was stopped", True)


@pytest.mark.parametrize("timeout", [None, 5])
def test_ctrl_c_inside_a_tool_still_stops_the_caller(timeout):
    @tool(timeout=timeout)
    def interrupted() -> str:
        """Is interrupted."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Dispatcher([interrupted])(ToolCall("1", "interrupted", {}))


def test_workers_are_reused_between_calls():
    seen = []

    @tool(timeout=5)
    def where() -> str:
        """Says where it runs."""
        seen.append(threading.current_thread())
        return "here"

    dispatcher = Dispatcher([where])
    for i in range(5):
        assert dispatcher(ToolCall(str(i), "where", {})).content == "here"
    assert len(set(seen)) == 1 and seen[0] is not threading.current_thread()


def test_a_hung_tool_is_reported_and_the_next_call_does_not_wait_for_it():
    release, seen = threading.Event(), []

    @tool(timeout=0.2)
    def sometimes_hangs(hang: bool) -> str:
        """Hangs when asked to."""
        seen.append(threading.current_thread())
        if hang:
            release.wait(30)
        return "done"

    dispatcher = Dispatcher([sometimes_hangs])
    try:
        assert dispatcher(ToolCall("1", "sometimes_hangs", {"hang": True})).content.endswith("within 0.2 s")
        started = time.monotonic()
        assert dispatcher(ToolCall("2", "sometimes_hangs", {"hang": False})) == ToolResult("2", "done")
        assert time.monotonic() - started < 0.2  # well inside the timeout: it did not queue behind the hung one
        assert seen[0] is not seen[1]  # the hung worker was abandoned, another one took the call
    finally:
        release.set()


def test_idle_workers_are_bounded_after_many_hang_at_once():
    from teachagent.base import timelimit

    release = threading.Event()

    @tool(timeout=0.05)
    def hang() -> str:
        """Waits."""
        release.wait(30)
        return "late"

    dispatcher = Dispatcher([hang])
    results = [dispatcher(ToolCall(str(i), "hang", {})) for i in range(timelimit.MAX_IDLE_WORKERS + 4)]
    assert all(r.is_error for r in results)
    release.set()
    deadline = time.monotonic() + 5
    while sum(t.name == "teachagent tool worker" for t in threading.enumerate()) > timelimit.MAX_IDLE_WORKERS:
        assert time.monotonic() < deadline, "workers beyond the idle bound did not end"
        time.sleep(0.01)


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), 1e300, -1, 0, "5"])
def test_a_timeout_changed_after_the_tool_was_made_is_checked_by_the_dispatcher(timeout):
    t = Tool("t", "d", {"type": "object"}, lambda: "ok")
    t.timeout = timeout
    with pytest.raises(ValueError, match=r"the timeout of tool 't' must be a number above 0 and at most 86,400"):
        Dispatcher([t])


@pytest.mark.parametrize("tool_input", [None, [], "path=a.txt", 3, ["path", "a.txt"]])
def test_input_that_is_not_a_dict_is_an_error(tool_input):
    d, runs = recording_dispatcher()
    result = check(d(bypass("1", "note", tool_input)), "1")
    assert result.is_error and "must be a JSON object" in result.content
    assert runs == []


@pytest.mark.parametrize(
    "call, is_error",
    [
        (SimpleNamespace(id="1", name="note", input={"path": "x"}), False),
        (SimpleNamespace(id="1", name=["note"], input={}), True),  # unhashable name
        (SimpleNamespace(id="1", name=None, input=None), True),
        (SimpleNamespace(id="1"), True),  # no name or input at all
    ],
)
def test_stand_in_call_objects_are_handled(call, is_error):
    d, _ = recording_dispatcher()
    assert check(d(call), "1").is_error == is_error


def test_non_string_keys_are_refused_before_the_tool_runs():
    d, runs = recording_dispatcher()
    result = d(bypass("1", "note", {"path": "a", 1: "x"}))
    assert result.is_error and runs == []


def test_a_custom_schema_that_allows_extra_keys_still_never_raises():
    loose = Tool("loose", "Takes anything.", {"type": "object"}, lambda: "ok")
    result = Dispatcher([loose])(ToolCall("1", "loose", {"surprise": 1}))
    assert result.is_error and result.content.startswith("TypeError:")


def test_read_file_through_the_dispatcher(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "notes.txt").write_text("hi", encoding="utf-8")
    d = Dispatcher([read_file_tool(tmp_path / "root")])
    assert d(ToolCall("1", "read_file", {"path": "notes.txt"})) == ToolResult("1", "hi")
    escaped = d(ToolCall("2", "read_file", {"path": "../notes.txt"}))
    assert escaped.is_error and escaped.content.startswith("ValueError: path '../notes.txt' is outside the folder")


# --- property-based: random and hostile calls --------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)
huge_strings = st.builds(lambda ch, n: ch * n, st.characters(), st.integers(10_000, 300_000))


def nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


deeply_nested = st.builds(nested, st.integers(50, 400))
any_value = json_values | huge_strings | deeply_nested
valid_note_input = st.fixed_dictionaries(
    {"path": st.text()},
    optional={
        "count": st.integers() | st.floats(allow_nan=False, allow_infinity=False).map(float.__floor__).map(float),
        "tags": st.none() | st.lists(st.text(), max_size=3),
        "mode": st.sampled_from(["a", "b"]),
    },
)
near_valid_note_input = st.fixed_dictionaries(
    {},
    optional={
        "path": st.text() | any_value,
        "count": st.integers() | st.floats(allow_nan=False, allow_infinity=False) | any_value,
        "tags": st.none() | st.lists(st.text(), max_size=3) | any_value,
        "mode": st.sampled_from(["a", "b", "c", ""]) | any_value,
        "extra": any_value,
    },
)
inputs = valid_note_input | near_valid_note_input | st.dictionaries(st.text(max_size=8), any_value, max_size=5)
names = st.sampled_from(["note", "boom", "junk", "Note", "note ", ""]) | st.text(max_size=70)


def is_valid_note_input(x):
    """What note's schema allows, written out by hand as an independent check."""

    def is_integer(v):  # JSON schema counts 2.0 as an integer
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())

    return (
        isinstance(x, dict)
        and set(x) <= {"path", "count", "tags", "mode"}
        and isinstance(x.get("path"), str)
        and ("count" not in x or is_integer(x["count"]))
        and (x.get("tags") is None or (isinstance(x["tags"], list) and all(isinstance(t, str) for t in x["tags"])))
        and x.get("mode", "a") in ("a", "b")
    )


@st.composite
def calls(draw):
    """A tool call as a model (or a buggy adapter) might hand it over."""
    if draw(st.booleans()):  # half the time a call that should run, so both outcomes are well explored
        name, tool_input = "note", draw(valid_note_input)
    else:
        name, tool_input = draw(names), draw(inputs | any_value)
    call_id = draw(st.text(max_size=10))
    how = draw(st.sampled_from(["toolcall", "bypass", "stand-in"]))
    if how == "toolcall" and name and isinstance(tool_input, dict):
        return ToolCall(call_id, name, tool_input)
    if how == "stand-in":
        return SimpleNamespace(id=call_id, name=draw(st.just(name) | json_values), input=tool_input)
    return bypass(call_id, name, tool_input)


@settings(max_examples=200, deadline=None)
@given(calls())
def test_no_call_escapes_and_the_tool_runs_only_on_valid_input(call):
    d, runs = recording_dispatcher()
    result = check(d(call), call.id)
    should_run = call.name == "note" and isinstance(call.name, str) and is_valid_note_input(call.input)
    if should_run:
        assert not result.is_error
        assert len(runs) == 1 and runs[0]["path"] == call.input["path"]
    else:
        assert result.is_error
        assert runs == []


@settings(max_examples=60, deadline=None)
@given(st.lists(calls(), min_size=1, max_size=10))
def test_one_dispatcher_survives_a_stream_of_calls(stream):
    d, runs = recording_dispatcher()
    for call in stream:
        check(d(call), call.id)
    assert len(runs) == sum(c.name == "note" and is_valid_note_input(c.input) for c in stream)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A folder read_file may read; beside it a secret, and symlinks that point out of it."""
    base = tmp_path_factory.mktemp("sandbox")
    root = base / "root"
    (root / "sub").mkdir(parents=True)
    (root / "notes.txt").write_text("notes", encoding="utf-8")
    (root / "sub" / "deep.txt").write_text("deep", encoding="utf-8")
    (root / "bin.dat").write_bytes(b"\xff\xfe\x00")
    (base / "secret.txt").write_text("SECRET", encoding="utf-8")
    (base / "outside").mkdir()
    (base / "outside" / "more.txt").write_text("SECRET too", encoding="utf-8")
    if os.name != "nt":
        (root / "link_out").symlink_to(base / "secret.txt")
        (root / "dir_out").symlink_to(base / "outside", target_is_directory=True)
        (root / "link_in").symlink_to(root / "notes.txt")
        (root / "sub" / "up").symlink_to(root / "sub", target_is_directory=True)
        (root / "loop").symlink_to(root / "loop")
    return root


parts = st.sampled_from(
    ["..", ".", "", "notes.txt", "sub", "deep.txt", "bin.dat", "secret.txt", "outside", "more.txt", "root",
     "link_out", "dir_out", "link_in", "up", "loop", "~", "\x00", "nope"]
)
readable_paths = st.sampled_from(
    ["notes.txt", "sub/deep.txt", "./notes.txt", "sub/../notes.txt", "link_in", "sub/up/up/deep.txt", "sub//deep.txt"]
)
leads = st.sampled_from(["", "/", "//", "./", "../", "\\"])
joined_paths = st.builds(lambda lead, ps: lead + "/".join(ps), leads, st.lists(parts, max_size=6))
hostile_paths = readable_paths | joined_paths | st.text(max_size=30) | huge_strings


@settings(max_examples=200, deadline=None)
@given(hostile_paths)
def test_read_file_never_leaks_or_escapes(sandbox, path):
    d = Dispatcher([read_file_tool(sandbox)])
    result = check(d(ToolCall("t", "read_file", {"path": path})), "t")
    assert "SECRET" not in result.content

    # independent check: readable only if relative and really inside, a file, and UTF-8
    real = os.path.realpath(os.path.join(sandbox, path)) if "\x00" not in path else None
    readable = (
        real is not None
        and not os.path.isabs(path)
        and real.startswith(os.path.realpath(sandbox) + os.sep)
        and os.path.isfile(real)
        and not real.endswith("bin.dat")
    )
    assert result.is_error == (not readable)
    if readable:
        with open(real, encoding="utf-8") as f:
            assert result.content == f.read()


# --- an agent keeps its dispatcher while the tools are as they were -----------------------------------------


def test_an_agent_keeps_its_dispatcher_while_nothing_changed_and_makes_a_new_one_when_something_did():
    @tool
    def echo(text: str) -> str:
        """Say the text back."""
        return text

    agent = Agent(ScriptedModel(lambda m: "done"), [echo])
    agent.run("a")
    kept = agent.dispatcher()
    assert agent.dispatcher() is kept  # the same tools, told the same
    changes = [
        lambda: agent.tools.append(Tool("other", "d", {"type": "object"}, lambda: "ok")),  # a tool added in place
        lambda: echo.input_schema["properties"]["text"].update(description="edited in place"),
        lambda: setattr(echo, "description", "Say it back, louder."),
        lambda: setattr(agent, "approve", lambda call: True),
    ]
    for change in changes:
        change()
        made = agent.dispatcher()
        assert made is not kept and agent.dispatcher() is made
        kept = made
    assert [s["name"] for s in kept.specs] == ["echo", "other"]
    assert kept.specs[0]["description"] == "Say it back, louder."
    assert kept.specs[0]["input_schema"]["properties"]["text"]["description"] == "edited in place"


def test_a_timeout_changed_between_runs_is_checked_when_the_next_run_starts_and_used_by_its_calls():
    t = Tool("t", "d", {"type": "object"}, lambda: time.sleep(0.5) or "late")
    agent = Agent(ScriptedModel([scripted_call("t"), "done"] * 2), [t])
    assert agent.run("a").steps[0].results[0].content == "late"
    t.timeout = 0.05  # the same tool, now with a shorter limit: the kept dispatcher runs it under this one
    assert "did not finish within 0.05 s" in agent.run("b").steps[0].results[0].content
    t.timeout = -1
    with pytest.raises(ValueError, match=r"the timeout of tool 't' must be a number above 0"):
        agent.run("b")


def test_new_choices_give_the_next_run_a_new_spec_and_a_model_that_changes_its_tools_changes_no_later_run():
    files = ["a.md"]
    told = []

    def policy(messages, tools):
        told.append(list(tools[0]["input_schema"]["properties"]["path"]["enum"]))
        tools[0]["input_schema"]["properties"]["path"]["enum"].append("invented.md")  # a model meddling with its request
        tools.append({"name": "ghost"})
        return "done"

    @tool(choices={"path": lambda: list(files)})
    def read(path: str) -> str:
        """Read a file."""
        return path

    class Meddling(ScriptedModel):
        def complete(self, system, messages, tools=(), max_tokens=1024):
            policy(messages, tools)
            return super().complete(system, messages, [], max_tokens)

    agent = Agent(Meddling(lambda m: "done"), [read])
    first = agent.run("a")
    files.append("b.md")
    second = agent.run("b")
    third = agent.run("c")
    assert told == [["a.md"], ["a.md", "b.md"], ["a.md", "b.md"]]
    assert [r.tools[0]["input_schema"]["properties"]["path"]["enum"] for r in (first, second, third)] == [
        ["a.md"], ["a.md", "b.md"], ["a.md", "b.md"]]
    assert all(len(r.tools) == 1 for r in (first, second, third))

"""Hostile input, round five (issue 41), the course's floor (teachagent/course/, the CLI, the exercises):
a recording replaces a cassette only when its program ends normally and every call it started finished;
banners show a cassette's words only as safe text; real_model_run always starts at its mark; a recording
holds a model's name, never a server's address; every entry point turns what it cannot take into one line.

The floor below (teachagent/base/) is tested in test_hostile5_base.py, the ideas in test_hostile5_ideas.py.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fake_anthropic import Slow
from fake_openai import FakeOpenAI, completion_body, function_call
from hypothesis import given, settings
from hypothesis import strategies as st

import teachagent.__main__ as cli
from teachagent import Agent, Message, ScriptedModel, tool
from teachagent.course import replay
from teachagent.course.modes import select_model
from teachagent.course.replay import CassetteError, Player, Recorder, read_cassette
from teachagent.exercises.lesson8 import SAMPLE_NOTES as NOTES  # the name exercise 8.1's tool reads, as in lesson 8
from teachagent.openai_compatible import OpenAICompatible
from teachagent.scripted import call, latest_results

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "tests"), "TEACHAGENT_MODE": "offline"}
for _name in ("TEACHAGENT_CASSETTE", "TEACHAGENT_DRAFT", "TEACHAGENT_BASE_URL", "TEACHAGENT_MODEL", "OPENAI_API_KEY",
              "OPENAI_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    ENV.pop(_name, None)


@pytest.fixture
def nothing_open(monkeypatch):
    """No recorder or player of select_model's is open in this process."""
    monkeypatch.setattr(replay, "_open", {})
    return replay._open


def old_cassette(path: Path) -> bytes:
    """An instructor's recording at `path`, whole; returns its bytes."""
    recorder = Recorder(ScriptedModel(["the old answer"]), path, source="the instructor's model")
    recorder.complete("", [Message("user", "the old question")])
    recorder.finish()
    return path.read_bytes()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.suffix == ".draft")


# --- a recording is promoted only when its program ends normally and every call it started finished ------

RECORDING_SCRIPT = """
import sys, time
from teachagent import Message, ScriptedModel
from teachagent.course import replay

def slow(messages):
    print("in the second call", flush=True)
    time.sleep(30)
    return "never"

recorder = replay.cassette_model("record", sys.argv[1], ScriptedModel(["first", slow]), "a scripted stand-in")
recorder.complete("", [Message("user", "one")])
print("first call recorded", flush=True)
{then}
"""


def run_script(then: str, cassette: Path, interrupt_after: str | None = None) -> subprocess.CompletedProcess:
    """Run a recording script in a child process; with `interrupt_after`, send it SIGINT once it prints that line."""
    process = subprocess.Popen([sys.executable, "-c", RECORDING_SCRIPT.format(then=then), str(cassette)], env=ENV,
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if interrupt_after:
            lines: queue.Queue = queue.Queue()
            threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
            deadline = time.monotonic() + 60
            while lines.get(timeout=max(0.01, deadline - time.monotonic())) != interrupt_after + "\n":
                pass
            process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, "", err)


@pytest.mark.parametrize("then", [
    'raise RuntimeError("the script fails after its first call")',
    "recorder.complete('', [Message('user', 'two')])",  # Ctrl-C arrives in the middle of the second call
])
def test_a_script_that_ends_by_an_exception_leaves_the_cassette_as_it_was(tmp_path, then):
    cassette = tmp_path / "c.jsonl"
    before = old_cassette(cassette)
    interrupted = "complete" in then
    done = run_script(then, cassette, "in the second call" if interrupted else None)
    assert ("KeyboardInterrupt" if interrupted else "RuntimeError") in done.stderr
    assert cassette.read_bytes() == before and leftovers(tmp_path) == []


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_between_calls_of_a_recording_script_leaves_the_cassette_as_it_was(tmp_path):
    cassette = tmp_path / "c.jsonl"
    before = old_cassette(cassette)
    run_script("print('waiting', flush=True)\ntime.sleep(30)", cassette, "waiting")
    assert cassette.read_bytes() == before and leftovers(tmp_path) == []


def test_a_call_that_never_finished_keeps_the_old_cassette_even_when_the_program_then_ends_normally(tmp_path):
    cassette = tmp_path / "c.jsonl"
    before = old_cassette(cassette)
    then = "try:\n    recorder.complete('', [Message('user', 'two')])\nexcept KeyboardInterrupt:\n    print('stopped')"
    done = run_script(then, cassette, "in the second call")
    assert done.returncode == 0 and "1 of 2 calls did not finish" in done.stderr
    assert cassette.read_bytes() == before and leftovers(tmp_path) == []


def test_a_recording_script_that_ends_normally_still_replaces_the_cassette(tmp_path):
    cassette = tmp_path / "c.jsonl"
    old_cassette(cassette)
    done = run_script("print('done')", cassette)
    assert done.returncode == 0, done.stderr
    assert [r["response"]["content"][0]["text"] for r in read_cassette(cassette)] == ["first"]


@pytest.mark.server  # starts a local fake API server
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_in_the_demo_while_it_records_leaves_the_cassette_as_it_was(tmp_path):
    cassette = tmp_path / "demo.jsonl"
    before = old_cassette(cassette)
    with FakeOpenAI() as fake:
        fake.queue((200, completion_body(None, [function_call("c1", "search", {"query": "KL"})], "tool_calls"), {}),
                   Slow(5, (200, completion_body("too late"), {})))  # Ctrl-C comes while step 2 waits for this
        process = subprocess.Popen(
            [sys.executable, "-m", "teachagent", "--mode", "record", "--cassette", str(cassette), "--base-url",
             fake.base_url, "--model", "m"], env=ENV, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while not process.stdout.readline().startswith("  got:"):  # step 1 ran; step 2's call waits for a reply
                assert time.monotonic() < deadline
            while len(fake.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        finally:
            process.kill()
            process.wait()
    assert process.returncode == 130 and "stopped (Ctrl-C)" in err
    assert cassette.read_bytes() == before and leftovers(tmp_path) == []


@settings(max_examples=25)
@given(calls=st.integers(1, 4), failing=st.integers(0, 4), how=st.sampled_from(["raises", "interrupted"]))
def test_a_recording_with_any_call_failed_or_unfinished_never_replaces_the_cassette(tmp_path_factory, calls, failing,
                                                                                   how):
    folder = tmp_path_factory.mktemp("rec")
    cassette = folder / "c.jsonl"
    before = old_cassette(cassette)

    def fails(messages):
        raise KeyboardInterrupt if how == "interrupted" else ConnectionError("dropped")

    steps = ["fine"] * calls
    steps.insert(min(failing, calls), fails)
    recorder = Recorder(ScriptedModel(steps), cassette)
    for n in range(calls + 1):
        try:
            recorder.complete("", [Message("user", f"question {n}")])
        except (KeyboardInterrupt, ConnectionError):
            pass
    with pytest.raises(CassetteError, match="was left as it was"):
        recorder.finish()
    assert cassette.read_bytes() == before and leftovers(folder) == []


# --- what a cassette says is shown as safe text: the replay banner, the real-model line -----------------

SPOOF = "SmolLM2\x1b[2J\x08\x9b31m\u202eexe.gpj\u2066 (local mode, seed 0)"


def spoofed(path: Path) -> Path:
    recorder = Recorder(ScriptedModel([call("double", n=21), "It is 42."]), path, source="x")
    Agent(recorder, [double], system="Use tools.").run("Double 21.")
    recorder.finish()
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[0] = json.dumps({"format": "teachagent.cassette/2", "recorded_from": SPOOF})  # escaped in the file itself
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@tool
def double(n: int) -> str:
    """Double a number."""
    return str(2 * n)


def shows_nothing_hidden(text: str) -> bool:
    return not any(ch in text for ch in "\x1b\x08\x9b\u202e\u2066")


def test_the_replay_banner_and_the_real_model_line_show_a_cassettes_controls_as_escapes(tmp_path, nothing_open,
                                                                                       capsys):
    cassette = spoofed(tmp_path / "cassettes" / "03_lesson.jsonl")
    select_model(mode="replay", cassette=cassette)
    banner = capsys.readouterr().out
    assert shows_nothing_hidden(banner) and "\\x1b[2J\\x08\\x9b31m\\u202eexe.gpj" in banner
    nothing_open.clear()
    replay.real_model_run(lambda m: Agent(m, [double], system="Use tools.").run("Double 21."), cassette)
    line = capsys.readouterr().out
    assert shows_nothing_hidden(line) and "\\u202eexe.gpj" in line and line.count("\n") == 1


def test_the_cli_replay_banner_shows_a_cassettes_controls_as_escapes(tmp_path, capsys):
    cassette = spoofed(tmp_path / "demo.jsonl")
    cli.main(["--mode", "replay", "--cassette", str(cassette)])
    out, err = capsys.readouterr()
    assert shows_nothing_hidden(out + err) and "\\u202eexe.gpj" in err


# --- real_model_run always starts at its mark ------------------------------------------------------------


def test_in_replay_mode_real_model_run_as_the_first_call_after_a_restart_plays_the_run_at_its_mark(tmp_path,
                                                                                                  nothing_open,
                                                                                                  capsys):
    answers = iter(["It is 42, the run of a cell above.", "It is 42, the real model's run."])

    def moody(messages):
        return call("double", n=21) if not latest_results(messages) else next(answers)

    cassette = tmp_path / "cassettes" / "03_lesson.jsonl"
    recorder = replay.cassette_model("record", cassette, ScriptedModel(moody), "a small model")
    doubled = lambda m: Agent(m, [double], system="Use tools.").run("Double 21.")  # noqa: E731
    doubled(recorder)  # a cell above asks the same first
    replay.real_model_run(doubled, cassette)
    recorder.finish()
    nothing_open.clear()  # the kernel restarts; the learner runs the real_model_run cell first
    replay.cassette_model("replay", cassette)
    assert replay.real_model_run(doubled, cassette).answer == "It is 42, the real model's run."
    assert doubled(replay._in_use()).answer == "It is 42, the run of a cell above."  # the player of the cells: untouched


# --- a recording holds the model's name, never the server's address --------------------------------------


@pytest.mark.server  # starts a local fake API server
def test_a_recording_from_a_server_holds_the_models_name_and_not_the_servers_address(tmp_path, openai_fake):
    openai_fake.queue((200, completion_body("hi"), {}))
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(OpenAICompatible("llama3.2", openai_fake.base_url), cassette)
    recorder.complete("", [Message("user", "hello")])
    recorder.finish()
    written = cassette.read_text(encoding="utf-8")
    assert "127.0.0.1" not in written and str(openai_fake._server.server_address[1]) not in written
    assert read_cassette(cassette)[0]["request"]["model"] == "llama3.2"
    assert Player(cassette).source == "llama3.2"


# --- what a recording loads back is what was recorded -----------------------------------------------------

SPLIT_PAIR = "\ud83d\ude00"  # the two halves of 😀's surrogate pair, as two characters of a str
any_text = st.lists(st.one_of(st.characters(codec=None, exclude_categories=()), st.just(SPLIT_PAIR)), max_size=10).map("".join)


@settings(max_examples=30)
@given(task=any_text, reply=any_text)
def test_a_recording_of_any_text_replays_to_the_same_run(tmp_path_factory, task, reply):
    cassette = tmp_path_factory.mktemp("rec") / "c.jsonl"
    recorder = Recorder(ScriptedModel([call("double", n=2), reply]), cassette)
    recorded = Agent(recorder, [double], system=f"Use tools. {task}").run(task)
    recorder.finish()
    replayed = Agent(Player(cassette), [double], system=f"Use tools. {task}").run(task)
    assert [s.to_dict() | {"seconds": 0} for s in replayed.steps] == [s.to_dict() | {"seconds": 0} for s in recorded.steps]


# --- a cassette path that is a symlink loop is one line --------------------------------------------------


@pytest.fixture
def loop(tmp_path):
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    return tmp_path / "a.jsonl"


@pytest.mark.parametrize("mode", ["replay", "record"])
def test_a_cassette_that_is_a_symlink_loop_is_one_line_in_select_model_and_the_cli(loop, mode, nothing_open, capsys,
                                                                                  monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "x" * 40)
    with pytest.raises(CassetteError, match="symlink"):
        select_model(mode=mode, cassette=loop, quiet=True)
    assert cli.main(["--mode", mode, "--cassette", str(loop)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("teachagent: ") and err.count("\n") == 1 and "symlink" in err
    assert loop.is_symlink() and os.readlink(loop) == str(loop.parent / "b.jsonl")


def test_notebook_replay_of_a_cassette_that_is_a_symlink_loop_is_one_line(loop, capsys):
    notebook = loop.parent / "lesson.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    assert cli.main(["notebook", "replay", str(notebook), "--cassette", str(loop)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("teachagent: ") and err.count("\n") == 1 and "symlink" in err


# --- every learner-facing entry point turns what it cannot take into one line ---------------------------


class Hostile(str):
    """A str whose own methods all raise: a fair check reads the text it holds and never calls them."""

    def _no(self, *args, **kwargs):
        raise RuntimeError("a method of a hostile str was called")

    __hash__ = __eq__ = __ne__ = __format__ = __str__ = __len__ = __iter__ = __contains__ = _no
    strip = split = lower = startswith = encode = _no


@pytest.mark.parametrize("name", ["3.1", "9.9", "3.x"])
def test_a_hostile_str_as_a_quiz_name_is_read_as_its_text(name, capsys):
    from teachagent.exercises import quiz
    from teachagent.exercises.quizzes import NoSuchQuestion

    try:
        quiz(Hostile(name), "a")
    except NoSuchQuestion as refused:
        assert "\n" not in str(refused)
    out = capsys.readouterr().out
    assert out.count("\n") <= 1 and (not out or out.startswith(f"quiz {name}: "))


@pytest.mark.parametrize("name", ["2.1", "9.9", "x"])
def test_a_hostile_str_as_a_solution_name_is_read_as_its_text(name, monkeypatch):
    from teachagent.exercises import solution
    from teachagent.exercises.reveal import NoSuchSolution

    monkeypatch.delenv("TEACHAGENT_CHECK_SOLUTIONS")  # the solution is not run here, in a test's names

    try:
        shown = solution(Hostile(name))
    except NoSuchSolution as refused:
        assert "\n" not in str(refused)
    else:
        assert repr(shown).startswith(f"Reference solution {name}: hidden until you click")


ONE_LINE_ENTRY_POINTS = {
    "quiz": lambda v: __import__("teachagent.exercises", fromlist=["quiz"]).quiz(v, "a"),
    "solution": lambda v: __import__("teachagent.exercises", fromlist=["solution"]).solution(v),
    "guess_line": lambda v: __import__("teachagent.exercises", fromlist=["x"]).guess_line(v, 0, "Z = {:,}"),
    "agrees_with": lambda v: __import__("teachagent.simulation", fromlist=["x"]).Estimate(3, 10).agrees_with(v),
    "price": lambda v: Agent(ScriptedModel(["x"]), max_dollars=1.0, price=v),
    "select_model": lambda v: select_model(mode="replay", cassette=v, quiet=True),
    "MemoryStore": lambda v: __import__("teachagent.memory", fromlist=["x"]).MemoryStore(v),
    "OpenAICompatible": lambda v: OpenAICompatible("llama3.2", v),
    "EvalTask": lambda v: __import__("teachagent", fromlist=["x"]).EvalTask("t", "q", v),
}
hostile_values = st.one_of(
    st.text(st.characters(codec=None, exclude_categories=()), max_size=30), st.builds(Hostile, st.text(max_size=10)),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.integers(-10**20, 10**20), st.none(),
    st.sampled_from(["2.1", "3.1", "claude-haiku-5-5", "ws://x/v1", "http://127.0.0.1:99999/v1", "a\x00b", "\ud800"]))


@settings(max_examples=150)
@given(entry=st.sampled_from(sorted(ONE_LINE_ENTRY_POINTS)), value=hostile_values)
def test_every_learner_facing_entry_point_answers_anything_with_a_result_or_one_line(entry, value, tmp_path_factory):
    from teachagent.base.errors import CourseError

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("entry"))
        patch.setattr(replay, "_open", {})
        patch.delenv("TEACHAGENT_CHECK_SOLUTIONS")  # a solution is not run here, in a test's names
        try:
            ONE_LINE_ENTRY_POINTS[entry](value)
        except CourseError as refused:  # a learner's mistake: one line in Jupyter, which says what to do
            (line,) = refused._render_traceback_()
            assert "\n" not in line and len(line) < 1000


# --- a recording names no server's address, whatever the address ----------------------------------------


@settings(max_examples=30)
@given(host=st.sampled_from(["127.0.0.1", "localhost", "inference.example.net", "[::1]"]),
       port=st.integers(1, 65535), path=st.sampled_from(["/v1", "/openai/v1", "/v1/"]),
       credentials=st.sampled_from(["", "user:secret-pw@", "sk-token-abcdefgh@"]),
       query=st.sampled_from(["", "?api_key=qk-123456789", "?deployment=a"]),
       name=st.sampled_from(["llama3.2", "qwen2.5:7b", "org/model-7B"]))
def test_a_recording_from_any_server_holds_its_models_name_and_no_part_of_its_address(tmp_path_factory, host, port, path,
                                                                                      credentials, query, name):
    from teachagent.messages import Response, Text

    model = OpenAICompatible(name, f"http://{credentials}{host}:{port}{path}{query}")
    model.complete = lambda system, messages, tools=(), max_tokens=1024: Response([Text("hi")], "end_turn")
    cassette = tmp_path_factory.mktemp("rec") / "c.jsonl"
    recorder = Recorder(model, cassette)
    recorder.complete("", [Message("user", "hello")])
    recorder.finish()
    written = cassette.read_text(encoding="utf-8")
    for part in (host, f":{port}", credentials.rstrip("@"), query.lstrip("?")):
        assert not part or part not in written
    assert read_cassette(cassette)[0]["request"]["model"] == name and Player(cassette).source == name


# --- exercise 8.1 is passed by reading the notes, not by typing their titles in -------------------------

def test_a_constant_does_not_pass_exercise_8_1_and_reading_notes_does(said):
    from teachagent.exercises.lesson8 import check_titles_tool, expected_titles

    typed_in = expected_titles(NOTES)

    @tool
    def note_titles() -> str:
        "One line per note: its file name and its title."
        return typed_in

    check_titles_tool(note_titles, NOTES)
    assert said("8.1").startswith("not yet: note_titles gave the same lines when NOTES named another folder")

    @tool
    def note_titles() -> str:  # the learner's second try
        "One line per note: its file name and its title."
        return "\n".join(f"{p.name}: {p.read_text(encoding='utf-8').splitlines()[0].removeprefix('# ')}"
                         for p in sorted(NOTES.glob("*.md")))

    check_titles_tool(note_titles, NOTES)
    assert said("8.1").startswith("correct: 5 notes listed") and NOTES.name == "capstone_notes"


# --- a tool schema with $ref and $defs works in local mode ------------------------------------------------

REF_SCHEMA = {"type": "object", "$defs": {"unit": {"enum": ["cm", "m"]}},
              "properties": {"length": {"type": "number"}, "unit": {"$ref": "#/$defs/unit"}},
              "required": ["length", "unit"], "additionalProperties": False}


def test_local_modes_grammar_holds_a_tool_schema_with_refs_that_resolve_where_it_is_put():
    from teachagent.course.local import json_tools_request

    request = json_tools_request("m", "", [Message("user", "Convert 3 m.")], [
        {"name": "convert", "description": "Convert a length.", "input_schema": REF_SCHEMA}], 64)
    grammar = request["response_format"]["json_schema"]["schema"]
    assert "$ref" not in json.dumps(grammar)
    assert grammar["anyOf"][0]["properties"]["arguments"]["properties"]["unit"] == {"enum": ["cm", "m"]}


@pytest.mark.local
def test_a_tool_schema_with_refs_makes_no_local_call_fail():
    from teachagent.course import local
    from teachagent.tools import Tool

    try:
        local.check_installed()
    except local.LocalModelMissing as missing:
        pytest.skip(str(missing))
    server = local.start_server(threads=1, seed=0)
    try:
        convert = Tool("convert", "Convert a length.", REF_SCHEMA, lambda length, unit: f"{length} {unit}")
        run = Agent(local.local_model(server), [convert], max_steps=2, max_tokens=64).run("Convert 3 m.")
    finally:
        server.stop()
    assert run.outcome != "error" and run.steps

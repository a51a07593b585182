"""Hostile input, round three (issue 25): what the course writes it can read back; what a model,
a tool or a file writes reaches no terminal or page raw; every bound holds in time and memory.

Bounds in time are checked by how the time grows (twice the input may take at most about
three times as long), never by a wall-clock threshold, so that a loaded machine cannot fail
them; bounds in memory by tracemalloc's peak.
"""

from __future__ import annotations

import json
import math
import os
import stat
import threading
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import teachagent.__main__ as cli
from teachagent import ScriptedModel
from teachagent.base.display import terminal_text
from teachagent.base.formats import MAX_BYTES, FormatError, parse, read_text
from teachagent.cost import PRICES, fitted_d
from teachagent.course.replay import Player, Recorder, read_cassette
from teachagent.course.viz import compare_html, run_html, step_html
from teachagent.human import HumanModel, NotAReply
from teachagent.messages import Message, Response, Text, ToolCall, ToolResult
from teachagent.trace import Run, Step
from teachagent.usage import Usage


def _seconds(work, *args) -> float:
    """The best of three timings of work(*args): the least disturbed by the other jobs on the machine."""
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        work(*args)
        best = min(best, time.perf_counter() - started)
    return best


def _grows_linearly(work, small, large) -> bool:
    """True if work(large), on twice the input of work(small), takes at most about three times as long."""
    return _seconds(work, large) <= 3 * _seconds(work, small) + 0.02


def _peak_bytes(work, *args) -> int:
    tracemalloc.start()
    try:
        work(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class Verbatim:
    """A model that gives back `response` exactly as it is, usage and all, as a live one might."""

    name = "claude-test"

    def __init__(self, response: Response) -> None:
        self.response = response

    def complete(self, system, messages, tools=(), max_tokens=1024) -> Response:
        return self.response


def _run(*responses: Response, results=()) -> Run:
    steps = [Step(k, 10 * k, response, list(results) if k == 1 else []) for k, response in enumerate(responses, 1)]
    return Run("the task", "claude-test", steps=steps, outcome="answer", answer="done")


# --- files the course writes, read back --------------------------------------------------------------


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_recording_holding_a_line_separator_reads_back_and_replays(separator, tmp_path):
    reply = Response([Text(f"one{separator}two")], "end_turn", Usage(5, 2), "claude-test")
    cassette = tmp_path / "lesson.jsonl"
    recorder = Recorder(ScriptedModel([reply], name="claude-test"), cassette)
    recorder.complete("", [Message("user", f"ask{separator}again")])
    assert recorder.finish() == cassette  # was: "damaged at line 2", the paid recording thrown away
    assert len(cassette.read_text(encoding="utf-8").splitlines()) == 2  # written escaped: one record, one line
    played = Player(cassette).complete("", [Message("user", f"ask{separator}again")])
    assert played.text == f"one{separator}two"


def test_an_older_recording_with_a_raw_line_separator_still_reads(tmp_path):
    cassette = tmp_path / "old.jsonl"
    record = {"kind": "complete", "request": {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "a\u2028b"}]}]},
        "response": {"content": [{"type": "text", "text": "c\u2029d"}], "stop_reason": "end_turn",
                     "usage": {"input_tokens": 1, "output_tokens": 1}, "model": "m"}}
    cassette.write_text('{"format": "teachagent.cassette/2"}\n' + json.dumps(record, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    assert read_cassette(cassette)[0]["response"]["content"][0]["text"] == "c\u2029d"


@pytest.mark.parametrize("bad_input, field", [
    ({"x": math.nan}, "input.x"),
    ({"x": math.inf}, "input.x"),
    ({"x": 10**400}, "input.x"),
])
def test_a_run_that_could_not_be_read_back_is_refused_before_any_file_is_touched(bad_input, field, tmp_path):
    run = _run(Response([ToolCall("toolu_1", "f", bad_input)], "tool_use"))
    path = tmp_path / "run.json"
    with pytest.raises(FormatError, match=rf"^cannot write this run, it could not be read back: line \d+, field .*{field}"):
        run.save(path)
    assert list(tmp_path.iterdir()) == []  # nothing written, so the path still takes the next save
    _run(Response([Text("fine")], "end_turn")).save(path)
    assert Run.load(path).steps[0].response.text == "fine"


def test_integer_ids_and_usage_past_any_count_are_refused_by_name(tmp_path):
    path = tmp_path / "run.json"
    with pytest.raises(FormatError, match=r"field steps\[0\]\.response\.content\[0\]\.id: 7 is not of type 'string'"):
        _run(Response([ToolCall(7, "f", {})], "tool_use")).save(path)  # type: ignore[arg-type]
    with pytest.raises(FormatError, match=r"field steps\[0\]\.response\.usage\.input_tokens"):
        _run(Response([Text("x")], "end_turn", Usage(10**20, 1))).save(path)
    with pytest.raises(FormatError, match="holds something JSON cannot"):
        _run(Response([ToolCall("t", "f", {"x": {1, 2}})], "tool_use")).save(path)
    assert not path.exists()


def test_a_run_handed_over_as_bytes_is_read_and_anything_else_is_one_line():
    run = _run(Response([Text("é")], "end_turn"))
    assert Run.from_json(run.to_json().encode("utf-8")).steps[0].response.text == "é"
    with pytest.raises(FormatError, match=r"^not a saved Run: it is not UTF-8 text \(line 1\)$"):
        Run.from_json(b"\xff\xfe")
    with pytest.raises(FormatError, match="^not a saved Run: a saved Run is text \\(or UTF-8 bytes\\), not int; Run.load"):
        Run.from_json(12)  # type: ignore[arg-type]


texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from("\u2028\u2029\x85\r\x00"))
counts = st.integers(0, 10**15)
model_blocks = st.one_of(
    st.builds(Text, texts),
    st.builds(ToolCall, texts, texts.filter(bool),
              st.dictionaries(texts, st.recursive(st.none() | st.booleans() | counts | texts
                                                  | st.floats(allow_nan=False, allow_infinity=False),
                                                  lambda inner: st.lists(inner, max_size=3)
                                                  | st.dictionaries(texts, inner, max_size=3), max_leaves=8),
                              max_size=3)),
)
responses = st.builds(Response, st.lists(model_blocks, max_size=3), st.sampled_from(["end_turn", "tool_use"]),
                      st.builds(Usage, counts, counts, counts, counts), texts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(response=responses, task=texts, result=texts, seconds=st.floats(0, 1e9))
def test_whatever_the_course_writes_it_reads_back_equal(response, task, result, seconds, tmp_path):
    run = Run(task, "claude-test", task, [], [Step(1, 12, response, [ToolResult("id", result, True)], seconds)],
              result, "answer", False, [task])
    path = tmp_path / "run.json"
    assert Run.load(run.save(path)) == run

    cassette = tmp_path / "lesson.jsonl"
    recorder = Recorder(Verbatim(response), cassette)  # type: ignore[arg-type]
    asked = [Message("user", task), Message("assistant", list(response.content) or [Text("-")]),
             Message("user", [ToolResult("id", result)])]
    recorder.complete(task, asked)
    recorder.finish()
    assert Player(cassette).complete(task, asked) == response


# --- concurrent writers ------------------------------------------------------------------------------


def test_threads_saving_one_run_at_once_never_collide_and_readers_never_see_half_a_file(tmp_path):
    path = tmp_path / "run.json"
    runs = [_run(Response([Text(f"writer {n} " + "x" * 20_000)], "end_turn")) for n in range(6)]
    runs[0].save(path)
    failures: list[BaseException] = []
    done = threading.Event()

    def save(run: Run) -> None:
        try:
            for _ in range(15):
                run.save(path)
        except BaseException as error:
            failures.append(error)

    def read() -> None:
        while not done.is_set():
            try:
                Run.load(path)
            except BaseException as error:
                failures.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=save, args=(run,)) for run in runs]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    done.set()
    reader.join()
    assert failures == []
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left behind


def test_saving_over_a_run_keeps_its_permissions(tmp_path):
    path = tmp_path / "run.json"
    _run(Response([Text("first")], "end_turn")).save(path)
    os.chmod(path, 0o600)
    _run(Response([Text("second")], "end_turn")).save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert Run.load(path).steps[0].response.text == "second"


# --- escape sequences --------------------------------------------------------------------------------

HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[8mhidden\x1b[0m\x9b31m\u202egnp.exe\rover"


def test_terminal_text_shows_control_characters_as_escapes_and_keeps_lines():
    shown = terminal_text(HOSTILE + "\nnext\tline\r\n")
    assert not any(ch in shown for ch in "\x1b\x07\x9b\u202e") and "\rover" not in shown
    assert shown.startswith("\\x1b]52;c;") and shown.endswith("\nnext\tline\r\n")


def test_the_terminal_demo_prints_no_control_character_a_model_or_tool_wrote(monkeypatch, capsys):
    hostile = ScriptedModel([Response([Text("thinking " + HOSTILE), ToolCall("", "search", {"query": HOSTILE})],
                                      "tool_use"),
                             Response([Text("answer " + HOSTILE)], "end_turn")])
    monkeypatch.setattr(cli, "select_model", lambda *args, **kwargs: hostile)
    assert cli.main(["--question", HOSTILE]) == 0
    out, err = capsys.readouterr()
    assert "answer \\x1b]52;c;" in out and "hidden" in out
    for control in "\x1b\x07\x9b\u202e":
        assert control not in out and control not in err


class Shouting(str):
    """A str whose own methods lie: equal to every stop reason, and escaping nothing."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__

    def replace(self, *args, **kwargs):  # type: ignore[override]
        return self


def test_html_escapes_every_value_however_it_is_typed():
    attack = "<img src=x onerror=alert(1)>"
    response = Response([Text(Shouting(attack)), ToolCall("t", Shouting(attack), {})], "end_turn")
    response.stop_reason = Shouting(attack)  # made whole, then changed: as a stand-in can be
    run = _run(response, results=[ToolResult("t", Shouting(attack))])
    run.model, run.task, run.outcome = Shouting(attack), Shouting(attack), Shouting(attack)  # type: ignore[assignment]
    run.notes = [Shouting(attack)]
    pages = [run_html(run), step_html(run, 1), compare_html({Shouting(attack): run})]
    for page in pages:
        assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


# --- unbounded time or memory ------------------------------------------------------------------------


def test_the_nesting_scan_is_linear_in_the_text_whatever_its_quotes():
    def scan(n: int) -> None:
        with pytest.raises(FormatError):
            parse('{"a": ' + '\\"' * n, "run")

    assert _grows_linearly(scan, 20_000, 40_000)  # was quadratic: 8,000 escaped quotes took 5 s, 80,000 minutes


def test_a_file_over_the_bound_is_refused_unread(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as file:
        file.truncate(MAX_BYTES + 1)  # sparse: nothing to read, and nothing is
    def refused() -> None:
        with pytest.raises(FormatError, match=f"holds more than {MAX_BYTES:,} bytes"):
            read_text(big, "a saved run")

    assert _peak_bytes(refused) < 1_000_000
    assert MAX_BYTES <= 16_000_000


def test_reading_a_file_takes_memory_and_time_linear_in_its_size():
    def document(n: int) -> str:
        run = json.loads(_run().to_json())
        return json.dumps({**run, "notes": [{}] * n})  # the worst: a container every 4 bytes

    def read(text: str) -> None:
        with pytest.raises(FormatError, match=r"field notes\[\d+\]: {} is not of type"):
            parse(text, "run")

    small, large = document(25_000), document(50_000)
    per_byte = _peak_bytes(read, large) / len(large)
    assert per_byte * MAX_BYTES <= 700_000_000  # the largest file the bound lets in fits in well under a GB
    assert _grows_linearly(read, small, large)


def test_a_huge_typed_reply_is_refused_before_it_is_counted(monkeypatch):
    import teachagent.human as human

    def never(block):
        raise AssertionError("a reply that cannot fit was counted token by token")

    monkeypatch.setattr(human, "block_tokens", never)
    model = HumanModel(answers=["x" * 30_000_000], show=lambda page: None)
    with pytest.raises(NotAReply, match=r"^that reply is 30,000,000 characters, more than a reply of max_tokens = 1024"):
        model.complete("", [Message("user", "hi")])


def test_a_typed_reply_nested_100000_deep_is_one_line():
    model = HumanModel(answers=["call f {\"a\": " + "[" * 100_000], show=lambda page: None)
    with pytest.raises(NotAReply, match="nested too deeply"):
        model.complete("", [Message("user", "hi")])


# --- raw tracebacks where one line is promised ------------------------------------------------------


@pytest.mark.parametrize("argv, said", [
    (["--json", "a" * 300 + ".json"], "cannot write to 'aaa"),
    (["--max-steps", "99999999999"], "--max-steps: must be a whole number between 1 and 1,000,000"),
    (["--max-steps", "9" * 5000], "--max-steps: must be a whole number between 1 and 1,000,000"),
])
def test_the_demo_answers_bad_options_with_one_line(argv, said, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # argparse's own exit
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and said in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("teachagent")


def test_json_into_a_folder_that_takes_no_file_is_refused_before_any_model_call(monkeypatch, capsys, tmp_path):
    asked = []
    monkeypatch.setattr(cli, "select_model", lambda *args, **kwargs: asked.append(1))
    folder = tmp_path / "sealed"
    folder.mkdir()
    real_open = os.open

    def refusing(path, flags, *args):  # a read-only mount, which no permission bit shows (not even to root)
        if str(path).startswith(str(folder)) and flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing)
    assert cli.main(["--json", str(folder / "run.json")]) == 2
    assert "is not writable" in capsys.readouterr().err and asked == []


# --- budgets with models that cannot count -----------------------------------------------------------


def test_a_growth_per_call_from_a_nan_is_refused():
    with pytest.raises(ValueError, match="c_2 must be a number"):
        fitted_d([10, math.nan, 30])
    with pytest.raises(ValueError, match="c_1 must be a number"):
        fitted_d([-5, 10], method="least_squares")


def test_a_negative_usage_costs_nothing_back():
    with pytest.raises(ValueError, match="usage.output_tokens must be a whole number of at least 0"):
        PRICES["claude-haiku-5-5"].dollars(Usage(10, -1_000_000))


class Reporting:
    """A model that cannot be asked for a count and reports reading `factor` times what we count."""

    name = "a server that counts its own way"

    def __init__(self, factor: int) -> None:
        self.factor, self.calls = factor, 0

    def complete(self, system, messages, tools=(), max_tokens=1024) -> Response:
        from teachagent.tokens import context_tokens

        self.calls += 1
        read = self.factor * context_tokens(system, messages, tools)
        return Response([ToolCall(f"t{self.calls}", "echo", {"text": "x" * 400})], "tool_use", Usage(read, 50))


def test_a_dollar_budget_holds_for_a_model_that_reports_more_than_we_count():
    from teachagent.agent import Agent
    from teachagent.tools import tool

    @tool
    def echo(text: str) -> str:
        """Say it back."""
        return text

    price = PRICES["claude-sonnet-5-5"]
    for factor in (1, 5, 20):
        agent = Agent(Reporting(factor), [echo], max_steps=50, max_dollars=0.05, price=price)
        run = agent.run("go")
        spent = sum(price.dollars(step.response.usage) for step in run.steps)
        assert run.outcome == "max_dollars" and spent <= 0.05, (factor, spent)  # was 5 times over, at factor 5


# --- raw tracebacks where one line is promised (the loop) --------------------------------------------


class Leaving(BaseException):
    """Not an Exception: what a careless hook or model might raise."""


@pytest.mark.parametrize("raised", [SystemExit(3), Leaving("bye")])
def test_a_base_exception_from_on_step_or_a_model_ends_the_run_as_an_agent_error(raised):
    from teachagent.agent import Agent, AgentError

    def hook(step, run):
        raise raised

    with pytest.raises(AgentError, match=f"on_step after step 1 failed: {type(raised).__name__}") as caught:
        Agent(ScriptedModel(["hello"]), on_step=hook).run("hi")
    assert caught.value.run.outcome == "error" and len(caught.value.run.steps) == 1

    class Exiting:
        name = "exiting"

        def complete(self, *args, **kwargs):
            raise raised

    with pytest.raises(AgentError, match=f"the model call at step 1 failed: {type(raised).__name__}"):
        Agent(Exiting()).run("hi")  # type: ignore[arg-type]


def test_ctrl_c_in_on_step_still_stops_the_run():
    from teachagent.agent import Agent

    def hook(step, run):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Agent(ScriptedModel(["hello"]), on_step=hook).run("hi")


def test_tool_input_nested_990_deep_is_a_bad_reply_and_the_run_can_be_saved(tmp_path):
    from teachagent.agent import Agent, AgentError
    from teachagent.base.replies import BadReply

    deep: dict = {}
    for _ in range(990):
        deep = {"a": deep}
    model = Verbatim(Response([ToolCall("t1", "f", deep)], "tool_use"))
    with pytest.raises(AgentError, match="nested more than 64 levels deep") as caught:
        Agent(model).run("hi")  # type: ignore[arg-type]
    assert isinstance(caught.value.__cause__, BadReply)
    assert Run.load(caught.value.run.save(tmp_path / "run.json")).outcome == "error"


def test_a_stand_in_tool_call_whose_field_raises_is_a_bad_reply():
    from teachagent.base.replies import BadReply, checked_reply

    class Haunted(ToolCall):
        @property  # type: ignore[override]
        def input(self):
            raise LookupError("no input here")

        @input.setter
        def input(self, value):
            pass

    response = Response([ToolCall("t", "f", {})], "tool_use")
    response.content[0].__class__ = Haunted  # made whole, then haunted: as a stand-in object can be
    with pytest.raises(BadReply, match="^the reply could not be read: LookupError: no input here$"):
        checked_reply(response, Response)


# --- tools: time, threads, odd results ---------------------------------------------------------------


class Unmeasurable(str):
    def __len__(self) -> int:
        raise RuntimeError("no length")


def test_a_tool_returning_a_str_subclass_whose_len_raises_is_kept_as_plain_text():
    from teachagent.agent import Agent
    from teachagent.tools import tool

    @tool
    def odd() -> str:
        """Return odd text."""
        return Unmeasurable("fine text")

    script = [ToolCall("", "odd", {}), "done"]
    run = Agent(ScriptedModel(script), [odd]).run("go")
    assert run.outcome == "answer" and type(run.steps[0].results[0].content) is str
    assert run.steps[0].results[0].content == "fine text"


def test_checking_a_huge_input_counts_against_the_tools_time_limit():
    from teachagent.base.schema import input_validator
    from teachagent.dispatch import Dispatcher
    from teachagent.tools import tool

    @tool(timeout=0.05)
    def total(numbers: list[int]) -> str:
        """Add the numbers."""
        return str(sum(numbers))

    numbers = {"numbers": list(range(200_000))}
    started = time.perf_counter()
    assert not list(input_validator(total.input_schema).iter_errors(numbers))
    checking = time.perf_counter() - started
    started = time.perf_counter()
    result = Dispatcher([total])(ToolCall("t", "total", numbers))
    assert time.perf_counter() - started < checking / 2  # the limit cut the check short: it was outside it
    assert result.is_error and "did not finish within 0.05 s" in result.content

    wrong = Dispatcher([total])(ToolCall("t", "total", {"numbers": ["x"] * 1_000_000}))
    lines = wrong.content.splitlines()
    assert wrong.is_error and (len(lines) == 12 or "did not finish" in wrong.content)


def test_hung_tools_hold_at_most_a_bounded_number_of_threads():
    from teachagent.base import timelimit
    from teachagent.dispatch import Dispatcher
    from teachagent.tools import tool

    release = threading.Event()

    @tool(timeout=0.001)
    def hang() -> str:
        """Wait until released."""
        release.wait(30)
        return "released"

    before = threading.active_count()
    dispatcher = Dispatcher([hang])
    try:
        results = [dispatcher(ToolCall(f"t{n}", "hang", {})) for n in range(300)]
        assert threading.active_count() - before <= timelimit.MAX_RUNNING
        assert all(r.is_error for r in results)
        assert any("earlier calls are still running past their time limit" in r.content for r in results)
    finally:
        release.set()
    deadline = time.monotonic() + 10
    while timelimit._running[0] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert "awake" != dispatcher(ToolCall("t", "hang", {})).content  # the pool is usable again once they end


# --- another program's SQLite file -------------------------------------------------------------------


@pytest.mark.parametrize("made_by", [
    "CREATE VIEW answers AS SELECT 42 AS answer",
    "PRAGMA user_version = 7",
])
def test_a_sqlite_file_of_another_program_without_tables_is_refused_byte_for_byte(made_by, tmp_path):
    import sqlite3

    from teachagent.memory import MemoryStore, MemoryStoreError

    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute(made_by)
    before = path.read_bytes()
    with pytest.raises(MemoryStoreError, match="is a SQLite database of something else"):
        MemoryStore(path).save("a note")
    assert path.read_bytes() == before


def test_a_trigger_planted_in_a_memory_file_never_runs(tmp_path):
    import sqlite3

    from teachagent.memory import MemoryStore, MemoryStoreError

    path = tmp_path / "notes.db"
    store = MemoryStore(path)
    store.save("first")
    with sqlite3.connect(path) as db:  # planted after the file was claimed
        db.execute("CREATE TABLE stolen (text TEXT)")
        db.execute("DROP TABLE stolen")
        db.execute("CREATE TRIGGER copy AFTER INSERT ON notes BEGIN DELETE FROM notes; END")
    before = path.read_bytes()
    with pytest.raises(MemoryStoreError, match="trigger"):
        store.save("second")
    assert path.read_bytes() == before
    with pytest.raises(MemoryStoreError, match="something else"):
        MemoryStore(path)
    assert path.read_bytes() == before


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("depth", [990, 100_000])
def test_api_tool_input_nested_deep_through_the_real_sdk_is_one_line(depth, monkeypatch):
    from fake_anthropic import FakeAnthropic, message_body, tool_use_block

    from teachagent.agent import Agent, AgentError
    from teachagent.claude import Claude, UnexpectedReply

    deep = '{"a": ' * depth + "{}" + "}" * depth  # written as text: json.dumps would recurse too deep here
    body = json.dumps(message_body([tool_use_block("toolu_1", "f", "DEEP")], "tool_use")).replace('"DEEP"', deep)
    with FakeAnthropic() as fake:
        fake.queue(body.encode())
        claude = Claude(model="claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=5.0)
        with pytest.raises(AgentError) as caught:
            Agent(claude).run("hi")
    assert isinstance(caught.value.__cause__, UnexpectedReply)  # the SDK reading it recursed; a clear reply error
    assert str(caught.value) == ("the model call at step 1 failed: UnexpectedReply: "
                                 "the server answered with JSON nested too deeply to read")


@pytest.mark.parametrize("typed, problem", [
    ('call f {"x": NaN}', "holds nan"),
    ("call f " + '{"a": ' * 200 + "1" + "}" * 200, "nested more than 64 levels deep"),
])
def test_typed_input_the_loop_would_refuse_is_sent_back_to_the_person(typed, problem):
    asked: list[str | None] = []
    replies = iter([typed, "fine then"])

    def ask(page: str, why: str | None) -> str:
        asked.append(why)
        return next(replies)

    response = HumanModel(ask=ask).complete("", [Message("user", "hi")])
    assert response.text == "fine then" and problem in (asked[1] or "")


def test_a_stand_in_whose_error_cannot_be_shown_is_still_a_one_line_bad_reply():
    from teachagent.base.replies import BadReply, checked_reply

    class Unshowable(Exception):
        def __str__(self):
            raise RuntimeError("no text")

    class Haunted(ToolCall):
        @property  # type: ignore[override]
        def input(self):
            raise Unshowable()

        @input.setter
        def input(self, value):
            pass

    response = Response([ToolCall("t", "f", {})], "tool_use")
    response.content[0].__class__ = Haunted
    with pytest.raises(BadReply, match=r"^the reply could not be read: Unshowable \(whose message could not be shown\)$"):
        checked_reply(response, Response)

"""Record and replay: answers found by request content, one-line errors, recordings that never destroy."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
from pathlib import Path

import nbformat
import pytest
from fake_anthropic import FakeAnthropic, message_body, policy_server, text_block, tool_use_block

from teachagent.agent import Agent, AgentError
from teachagent.claude import Claude
from teachagent.course import replay
from teachagent.course.notebook_runner import NotebookError, run_notebook
from teachagent.course.reference import describe
from teachagent.course.replay import FORMAT, CassetteError, Player, Recorder, first_difference, read_cassette
from teachagent.messages import Message, Response, Text, ToolResult
from teachagent.models import own_count
from teachagent.requests import request_body
from teachagent.scripted import ScriptedModel, call, latest_results
from teachagent.tools import tool

FAKE_KEY = "sk-ant-api03-" + "x" * 40
FIX = "undo the change, or ask the instructor for a new recording"


@tool
def double(n: int) -> str:
    """Double a number."""
    return str(2 * n)


def doubler(messages):
    """A policy: double the number in the task with the tool, then say the result."""
    results = latest_results(messages)
    if not results:
        return call("double", n=int(re.search(r"\d+", messages[0].text).group()))
    return f"It is {results[0].content}."


def record(path, *tasks, system="Use tools.", model=None):
    """Record one run per task (a scripted model stands in for Claude) and keep the cassette."""
    recorder = Recorder(model or ScriptedModel(doubler), path)
    runs = [Agent(recorder, [double], system=system).run(task) for task in tasks or ["Double 21."]]
    recorder.finish()
    return runs


def replayed(model, task="Double 21.", system="Use tools.", tools=(double,)):
    return Agent(model, list(tools), system=system).run(task)


def steps(run):
    return [s.to_dict() | {"seconds": 0} for s in run.steps]


# --- replay by content ----------------------------------------------------------------------


def test_a_replayed_run_is_the_recorded_run(tmp_path):
    cassette = tmp_path / "c.jsonl"
    (recorded,) = record(cassette)
    again = replayed(Player(cassette))
    assert steps(again) == steps(recorded)
    assert again.answer == "It is 42." and again.model == "scripted, replayed"


def test_the_same_run_again_and_runs_out_of_order_replay(tmp_path):
    """What re-running a cell or running cells out of order asks of one player."""
    cassette = tmp_path / "c.jsonl"
    first, second = record(cassette, "Double 21.", "Double 5.")
    player = Player(cassette)
    assert replayed(player, "Double 5.").answer == "It is 10."  # the second cell first
    assert steps(replayed(player, "Double 21.")) == steps(first)
    assert steps(replayed(player, "Double 21.")) == steps(first)  # and again
    assert steps(replayed(player, "Double 5.")) == steps(second)
    assert repr(player) == f"Player({str(cassette)!r}, 4 calls recorded, 8 played)"


def test_a_request_recorded_twice_gets_its_answers_in_turn_then_the_last_again(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel(["first", "second"]), cassette)
    hello = [Message("user", "hello")]
    recorder.complete("", hello)
    recorder.complete("", hello)
    recorder.finish()
    player = Player(cassette)
    assert [player.complete("", hello).text for _ in range(3)] == ["first", "second", "second"]


def test_a_changed_prompt_is_one_line_naming_the_nearest_call_what_differs_and_the_fix(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    with pytest.raises(AgentError) as caught:
        replayed(Player(cassette), "Double 22.")
    message = str(caught.value)
    assert isinstance(caught.value.__cause__, CassetteError) and caught.value.run.steps == []
    assert "\n" not in message
    assert "never recorded" in message and "nearest recorded request: call 1 (1 message)" in message
    assert 'request.messages[0].content[0].text was "Double 21." when recorded, now "Double 22."' in message
    assert message.endswith(FIX)


def test_the_nearest_request_shares_the_most_leading_messages(tmp_path):
    """A changed tool result late in a run points at the call it came from, not at the run's first."""
    cassette = tmp_path / "c.jsonl"
    (run,) = record(cassette)
    messages = [Message("user", "Double 21."), run.steps[0].response.to_message(),
                Message("user", [ToolResult("toolu_001", "43")])]
    with pytest.raises(CassetteError) as caught:
        Player(cassette).complete("Use tools.", messages, [double.spec], 1024)
    assert "nearest recorded request: call 2 (3 messages)" in str(caught.value)
    assert 'request.messages[2].content[0].content was "42" when recorded, now "43"' in str(caught.value)


def test_among_equals_the_nearest_has_the_same_system_prompt(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel(doubler), cassette)
    for system in ("Be brief.", "Use tools."):
        Agent(recorder, [double], system=system).run("Double 21.")
    recorder.finish()
    with pytest.raises(AgentError, match=r"nearest recorded request: call 3 \(1 message\)"):
        replayed(Player(cassette), "Double 22.", system="Use tools.")


def test_a_changed_system_prompt_or_toolset_is_caught(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    with pytest.raises(AgentError, match='request.system was "Use tools." when recorded, now "Be brief."'):
        replayed(Player(cassette), system="Be brief.")
    with pytest.raises(AgentError, match="request.tools is missing"):
        replayed(Player(cassette), tools=())


def test_a_hit_never_diffs_and_lesson_sized_requests_replay_fast(tmp_path, monkeypatch):
    """~15 calls of ~100 KB each, as in lesson 5: found through the index, never by comparing requests."""
    cassette = tmp_path / "c.jsonl"
    article = "KL divergence is not symmetric. " * 3000  # about 100 KB
    conversations = [[Message("user", f"{article} Question {i}?")] for i in range(15)]
    lines = [json.dumps({"format": FORMAT})]
    for i, messages in enumerate(conversations):
        answer = Response([Text(f"Answer {i}.")], "end_turn").to_dict()
        request = request_body("m", "Read.", messages, [], 100)
        lines.append(json.dumps({"kind": "complete", "request": request, "response": answer}))
    cassette.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def never(*args, **kwargs):
        raise AssertionError("a recorded request was compared instead of looked up")

    monkeypatch.setattr(replay, "first_difference", never)
    monkeypatch.setattr(replay, "nearest", never)
    started = time.perf_counter()
    player = Player(cassette)
    answers = [player.complete("Read.", messages, [], 100).text for messages in reversed(conversations)]
    assert answers == [f"Answer {i}." for i in reversed(range(15))]
    assert time.perf_counter() - started < 2.0  # about 0.05 s here; quadratic diffing took far longer


# --- cassette files ------------------------------------------------------------------------


def test_a_format_1_cassette_still_replays(tmp_path):
    """/1 requests always had "system" and "tools"; today's requests leave them out when empty."""
    cassette = tmp_path / "old.jsonl"
    hello, answer = [Message("user", "hello")], Response([Text("Hi!")], "end_turn").to_dict()
    old = [{"model": "claude-test", "system": "", "messages": [m.to_dict() for m in hello], "tools": [], "max_tokens": 50},
           {"model": "claude-test", "system": "Use tools.", "messages": [m.to_dict() for m in hello],
            "tools": [double.spec], "max_tokens": 50}]
    cassette.write_text('{"format": "teachagent.cassette/1"}\n'
                        + "".join(json.dumps({"request": r, "response": answer}) + "\n" for r in old), encoding="utf-8")
    player = Player(cassette)
    assert player.complete("", hello, [], 50).text == "Hi!"
    assert player.complete("Use tools.", hello, [double.spec], 50).text == "Hi!"
    assert [r["kind"] for r in read_cassette(cassette)] == ["complete", "complete"]
    assert "system" not in read_cassette(cassette)[0]["request"]


def test_a_cassette_names_which_model_answered_and_how_and_replay_says_so(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel(["Hi!"]), cassette, source="SmolLM2-135M-Instruct (local mode, seed 0)")
    recorder.complete("", [Message("user", "hello")])
    recorder.finish()
    header = json.loads(cassette.read_text(encoding="utf-8").splitlines()[0])
    assert header["recorded_from"] == "SmolLM2-135M-Instruct (local mode, seed 0)"
    player = Player(cassette)
    assert player.source == "SmolLM2-135M-Instruct (local mode, seed 0)"
    assert player.name == "SmolLM2-135M-Instruct (local mode, seed 0), replayed"


def test_a_cassette_from_before_headers_named_the_model_says_the_model_of_its_first_request(tmp_path):
    cassette = tmp_path / "c.jsonl"
    request = request_body("claude-test", "", [Message("user", "hello")], [], 50)
    answer = Response([Text("Hi!")], "end_turn").to_dict()
    cassette.write_text('{"format": "teachagent.cassette/2"}\n'
                        + json.dumps({"kind": "complete", "request": request, "response": answer}) + "\n", encoding="utf-8")
    player = Player(cassette)
    assert player.source == "claude-test" and player.complete("", [Message("user", "hello")], [], 50).text == "Hi!"


def test_a_source_with_line_breaks_or_of_any_length_is_one_short_line(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel(["Hi!"]), cassette, source="a\nmodel " + "x" * 5000)
    recorder.complete("", [Message("user", "hello")])
    recorder.finish()
    source = Player(cassette).source
    assert "\n" not in source and source.startswith("a model x") and len(source) <= replay.SOURCE_WIDTH


def test_a_cassette_from_a_newer_teachagent_is_refused(tmp_path):
    cassette = tmp_path / "new.jsonl"
    cassette.write_text('{"format": "teachagent.cassette/3"}\n', encoding="utf-8")
    with pytest.raises(CassetteError, match=r"recorded by a newer teachagent \(format 'teachagent.cassette/3'\); "
                                            "upgrade teachagent or record again"):
        Player(cassette)


def test_a_recording_starts_with_the_current_format(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    header = json.loads(cassette.read_text().splitlines()[0])
    assert header == {"format": "teachagent.cassette/2", "recorded_from": "scripted"}


@pytest.mark.parametrize(
    "damage, complaint",
    [
        (lambda text: text[: len(text) - 25], "damaged at line 3"),  # cut short while recording
        (lambda text: text.replace('"stop_reason": "end_turn"', '"stop_reason": "bored"'), "damaged at line 3"),
        (lambda text: text.replace('"kind": "complete"', '"kind": "chat"'), "damaged at line 2, field kind: 'chat' is not one"),
        (lambda text: "hello\n" + text, "not a cassette"),
        (lambda text: "", "not a cassette"),
    ],
)
def test_a_damaged_cassette_is_a_clear_error(tmp_path, damage, complaint):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    cassette.write_text(damage(cassette.read_text()))
    with pytest.raises(CassetteError, match=complaint) as caught:
        Player(cassette)
    assert "\n" not in str(caught.value) and ("ask the instructor" in str(caught.value) or "not a cassette" in str(caught.value))


def test_a_missing_binary_or_folder_cassette_is_a_clear_error(tmp_path):
    with pytest.raises(CassetteError, match="there is no cassette at .*; ask the instructor for it"):
        read_cassette(tmp_path / "none.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CassetteError, match="not UTF-8"):
        read_cassette(tmp_path / "bin.jsonl")
    with pytest.raises(CassetteError, match="is a folder, not a cassette"):
        read_cassette(tmp_path)


def recorded_line(tmp_path, edit):
    """A recorded cassette whose record on line 2 is replaced by `edit(record)`, written as raw text."""
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    lines = cassette.read_text(encoding="utf-8").splitlines()
    lines[1] = edit(json.loads(lines[1]))
    cassette.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cassette


def with_value(path, value):
    """An edit: set the field at `path` (keys and indexes) to the raw JSON text `value`."""
    marker = "\u2603SNOWMAN\u2603"

    def edit(record):
        place = record
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = marker
        return json.dumps(record).replace(json.dumps(marker), value)
    return edit


@pytest.mark.parametrize("path, value, complaint", [
    (["request"], "null", r"field request: None is not of type 'object'"),
    (["request", "model"], "7", r"field request.model: 7 is not of type 'string'"),
    (["request", "max_tokens"], "true", r"field request.max_tokens: True is not of type 'integer'"),
    (["request", "max_tokens"], "1e999", r"field request.max_tokens: 1e999 is not a number a course file can hold"),
    (["request", "max_tokens"], "NaN", r"field request.max_tokens: NaN is not a number"),
    (["request", "max_tokens"], "9" * 400, r"field request.max_tokens: 9999.* is not a number"),
    (["request", "max_tokens"], "10" + "0" * 20, r"field request.max_tokens: 1000.* is greater than the maximum"),
    (["request", "messages", 0, "role"], '"system"', r"field request.messages\[0\].role: 'system' is not one of"),
    (["response", "usage", "input_tokens"], '"5"', r"field response.usage.input_tokens: '5' is not of type 'integer'"),
    (["response", "content", 0, "type"], '"tool_result"', r"field response.content\[0\].type: 'tool_result' should not"),
    (["response", "content"], "[" * 500, r"nested more than 100 levels deep"),
])
def test_every_damaged_field_names_the_line_and_field_and_the_cassette_is_left_as_it_was(tmp_path, path, value,
                                                                                        complaint):
    cassette = recorded_line(tmp_path, with_value(path, value))
    before = cassette.read_bytes()
    with pytest.raises(CassetteError, match=rf"damaged at line 2(, |: ){complaint}") as caught:
        Player(cassette)
    assert "\n" not in str(caught.value) and caught.value._render_traceback_()[0].startswith("CassetteError: the cas")
    assert cassette.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["c.jsonl"]


def test_a_format_1_record_is_checked_by_the_same_schema(tmp_path):
    cassette = tmp_path / "old.jsonl"
    cassette.write_text('{"format": "teachagent.cassette/1"}\n{"request": {"model": "m", "messages": []}, '
                        '"response": {"content": [{"type": "text", "text": null}], "stop_reason": "end_turn", '
                        '"usage": {}}}\n', encoding="utf-8")
    with pytest.raises(CassetteError, match=r"damaged at line 2, field response.content\[0\].text: None is not"):
        read_cassette(cassette)


@pytest.mark.parametrize("content, complaint", [
    (b"", "is not a cassette: it is empty"),
    (b"\n\n", "is not a cassette: it is empty"),
    (b'{"format": "teachagent.cassette/2"}\n\xff', r"is not a cassette: it is not UTF-8 text \(line 2\)"),
    (b"[" * 100_000, "is not a cassette: its first line should be"),
    (b'{"format": "teachagent.cassette/2"}\n' + b"[" * 100_000, "damaged at line 2: nested more than 100"),
])
def test_an_empty_binary_or_deep_cassette_is_refused_and_left_as_it_was(tmp_path, content, complaint):
    cassette = tmp_path / "c.jsonl"
    cassette.write_bytes(content)
    with pytest.raises(CassetteError, match=complaint):
        Player(cassette)
    assert cassette.read_bytes() == content


def test_a_fifo_is_neither_replayed_nor_recorded_over_and_nothing_waits_for_it(tmp_path):
    os.mkfifo(tmp_path / "pipe.jsonl")
    with pytest.raises(CassetteError, match="is not a regular file"):
        Player(tmp_path / "pipe.jsonl")
    with pytest.raises(CassetteError, match="is not a regular file, so it was left alone"):
        Recorder(ScriptedModel(["hi"]), tmp_path / "pipe.jsonl")


def test_a_draft_named_by_the_environment_must_be_a_new_empty_draft(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    for draft in (notes, tmp_path / "c.jsonl.1-1.draft", tmp_path):
        if draft.suffix == ".draft":
            draft.write_text("an earlier recording")
        with pytest.raises(CassetteError, match="is not a new, empty .draft file, so it was left alone"):
            Recorder(ScriptedModel(["hi"]), tmp_path / "c.jsonl", draft)
    assert notes.read_text() == "mine" and (tmp_path / "c.jsonl.1-1.draft").read_text() == "an earlier recording"
    with pytest.raises(CassetteError, match="cannot record to .*notes.txt/c.jsonl': File exists"):
        Recorder(ScriptedModel(["hi"]), notes / "c.jsonl")


def test_a_lone_surrogate_is_recorded_as_an_escape_and_replayed_the_same(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel(["half a pair: \ud83d"]), cassette)
    recorder.complete("", [Message("user", "hi \udc00")])
    recorder.finish()
    assert Player(cassette).complete("", [Message("user", "hi \udc00")]).text == "half a pair: \ud83d"


def test_first_difference_names_the_place():
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "request.a[1].b was 2 when recorded, now 3"
    assert first_difference({"a": 1}, {"a": 1, "c": 2}) == "request.c is new"
    assert first_difference([1, 2], [1, 2]) is None


# --- recording never destroys --------------------------------------------------------------


def test_a_failed_recording_leaves_the_old_cassette_byte_identical(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    before = cassette.read_bytes()
    recorder = Recorder(ScriptedModel([call("double", n=1), lambda messages: 1 / 0]), cassette)
    with pytest.raises(AgentError):
        Agent(recorder, [double], system="Use tools.").run("Double 1.")
    assert cassette.read_bytes() == before  # nothing is written to the cassette while recording
    with pytest.raises(CassetteError, match="1 of 2 calls failed, so .* was left as it was and the partial recording deleted"):
        recorder.finish()
    assert cassette.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]  # no draft left behind


def test_a_recording_with_no_call_keeps_the_old_cassette(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    before = cassette.read_bytes()
    with pytest.raises(CassetteError, match="no call was made"):
        Recorder(ScriptedModel(["unused"]), cassette).finish()
    assert cassette.read_bytes() == before


def test_a_whole_recording_replaces_the_cassette(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette, "Double 21.")
    record(cassette, "Double 5.")
    assert {r["request"]["messages"][0]["content"][0]["text"] for r in read_cassette(cassette)} == {"Double 5."}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]


@pytest.mark.parametrize("what", ["notebook", "other file", "folder"])
def test_recording_over_anything_but_a_cassette_is_refused_before_any_call(tmp_path, what):
    path = {"notebook": tmp_path / "lesson.ipynb", "other file": tmp_path / "notes.txt", "folder": tmp_path / "cassettes"}[what]
    if what == "folder":
        path.mkdir()
    else:
        path.write_text('{\n "cells": []\n}\n' if what == "notebook" else "my notes\n", encoding="utf-8")
    before = sorted(tmp_path.rglob("*"))
    contents = None if what == "folder" else path.read_bytes()
    model = ScriptedModel(["unused"])
    refusal = {"folder": "is a folder, not a cassette", "notebook": "is a notebook, so it was left alone"}.get(
        what, "is a file that is not a cassette, so it was left alone")
    with pytest.raises(CassetteError, match=refusal):
        Recorder(model, path)
    assert model.played == 0 and sorted(tmp_path.rglob("*")) == before
    assert contents is None or path.read_bytes() == contents


def test_two_recorders_for_one_cassette_never_mix_their_lines(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorders = [Recorder(ScriptedModel(doubler), cassette) for _ in range(2)]
    threads = [threading.Thread(target=lambda r=r, n=n: [Agent(r, [double]).run(f"Double {n * 100 + i}.") for i in range(20)])
               for n, r in enumerate(recorders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert recorders[0].draft != recorders[1].draft
    for n, recorder in enumerate(recorders):
        recorder.finish()  # the last to finish gives the cassette: one recorder's calls, whole
        tasks = [r["request"]["messages"][0]["content"][0]["text"] for r in read_cassette(cassette)]
        assert sorted(set(tasks)) == sorted(f"Double {n * 100 + i}." for i in range(20)) and len(tasks) == 40
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]


@pytest.mark.server  # starts a local fake API server
def test_recording_claude_keeps_no_key_and_no_headers(tmp_path):
    cassette = tmp_path / "c.jsonl"
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([tool_use_block("toolu_1", "double", {"n": 21})], "tool_use"), {}),
                   (200, message_body([text_block("It is 42.")]), {}))
        claude = Claude("claude-test", api_key=FAKE_KEY, base_url=fake.base_url, max_retries=0, timeout=5)
        (run,) = record(cassette, model=claude)
    text = cassette.read_text()
    assert run.answer == "It is 42." and len(read_cassette(cassette)) == 2
    assert FAKE_KEY not in text and "authorization" not in text.lower() and "x-api-key" not in text.lower()


# --- token counts --------------------------------------------------------------------------


class CountingModel(ScriptedModel):
    """A scripted model that can also count tokens, as the Claude adapter can."""

    def count_tokens(self, system, messages, tools=()):
        return 1000 + len(messages)


def test_token_counts_are_recorded_and_replayed_by_content(tmp_path):
    cassette = tmp_path / "c.jsonl"
    hello = [Message("user", "hello")]
    recorder = Recorder(CountingModel(["Hi!"]), cassette)
    assert recorder.count_tokens("Be brief.", hello, []) == 1001
    recorder.complete("", hello, [], 50)
    recorder.finish()
    assert [r["kind"] for r in read_cassette(cassette)] == ["count_tokens", "complete"]

    player = Player(cassette)
    assert player.count_tokens("Be brief.", hello, []) == 1001  # the recorded count
    recorded_usage = read_cassette(cassette)[1]["response"]["usage"]
    assert player.count_tokens("", hello, []) == recorded_usage["input_tokens"]  # from the call with that context
    with pytest.raises(CassetteError, match="no token count for this request is recorded") as caught:
        player.count_tokens("Be long.", hello, [])
    assert "\n" not in str(caught.value) and str(caught.value).endswith(FIX)


def test_a_model_that_cannot_count_gives_a_recorder_and_player_that_cannot(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel(["Hi!"]), cassette)
    assert own_count(recorder, "", [Message("user", "hello")], []) is None
    recorder.complete("", [Message("user", "hello")])
    recorder.finish()
    assert own_count(Player(cassette), "", [Message("user", "hello")], []) is None
    assert [json.loads(line).get("kind") for line in cassette.read_text().splitlines()[1:]] == ["complete"]


# --- real_model_run: a real model's recorded run, in every mode -----------------------------

SMALL = "SmolLM2-135M-Instruct (local mode, seed 0)"


def doubled(model):
    return Agent(model, [double], system="Use tools.").run("Double 21.")


@pytest.fixture
def nothing_open(monkeypatch):
    """No recorder or player of select_model's is open in this process (as in an offline kernel)."""
    monkeypatch.setattr(replay, "_open", {})
    return replay._open


def shipped(folder, source=SMALL):
    """A lesson's recording at notebooks/cassettes/03_lesson.jsonl (a scripted model stands in for the small one)."""
    cassette = folder / "cassettes" / "03_lesson.jsonl"
    recorder = Recorder(ScriptedModel(doubler), cassette, source=source)
    doubled(recorder)
    recorder.finish()
    return cassette


def test_real_model_run_plays_the_recording_and_says_whose_it_is(tmp_path, nothing_open, capsys):
    cassette = shipped(tmp_path)
    run = replay.real_model_run(doubled, cassette)
    assert run.answer == "It is 42." and run.model == f"{SMALL}, replayed"
    (line,) = capsys.readouterr().out.splitlines()
    assert line == f"a real model's run, {SMALL}, played from {cassette}: {describe(run)}"


def test_real_model_run_of_a_missing_recording_is_one_line_with_the_command(tmp_path, nothing_open, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert replay.real_model_run(doubled, "cassettes/03_lesson.jsonl") is None
    assert capsys.readouterr().out == (
        "no recording of a real model at cassettes/03_lesson.jsonl yet; record it with: "
        "TEACHAGENT_LOCAL_SEED=0 python -m teachagent notebook record 03_lesson.ipynb --mode local\n")


def test_real_model_run_of_a_recording_without_this_task_is_one_line_with_the_command(tmp_path, nothing_open, capsys,
                                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path.parent)
    cassette = shipped(tmp_path)
    other = replay.real_model_run(lambda m: Agent(m, [double], system="Use tools.").run("Double 5."), cassette)
    assert other is None
    assert capsys.readouterr().out == (
        f"the recording at {cassette} does not hold this task (its prompts changed since it was recorded); record it "
        f"again with: TEACHAGENT_LOCAL_SEED=0 python -m teachagent notebook record {tmp_path.name}/03_lesson.ipynb "
        "--mode local\n")
    cassette.write_text("not a cassette", encoding="utf-8")
    assert replay.real_model_run(doubled, cassette) is None
    said = capsys.readouterr().out
    assert said.startswith(f"the recording at {cassette} cannot be played (") and said.count("\n") == 1


def test_in_record_mode_real_model_run_runs_on_the_recorder_so_the_new_recording_holds_it(tmp_path, nothing_open,
                                                                                          capsys):
    stale = shipped(tmp_path, source="an old model")  # what the lesson shipped: stale, or it could be missing
    new = tmp_path / "new.jsonl"
    recorder = replay.cassette_model("record", new, ScriptedModel(doubler), SMALL)
    run = replay.real_model_run(doubled, stale)
    said = capsys.readouterr().out  # the model that plays "your model" in record mode: said, not passed off as another
    assert run.model == "scripted" and said.startswith(f"a real model's run, {SMALL}, recorded now into {new}")
    assert "the same recording as your model's runs in this notebook" in said
    recorder.finish()
    nothing_open.clear()
    again = replay.real_model_run(doubled, new)
    assert steps(again) == steps(run) and capsys.readouterr().out.startswith(f"a real model's run, {SMALL}, played from")


def test_in_replay_mode_real_model_run_plays_the_cassette_being_replayed(tmp_path, nothing_open, capsys):
    replayed_now = shipped(tmp_path / "scratch")
    replay.cassette_model("replay", replayed_now)
    run = replay.real_model_run(doubled, tmp_path / "cassettes" / "03_lesson.jsonl")  # not there: the replayed one plays
    said = capsys.readouterr().out
    assert run.answer == "It is 42." and f"played from {replayed_now.resolve()}, the same recording as your model's" in said


def test_every_mode_plays_the_run_recorded_at_the_mark_not_an_earlier_run_of_the_same_task(tmp_path, nothing_open,
                                                                                            capsys):
    answers = iter(["It is 42, the first time.", "It is 42, the second time."])

    def moody(messages):  # a sampled model: the same request, another reply each run
        return doubler(messages) if not latest_results(messages) else next(answers)

    new = tmp_path / "cassettes" / "03_lesson.jsonl"
    recorder = replay.cassette_model("record", new, ScriptedModel(moody), SMALL)
    assert doubled(recorder).answer == "It is 42, the first time."  # a cell above runs the same task first
    recorded = replay.real_model_run(doubled, new)
    recorder.finish()
    assert recorded.answer == "It is 42, the second time."
    assert [r["kind"] for r in read_cassette(new)] == ["complete", "complete", "mark", "complete", "complete"]
    nothing_open.clear()
    offline = replay.real_model_run(doubled, new)  # a fresh player starts at the mark
    replay.cassette_model("replay", new)
    doubled(replay._in_use())  # replay: the cell above plays its run first
    replayed = replay.real_model_run(doubled, new)
    assert offline.answer == replayed.answer == "It is 42, the second time."
    assert steps(offline) == steps(replayed)


def test_a_player_without_the_mark_it_is_asked_to_start_at_starts_at_the_beginning(tmp_path):
    cassette = shipped(tmp_path)
    assert Player(cassette, start=replay.REAL_RUN)._asked == {}
    assert doubled(Player(cassette, start=replay.REAL_RUN)).answer == "It is 42."


def test_a_mark_is_checked_like_any_record(tmp_path):
    cassette = shipped(tmp_path)
    with cassette.open("a", encoding="utf-8") as f:
        f.write('{"kind": "mark"}\n')
    with pytest.raises(CassetteError, match="damaged"):
        read_cassette(cassette)


def test_real_model_run_lets_a_failing_live_model_fail_the_recording(tmp_path, nothing_open):
    def broken(system, messages, tools=(), max_tokens=1024):
        raise ConnectionError("the server went away")

    recorder = replay.cassette_model("record", tmp_path / "new.jsonl", ScriptedModel(doubler), SMALL)
    recorder.model.complete = broken
    with pytest.raises(AgentError, match="the server went away"):
        replay.real_model_run(doubled, tmp_path / "cassettes" / "03_lesson.jsonl")
    assert recorder.failed == 1
    with pytest.raises(CassetteError, match="1 of 1 calls failed"):
        recorder.finish()


# --- notebooks ------------------------------------------------------------------------------

DOUBLE_CELL = ("from teachagent import Agent, select_model, tool\n\n@tool\ndef double(n: int) -> str:\n"
               "    '''Double a number.'''\n    return str(2 * n)\n\nmodel = select_model(script=['unused offline'])")


def ask(task):
    return f"print(Agent(model, [double], system='Use tools.').run({task!r}).answer)"


def make_notebook(path, *cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def printed(nb):
    return [[o.get("text") for o in cell.outputs if o.get("name") == "stdout"] for cell in nb.cells]


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """A notebook recorded once, through the SDK against the fake API: its folder and its outputs."""
    folder = tmp_path_factory.mktemp("recorded")
    make_notebook(folder / "lesson.ipynb", DOUBLE_CELL, ask("Double 21."), ask("Double 5."))
    with pytest.MonkeyPatch.context() as env, FakeAnthropic(policy_server([doubler])) as fake:
        env.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        env.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        nb = run_notebook(folder / "lesson.ipynb", "record", progress=lambda line: None)
    return folder, nb


@pytest.fixture
def recorded_lesson(recording, tmp_path, monkeypatch):
    """A copy of the recorded notebook and its cassette; no key, and nothing listening for API calls."""
    folder, nb = recording
    shutil.copytree(folder, tmp_path, dirs_exist_ok=True)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # replay must not call out
    return tmp_path / "lesson.ipynb", tmp_path / "cassettes" / "lesson.jsonl", nb


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
def test_a_recorded_notebook_replays_to_identical_outputs_offline(recorded_lesson):
    notebook, cassette, recorded = recorded_lesson
    assert printed(recorded)[1:] == [["It is 42.\n"], ["It is 10.\n"]] and len(read_cassette(cassette)) == 4
    again = run_notebook(notebook, "replay", progress=lambda line: None)
    assert printed(again)[1:] == printed(recorded)[1:]  # all but the banner, which names the mode
    assert "replay mode" in again.cells[0].outputs[0]["text"]

    make_notebook(notebook, DOUBLE_CELL, ask("Double 22."))
    with pytest.raises(NotebookError, match=r"stopped at code cell 2 of 2: AgentError: .*nearest recorded request: call 1"):
        run_notebook(notebook, "replay", progress=lambda line: None)


class Kernel:
    """A real Jupyter kernel driven cell by cell, as a learner drives one."""

    def __init__(self) -> None:
        from jupyter_client import KernelManager

        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel()
        self._connect()

    def _connect(self) -> None:
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def run(self, code: str) -> tuple[str, list[str]]:
        """The cell's printed text and, if it failed, its error as the notebook would show it."""
        out, error = [], []

        def collect(message):
            if message["msg_type"] == "stream":
                out.append(message["content"]["text"])
            elif message["msg_type"] == "error":
                error.extend(message["content"]["traceback"])

        self.client.execute_interactive(code, timeout=60, output_hook=collect)
        return "".join(out), error

    def restart(self) -> None:
        self.client.stop_channels()
        self.manager.restart_kernel(now=False)
        self._connect()

    def shutdown(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
def test_rerunning_restarting_and_running_out_of_order_all_replay_in_a_real_kernel(recorded_lesson, monkeypatch):
    _, cassette, _ = recorded_lesson
    monkeypatch.setenv("TEACHAGENT_MODE", "replay")
    monkeypatch.setenv("TEACHAGENT_CASSETTE", str(cassette))
    learner = Kernel()
    try:
        assert "replay mode" in learner.run(DOUBLE_CELL)[0]
        assert learner.run(ask("Double 21.")) == ("It is 42.\n", [])
        assert learner.run(ask("Double 21.")) == ("It is 42.\n", [])  # the same cell again
        learner.restart()
        assert "replay mode" in learner.run(DOUBLE_CELL)[0]
        assert learner.run(ask("Double 5.")) == ("It is 10.\n", [])  # the last cell first
        assert learner.run(ask("Double 21.")) == ("It is 42.\n", [])
    finally:
        learner.shutdown()


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
def test_in_jupyter_a_changed_prompt_is_a_short_error_and_a_bug_a_full_traceback(recorded_lesson):
    """Executed and saved as a notebook, as nbclient (and so nbval and Jupyter) keeps it."""
    from nbclient import NotebookClient

    notebook, cassette, _ = recorded_lesson
    bug = "Agent(select_model(script=[lambda messages: 1 / 0], mode='offline', quiet=True), [double]).run('Hi.')"
    never = "from teachagent import Message\nmodel.complete('', [Message('user', 'never recorded')])"
    make_notebook(notebook, DOUBLE_CELL, ask("Double 22."), bug, never)
    nb = nbformat.read(notebook, as_version=4)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TEACHAGENT_MODE", "replay")
        env.setenv("TEACHAGENT_CASSETTE", str(cassette))
        NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True).execute()
    errors = [[o for o in cell.outputs if o.output_type == "error"] for cell in nb.cells[1:]]
    assert all(errors), f"a cell shows no error, only: {[cell.outputs for cell in nb.cells[1:]]}"
    changed, crashed, unknown = (found[0] for found in errors)

    assert changed.ename == "AgentError" and len(changed.traceback) == 1
    assert "nearest recorded request: call 1 (1 message)" in changed.traceback[0]
    assert changed.traceback[0].endswith(FIX)
    assert unknown.ename == "CassetteError" and len(unknown.traceback) == 1 and unknown.traceback[0].endswith(FIX)
    shown = "\n".join(crashed.traceback)  # a real bug keeps its whole traceback
    assert crashed.ename == "AgentError" and len(crashed.traceback) > 5 and "ZeroDivisionError" in shown
    assert not any("Unexpected exception formatting" in str(o.get("text", "")) for o in nb.cells[2].outputs)


def test_the_notebook_command_reports_a_missing_cassette(tmp_path, capsys):
    from teachagent import __main__ as cli

    notebook = tmp_path / "lesson.ipynb"
    make_notebook(notebook, DOUBLE_CELL)
    assert cli.main(["notebook", "replay", str(notebook)]) == 2
    assert "there is no cassette" in capsys.readouterr().err


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
def test_lesson_5_runs_live_through_the_sdk_then_replays_offline_identically(tmp_path, monkeypatch):
    """The real lesson, live mode's code path end to end, recorded, then replayed with no server."""
    from teachagent.research.corpus import Library
    from teachagent.research.researcher import read_everything, search_and_excerpt

    lesson = tmp_path / "05_research_kl.ipynb"
    shutil.copy(Path(__file__).parent.parent / "notebooks" / "05_research_kl.ipynb", lesson)
    library = Library()
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeAnthropic(policy_server([search_and_excerpt(library), read_everything(library)])) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        recorded = run_notebook(lesson, "record", progress=lambda line: None)
        calls = len(fake.requests)
    # the excerpt run, the read-everything run and section 8's real-model cell (the excerpt task again), all through the SDK
    assert calls == 4 + 11 + 4

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    again = run_notebook(lesson, "replay", progress=lambda line: None)

    def texts(nb):  # each cell's printed text and rich outputs, less the line that names the mode
        cells = []
        for cell in nb.cells:
            shown = "".join(str(o.get("text", "")) for o in cell.get("outputs", []))
            rich = [str(o.get("data", {}).get(kind, "")) for o in cell.get("outputs", []) for kind in ("text/html", "text/plain")]
            cells.append("\n".join(line for line in shown.splitlines() if not line.startswith("[teachagent]")) + "".join(rich))
        return cells

    # section 8's real-model cell names the cassette as being recorded, then as played
    assert ([t.replace(" (live mode, the Anthropic API), replayed", "") for t in texts(again)]
            == [t.replace("recorded now into", "played from") for t in texts(recorded)])
    assert any("0.119" in t and "0.126" in t for t in texts(again))


def test_a_player_gone_on_to_a_mark_answers_as_recorded_after_it_and_never_goes_back(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel(["first", "second", "third"]), cassette)
    hello = [Message("user", "hello")]
    recorder.complete("", hello)
    recorder.mark("part")
    recorder.complete("", hello)
    recorder.complete("", hello)
    recorder.finish()
    player = Player(cassette)
    player.skip_to("part")
    assert [player.complete("", hello).text for _ in range(2)] == ["second", "third"]
    player.skip_to("part")  # asked already: stays asked
    assert player.complete("", hello).text == "third"  # the last answer again, once they run out
    player.skip_to("no such mark")
    assert Player(cassette).complete("", hello).text == "first"

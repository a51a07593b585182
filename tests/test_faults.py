"""Faults on the way to Claude, injected through the local fake Messages API.

For each fault: the SDK retries what it should, then the run stops with a clear
`AgentError` that carries the partial `Run` (saved and read back here), and nothing
written to long-term memory or to a cassette is left half-done.
"""

from __future__ import annotations

import time

import pytest
from fake_anthropic import (
    RETRY_FAST,
    Drip,
    FakeAnthropic,
    Flood,
    Gzipped,
    Reset,
    Slow,
    error_body,
    message_body,
    text_block,
    tool_use_block,
)

from teachagent.agent import Agent, AgentError
from teachagent.claude import CallTimedOut, Claude, ReplyTooLarge, UnexpectedReply
from teachagent.course.replay import CassetteError, Recorder, read_cassette
from teachagent.memory import MemoryStore, memory_tools
from teachagent.trace import Run

SAVE = (200, message_body([tool_use_block("toolu_1", "save_note", {"text": "step one is done"})], "tool_use"), {})
RETRIES = 2


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


def run_until_fault(fake, tmp_path, *fault_replies, timeout=5.0):
    """One good step that saves a note, then the fault. Returns the error, the store and the recorder."""
    fake.queue(SAVE, *fault_replies)
    claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=RETRIES, timeout=timeout)
    store, recorder = MemoryStore(tmp_path / "memory.sqlite"), Recorder(claude, tmp_path / "run.jsonl")
    agent = Agent(recorder, memory_tools(store), system="Keep notes.")
    with pytest.raises(AgentError) as caught:
        agent.run("Do the work and note each step.")
    return caught.value, store, recorder


def check_nothing_half_done(error, store, recorder, tmp_path):
    """The partial run survives a save, memory holds whole notes only, the recording whole calls only."""
    assert error.run.outcome == "error" and len(error.run.steps) == 1
    saved = tmp_path / "partial.json"
    saved.write_text(error.run.to_json())
    again = Run.from_json(saved.read_text())
    assert again.steps[0].results[0].content == "saved as note 1"
    assert [n.text for n in MemoryStore(store.path).all()] == ["step one is done"]
    assert len(read_cassette(recorder.draft)) == 1  # the failed call left no line behind
    with pytest.raises(CassetteError, match="1 of 2 calls failed"):
        recorder.finish()  # and a recording with a failed call never becomes the cassette
    assert not recorder.path.exists() and not recorder.draft.exists()


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize(
    "status, kind, exception",
    [
        (429, "rate_limit_error", "RateLimitError"),
        (529, "overloaded_error", "OverloadedError"),
        (500, "api_error", "InternalServerError"),
    ],
)
def test_retryable_errors_are_retried_then_reported_with_the_partial_run(fake, tmp_path, status, kind, exception):
    import anthropic  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    exception = getattr(anthropic, exception)
    failure = (status, error_body(kind, "try later"), {**RETRY_FAST, "retry-after": "0"})
    error, store, recorder = run_until_fault(fake, tmp_path, *[failure] * (RETRIES + 1))
    assert isinstance(error.__cause__, exception) and "step 2" in str(error)
    assert len(fake.requests) == 1 + RETRIES + 1  # the good call, the failed call and its retries
    check_nothing_half_done(error, store, recorder, tmp_path)


@pytest.mark.server  # starts a local fake API server
def test_a_retry_that_succeeds_is_invisible_to_the_run(fake, tmp_path):
    fake.queue(SAVE, (429, error_body("rate_limit_error", "slow down"), RETRY_FAST),
               (200, message_body([text_block("Done.")]), {}))
    claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=RETRIES, timeout=5)
    run = Agent(claude, memory_tools(MemoryStore(tmp_path / "m.sqlite"))).run("Work.")
    assert (run.outcome, run.answer, len(fake.requests)) == ("answer", "Done.", 3)


@pytest.mark.server  # starts a local fake API server
def test_a_connection_reset_mid_body_is_retried_then_reported(fake, tmp_path):
    import anthropic  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    error, store, recorder = run_until_fault(fake, tmp_path, *[Reset()] * (RETRIES + 1))
    assert isinstance(error.__cause__, anthropic.APIConnectionError)
    assert len(fake.requests) == 1 + RETRIES + 1
    check_nothing_half_done(error, store, recorder, tmp_path)


@pytest.mark.server  # starts a local fake API server
def test_a_reply_slower_than_the_timeout_is_abandoned_and_reported(fake, tmp_path):
    slow = Slow(1.0, (200, message_body([text_block("too late")]), {}))
    error, store, recorder = run_until_fault(fake, tmp_path, slow, slow, slow, timeout=0.3)
    assert isinstance(error.__cause__, CallTimedOut) and "0.3 s in all" in str(error)
    check_nothing_half_done(error, store, recorder, tmp_path)


@pytest.mark.server  # starts a local fake API server
def test_a_reply_dripped_one_byte_at_a_time_ends_at_the_total_timeout(fake, tmp_path):
    """Each read succeeds, so a per-read timeout never fires; the call's total allowance must."""
    drip = Drip(message_body([text_block("x" * 200)]), every=0.1)  # about 40 s to send in full
    started = time.monotonic()
    error, store, recorder = run_until_fault(fake, tmp_path, drip, timeout=1.0)
    assert time.monotonic() - started < 3.0
    assert isinstance(error.__cause__, CallTimedOut)
    check_nothing_half_done(error, store, recorder, tmp_path)


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize(
    "reply, complaint",
    [
        (message_body([tool_use_block("toolu_2", "save_note", '{"text": "unfinished')], "tool_use"), "not a JSON object"),
        (message_body([text_block("hm")], "thinking_really_hard"), "thinking_really_hard"),
    ],
)
def test_a_malformed_reply_is_not_retried_and_keeps_the_partial_run(fake, tmp_path, reply, complaint):
    error, store, recorder = run_until_fault(fake, tmp_path, (200, reply, {}))
    assert isinstance(error.__cause__, UnexpectedReply) and complaint in str(error)
    assert len(fake.requests) == 2
    check_nothing_half_done(error, store, recorder, tmp_path)


@pytest.mark.server  # starts a local fake API server
def test_a_reply_cut_by_max_tokens_in_the_middle_of_a_tool_call(fake, tmp_path):
    cut = message_body([text_block("Saving"), tool_use_block("toolu_2", "save_note", {})], "max_tokens")
    fake.queue(SAVE, (200, cut, {}))
    store = MemoryStore(tmp_path / "m.sqlite")
    claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=5)
    run = Agent(claude, memory_tools(store)).run("Work.")
    assert (run.outcome, run.answer, len(run.steps)) == ("max_tokens", None, 2)
    assert run.steps[1].results == [] and [n.text for n in store.all()] == ["step one is done"]


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("reply", [Flood(50 * 2**20), (200, {"padding": "x" * 2**20}, {}),
                                   Gzipped(message_body([text_block("ok")]), padding=50 * 2**20)],
                         ids=["unannounced", "announced", "gzip-bomb"])
def test_a_huge_reply_body_is_cut_off_with_the_partial_run_kept(fake, tmp_path, monkeypatch, reply):
    """A body past the cap ends the call with a clear error, reading at most the cap (times the SDK's tries)."""
    monkeypatch.setattr("teachagent.base.http.MAX_REPLY_BYTES", 256 * 2**10)
    started = time.monotonic()
    error, store, recorder = run_until_fault(fake, tmp_path, *[reply] * (RETRIES + 1), timeout=20)
    assert time.monotonic() - started < 15
    assert isinstance(error.__cause__, ReplyTooLarge) and "step 2" in str(error)
    assert "larger than 262,144 bytes" in str(error)
    assert fake.requests[-1].headers.get("accept-encoding") == "identity"
    check_nothing_half_done(error, store, recorder, tmp_path)

"""Replies that begin with thinking, or hold a block type we do not know, through the real SDK.

Claude Haiku 5.5 may start a reply with a `thinking` block (its text omitted by default,
a signature kept) or a `redacted_thinking` block, and the API insists that such blocks
come back unchanged in the next request. Each test here lets the agent loop run a
two-step task against the local fake API and checks, byte for byte, what the second
request sent back.
"""

from __future__ import annotations

import json

import pytest
from fake_anthropic import (
    FakeAnthropic,
    message_body,
    redacted_thinking_block,
    text_block,
    thinking_block,
    tool_use_block,
)

from teachagent.agent import Agent
from teachagent.claude import Claude
from teachagent.course.viz import step_html
from teachagent.thinking import OtherBlock, RedactedThinking, Thinking
from teachagent.tools import tool
from teachagent.trace import Run

pytestmark = pytest.mark.server  # every test here runs Claude through the SDK against the local fake

UNKNOWN = {"type": "server_note", "id": "srv_1", "payload": {"nested": [1, 2.5, "ünïcode"], "empty": {}}}


@tool
def double(n: int) -> str:
    """Double a number."""
    return str(2 * n)


def run_two_steps(first_blocks, final_blocks=None):
    """Step 1 writes `first_blocks` then calls double(21); step 2 answers. Returns the run and both requests."""
    call = tool_use_block("toolu_1", "double", {"n": 21})
    final = final_blocks or [text_block("It is 42.")]
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([*first_blocks, call], "tool_use"), {}), (200, message_body(final), {}))
        claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=5)
        run = Agent(claude, [double]).run("Double 21.")
        return run, [r.body for r in fake.requests]


@pytest.mark.parametrize(
    "block, kind",
    [
        (thinking_block(), Thinking),
        (thinking_block("The user wants 21 doubled; the tool does that."), Thinking),
        (redacted_thinking_block(), RedactedThinking),
        (UNKNOWN, OtherBlock),
    ],
    ids=["thinking-omitted", "thinking-summarised", "redacted", "unknown-type"],
)
def test_the_block_goes_back_unchanged_in_the_next_request(block, kind):
    run, (_, second) = run_two_steps([block])
    assert run.outcome == "answer" and run.answer == "It is 42."
    assert isinstance(run.steps[0].response.content[0], kind)
    sent_back = second["messages"][1]  # the assistant turn of step 1, as the API got it
    assert sent_back["role"] == "assistant"
    assert json.dumps(sent_back["content"][0], sort_keys=True) == json.dumps(block, sort_keys=True)
    assert sent_back["content"][1] == tool_use_block("toolu_1", "double", {"n": 21})


def test_thinking_is_never_the_answer():
    run, _ = run_two_steps([thinking_block("scratch work: 42")], [thinking_block("done"), text_block("42")])
    assert run.answer == "42"
    assert run.steps[1].response.thoughts == [Thinking("done", thinking_block()["signature"])]


def test_an_unknown_block_is_noted_in_the_run_and_survives_a_save():
    run, _ = run_two_steps([UNKNOWN])
    assert run.notes == ["step 1: the model wrote a 'server_note' block, which teachagent does not know; "
                         "it was kept in the history and sent back unchanged"]
    again = Run.from_json(run.to_json())
    assert again.notes == run.notes and again.steps[0].response.content[0] == OtherBlock(UNKNOWN)


def test_a_run_with_thinking_round_trips_through_json():
    run, _ = run_two_steps([thinking_block("why"), redacted_thinking_block()])
    again = Run.from_json(run.to_json())
    assert [s.to_dict() for s in again.steps] == [s.to_dict() for s in run.steps]


def test_the_step_view_shows_hidden_thought_or_its_summary():
    hidden, _ = run_two_steps([thinking_block()])
    summarised, _ = run_two_steps([thinking_block("Doubling is a job for the tool.")])
    assert "thought (hidden)" in step_html(hidden, 1)
    assert "Doubling is a job for the tool." in step_html(summarised, 1)
    assert "thought (summary)" in step_html(summarised, 1)

"""Compaction (lesson 6): old tool results become notes, c_k is what the model then reads, the rest is kept."""

from __future__ import annotations

import pytest

from teachagent.agent import Agent, AgentError
from teachagent.base.errors import SettingError
from teachagent.compaction import Compaction, is_compacted
from teachagent.course.viz import composition
from teachagent.messages import Message, ToolCall, ToolResult
from teachagent.research.corpus import Library
from teachagent.research.researcher import QUESTION, research_agent
from teachagent.scripted import ScriptedModel, call, tool_exchanges
from teachagent.tokens import context_tokens, count_tokens
from teachagent.tools import tool

LONG = "a long result " * 200


@tool
def fetch(n: int) -> str:
    """Return a long text numbered n."""
    return f"text {n}: {LONG}"


def reader(steps: int):
    """A policy that fetches `steps` texts, one a step, and then says which texts it can still read."""

    def policy(messages):
        done = tool_exchanges(messages)
        if len(done) < steps:
            return call("fetch", n=len(done) + 1)
        return "whole: " + ",".join(r.content.split(":")[0] for _, r in done if not is_compacted(r))

    return policy


def test_only_the_latest_results_stay_whole_and_the_model_sees_the_notes():
    run = Agent(ScriptedModel(reader(4)), [fetch], compact=Compaction(keep=1)).run("read four texts")
    assert run.answer == "whole: text 4"
    assert Agent(ScriptedModel(reader(4)), [fetch]).run("read four texts").answer == "whole: text 1,text 2,text 3,text 4"


def test_keep_is_how_many_turns_of_results_stay_whole():
    run = Agent(ScriptedModel(reader(4)), [fetch], compact=Compaction(keep=2)).run("read four texts")
    assert run.answer == "whole: text 3,text 4"


def test_c_k_is_what_the_compacted_call_read_and_grows_by_notes_not_texts():
    seen = []

    def policy(messages):
        seen.append(context_tokens("", messages, [fetch.spec]))
        return reader(5)(messages)

    compacted = Agent(ScriptedModel(policy), [fetch], compact=Compaction(keep=2)).run("read five texts")
    assert compacted.context_sizes == seen  # our count of each call is what its model was given
    assert [s.response.usage.input_tokens for s in compacted.steps] == seen  # the model's own count too
    plain = Agent(ScriptedModel(reader(5)), [fetch]).run("read five texts")
    assert compacted.Z < 0.7 * plain.Z
    growth = [b - a for a, b in zip(compacted.context_sizes[2:], compacted.context_sizes[3:])]
    assert max(growth) < 60  # past the kept turns, a step adds its call and a note, not a text of ~600 tokens


def test_a_note_names_the_call_and_its_size_and_compacting_twice_changes_nothing():
    messages = Agent(ScriptedModel(reader(3)), [fetch]).run("read three texts").messages
    once = Compaction()(messages)
    notes = [r for _, r in tool_exchanges(once) if is_compacted(r)]
    tokens = count_tokens(tool_exchanges(messages)[0][1].content)
    assert len(notes) == 2 and notes[0].content.startswith(f"[compacted: this fetch result, {tokens} tokens, was dropped")
    assert [m.to_dict() for m in Compaction()(once)] == [m.to_dict() for m in once]
    assert not any(is_compacted(r) for _, r in tool_exchanges(messages))  # the list given is left as it was


def test_ids_and_errors_survive_compaction():
    messages = [Message("user", "t"), Message("assistant", [ToolCall("toolu_001", "fetch", {"n": 1})]),
                Message("user", [ToolResult("toolu_001", "it broke", is_error=True)]),
                Message("assistant", [ToolCall("toolu_002", "fetch", {"n": 2})]),
                Message("user", [ToolResult("toolu_002", "fine")])]
    (old, _), (new, _) = [(r, c) for c, r in tool_exchanges(Compaction()(messages))]
    assert (old.tool_use_id, old.is_error, is_compacted(old)) == ("toolu_001", True, True)
    assert (new.content, is_compacted(new)) == ("fine", False)


def test_the_read_everything_researcher_compacted_reads_far_less_and_still_answers():
    library = Library()
    plain = research_agent("everything", library=library).run(QUESTION)
    agent = research_agent("everything", library=library)
    agent.compact = Compaction()
    compacted = agent.run(QUESTION)
    assert compacted.outcome == "answer" and compacted.answer.startswith("No.")
    assert "triangle inequality" in plain.answer and "triangle inequality" not in compacted.answer  # that text is gone
    assert len(compacted.steps) == len(plain.steps) and compacted.Z < plain.Z / 3


def test_the_views_show_a_compacted_history_as_one_part_of_the_size_it_had():
    run = Agent(ScriptedModel(reader(4)), [fetch], compact=Compaction()).run("read four texts")
    for step in run.steps:
        parts = composition(run, step.index)
        assert sum(n for _, n in parts) == step.context_tokens
    assert [label for label, _ in composition(run, 2)] == ["system + tools", "task", "v1", "N(v1)"]  # nothing dropped yet
    assert [label for label, _ in composition(run, 3)] == ["system + tools", "task", "history, compacted"]


@pytest.mark.parametrize("keep", [0, -1, 1.5, "1", True])
def test_keep_must_be_a_whole_number_of_one_or_more(keep):
    with pytest.raises(SettingError, match="keep"):
        Compaction(keep)


def test_a_compaction_that_raises_ends_the_run_as_an_agent_error_that_keeps_it():
    def broken(messages):
        raise ValueError("no")

    with pytest.raises(AgentError, match="compacting the context after step 1 failed") as caught:
        Agent(ScriptedModel(reader(2)), [fetch], compact=broken).run("t")
    assert len(caught.value.run.steps) == 1


def test_repr():
    assert repr(Compaction(keep=3)) == "Compaction(keep=3)"

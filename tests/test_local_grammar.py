"""Local mode's grammar path (`GrammarModel`), against a fake chat-completions server on 127.0.0.1: no model needed.

A model held to the step schema writes JSON; what the loop records, and so what the step
viewer, `play` and prints show, is the call or the answer it means, or in words what it was
writing when its reply was cut off, never the wrapper JSON. A number JSON reads as an
infinity is an error result the model reads, not the end of the run.
"""

from __future__ import annotations

import json

import pytest
from fake_openai import completion_body

from teachagent.agent import Agent
from teachagent.course import local
from teachagent.course.local import CUT_OFF, GrammarModel, LocalServer, cut_off, grammar_step
from teachagent.course.reference import describe
from teachagent.messages import Text, ToolCall
from teachagent.tools import tool

pytestmark = pytest.mark.server  # starts a local fake API server


@tool
def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


@tool
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


@pytest.fixture
def fake(openai_fake):  # tests/conftest.py
    return openai_fake


def model(fake, **options) -> GrammarModel:
    return GrammarModel("fake-model", fake.base_url, **{"max_retries": 0, "timeout": 5, **options})


def test_the_tools_are_listed_and_the_reply_held_to_a_call_or_an_answer(fake):
    step = json.dumps({"tool": "weather", "arguments": {"city": "Oslo"}})
    fake.queue((200, completion_body(step), {}), (200, completion_body(json.dumps({"answer": "Sunny."})), {}))
    run = Agent(model(fake), [weather], system="Be brief.").run("Oslo?")
    assert (run.outcome, run.answer, run.steps[0].response.stop_reason) == ("answer", "Sunny.", "tool_use")
    assert run.steps[0].response.tool_calls[0].input == {"city": "Oslo"} and run.steps[0].response.text == ""
    assert run.steps[0].results[0].content == "sunny in Oslo"
    first, second = fake.requests[0].body, fake.requests[1].body
    assert "tools" not in first and first["messages"][0]["role"] == "system"
    assert first["messages"][0]["content"].startswith("Be brief.") and '"city"' in first["messages"][0]["content"]
    choices = first["response_format"]["json_schema"]["schema"]["anyOf"]
    assert choices[0]["properties"] == {"tool": {"const": "weather"}, "arguments": weather.input_schema}
    assert choices[1]["required"] == ["answer"]
    assert second["messages"][2:] == [{"role": "assistant", "content": step},
                                      {"role": "user", "content": "Result of weather: sunny in Oslo"}]


def test_reply_tokens_caps_every_reply_whatever_the_loop_allows(fake):
    fake.queue(*[(200, completion_body(json.dumps({"answer": "Sunny."})), {})] * 2)
    Agent(model(fake, reply_tokens=160), [weather], max_tokens=1024).run("Oslo?")
    Agent(model(fake, reply_tokens=160), [weather], max_tokens=50).run("Oslo?")
    assert [r.body["max_tokens"] for r in fake.requests] == [160, 50]


def test_local_mode_caps_its_replies(fake):
    fake.queue((200, completion_body(json.dumps({"answer": "Sunny."})), {}))
    server = LocalServer(fake.base_url.removesuffix("/v1"), 1, 1, local.CONTEXT, 0.0)
    Agent(local.local_model(server), [weather]).run("Oslo?")
    assert fake.requests[0].body["max_tokens"] == local.REPLY_TOKENS < 1024


@pytest.mark.parametrize("written, shown", [
    ('{"tool": "read_file", "arguments": {"path": "note_path/r:r:r:r', "(cut off while writing a call to read_file)"),
    ('{"tool": "read_fi', "(cut off while writing a call)"),
    ('{"answer": "The KL divergence is not sym', "(cut off while writing its answer) The KL divergence is not sym"),
    ('{"answer": "caf\\u00', "(cut off while writing its answer) caf"),
    ('{"answer": "   ', "(cut off while writing its answer)"),
    ('{  ', "(cut off before it wrote a call or an answer)"),
])
def test_a_reply_cut_off_mid_step_says_what_it_was_writing_not_a_fragment(fake, written, shown):
    fake.queue((200, completion_body(written, finish_reason="length"), {}))
    run = Agent(model(fake), [weather]).run("Oslo?")
    assert run.outcome == "max_tokens" and run.answer is None
    assert run.steps[0].response.content == [Text(shown)]
    described = describe(run.steps[0].response)  # shown as local mode's note, never quoted as the model's words
    assert shown.startswith(CUT_OFF) and described.startswith(shown.split(")")[0].removeprefix("("))


def test_content_sent_as_a_list_of_text_parts_is_joined(fake):
    parts = [{"type": "text", "text": '{"tool": "weather", '}, {"type": "text", "text": '"arguments": {"city": "Oslo"}}'}]
    fake.queue((200, completion_body(parts), {}), (200, completion_body([{"type": "text", "text": '{"answer": "Sunny."}'}]), {}))
    run = Agent(model(fake), [weather]).run("Oslo?")
    assert run.steps[0].results[0].content == "sunny in Oslo" and (run.outcome, run.answer) == ("answer", "Sunny.")


@pytest.mark.parametrize("number", ["1" + "0" * 308, "1e999", "-" + "9" * 5000])
def test_a_number_json_reads_as_infinite_is_an_error_result_the_model_reads(fake, number):
    written = '{"tool": "add", "arguments": {"a": ' + number + ', "b": 1}}'
    fake.queue((200, completion_body(written), {}), (200, completion_body('{"answer": "I could not add them."}'), {}))
    run = Agent(model(fake), [add]).run("Add them.")
    (call,) = run.steps[0].response.tool_calls
    (result,) = run.steps[0].results
    assert call.name == "add" and call.unparsed == '{"a": ' + number + ', "b": 1}' and result.is_error
    assert (run.outcome, run.answer) == ("answer", "I could not add them.")  # the run went on
    assert run.to_json()  # and what the loop kept can be saved


def test_grammar_step_reads_a_call_an_answer_and_arguments_that_are_not_an_object():
    assert grammar_step('{"tool": "weather", "arguments": {"city": "Oslo"}}', "r", "stop") == [
        ToolCall("r-0", "weather", {"city": "Oslo"})]
    assert grammar_step('{"answer": "Sunny."}', "r", "stop") == [Text("Sunny.")]
    assert grammar_step('{"tool": "weather", "arguments": 3}', "r", "stop") == [ToolCall("r-0", "weather", {}, unparsed="3")]
    assert grammar_step("", "r", "length") == [] and grammar_step(None, "r", "stop") == []
    assert cut_off("plain words the grammar would not allow") == "plain words the grammar would not allow"


@pytest.mark.parametrize("quoted, text", [('"caf\\u00', "caf"), ('"a\\', "a"), ('"a\\\\', "a\\"), ('"a\\n', "a\n"),
                                          ('"smile \\ud83d', "smile "), ('"x\\u00e9', "xé")])
def test_an_answer_cut_inside_an_escape_keeps_only_what_was_written_whole(quoted, text):
    assert local.partial_string(quoted) == text


def test_local_mode_gives_the_research_agent_fewer_steps_and_other_models_keep_theirs(fake):
    from teachagent.research.researcher import research_agent
    from teachagent.scripted import ScriptedModel

    server = LocalServer(fake.base_url.removesuffix("/v1"), 1, 1, local.CONTEXT, 0.0)
    assert research_agent(model=local.local_model(server)).max_steps == local.STEPS < 15
    assert research_agent(model=local.local_model(server), max_steps=9).max_steps == 9  # asked for: as asked
    assert research_agent(model=ScriptedModel(["Done."])).max_steps == research_agent().max_steps == 15

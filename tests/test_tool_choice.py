"""`tool_choice` as a request setting: checked before the call, held by every model, sent in each API's words.

The Messages API writes it {"type": "auto" | "any" | "none"} or {"type": "tool", "name": ...};
chat completions "auto", "required", "none" or a named function; the local model's grammar
narrows to what the choice allows. `ScriptedModel` and `HumanModel` keep it as an API keeps
its model to it. The adapters are tested through their real SDKs against the fakes on 127.0.0.1.
"""

from __future__ import annotations

import json

import pytest
from fake_anthropic import FakeAnthropic, message_body, text_block, tool_use_block
from fake_openai import completion_body, function_call

from teachagent.agent import Agent, AgentError, no_tools_after_a_result
from teachagent.base.errors import SettingError
from teachagent.claude import Claude
from teachagent.course.local import GrammarModel, json_tools_request
from teachagent.course.replay import Player, Recorder
from teachagent.human import HumanModel, NotAReply
from teachagent.messages import Message
from teachagent.openai_compatible import OpenAICompatible, chat_request
from teachagent.requests import check_tool_choice, request_body, tool_choice_problem
from teachagent.scripted import ScriptBreaksToolChoice, ScriptedModel, call
from teachagent.tools import tool


@tool
def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


@tool
def clock(city: str) -> str:
    """The time in a city."""
    return f"noon in {city}"


SPECS = [weather.spec, clock.spec]
ASK = [Message("user", "Weather in Oslo?")]


# --- the vocabulary: which choices a request can carry, and how the Messages API writes them ---------------


@pytest.mark.parametrize("choice", ["auto", "any", "none", "weather", "clock"])
def test_every_choice_a_request_with_tools_can_carry_is_taken(choice):
    assert check_tool_choice(choice, SPECS) == choice


@pytest.mark.parametrize("choice, words", [
    ("whether", "'auto', 'any', 'none' or a tool's name ('weather', 'clock'); got 'whether'"),
    ("", "got ''"),
    (None, "got None"),
    (3, "got 3"),
    ("AUTO", "got 'AUTO'"),
])
def test_a_choice_that_is_no_choice_is_one_line_naming_what_it_can_be(choice, words):
    with pytest.raises(SettingError, match="tool_choice must be") as refused:
        check_tool_choice(choice, SPECS)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_forcing_a_call_where_no_tool_is_offered_is_refused():
    with pytest.raises(SettingError, match="'any' makes the model call a tool, but this request offers none"):
        check_tool_choice("any", [])
    with pytest.raises(SettingError, match="offers no tools to name"):
        check_tool_choice("weather", [])
    assert check_tool_choice("none", []) == "none"


@pytest.mark.parametrize("choice, field", [
    ("any", {"type": "any"}), ("none", {"type": "none"}), ("clock", {"type": "tool", "name": "clock"}),
])
def test_the_messages_api_shape_carries_the_choice_and_leaves_out_auto(choice, field):
    assert request_body("m", "", ASK, SPECS, 100, choice)["tool_choice"] == field
    assert "tool_choice" not in request_body("m", "", ASK, SPECS, 100)
    assert "tool_choice" not in request_body("m", "", ASK, [], 100, "none")  # no tools: nothing to choose among


def test_what_breaks_a_choice_is_said_in_words():
    calls = [call("weather", city="Oslo")]
    assert tool_choice_problem("auto", calls) is None and tool_choice_problem("auto", []) is None
    assert "tool_choice 'none' allows no tool call" in tool_choice_problem("none", calls)
    assert "requires a call" in tool_choice_problem("any", [])
    assert tool_choice_problem("weather", calls) is None
    assert "requires a call to clock" in tool_choice_problem("clock", calls)
    assert "requires a call to weather" in tool_choice_problem("weather", [])


# --- the loop: a value, or a function of the run ------------------------------------------------------------


def test_no_tools_after_a_result_leaves_the_model_only_an_answer():
    model = ScriptedModel([call("weather", city="Oslo"), "Sunny."])
    run = Agent(model, [weather], tool_choice=no_tools_after_a_result).run("Weather in Oslo?")
    assert (run.outcome, run.answer) == ("answer", "Sunny.")


def test_a_scripted_step_that_breaks_the_choice_is_one_clear_error_with_the_run_kept():
    model = ScriptedModel([call("weather", city="Oslo"), call("weather", city="Oslo")])
    with pytest.raises(AgentError, match="step 2 of 'scripted' cannot be played: it calls weather, but tool_choice 'none'"
                       ) as failed:
        Agent(model, [weather], tool_choice=no_tools_after_a_result).run("Weather in Oslo?")
    assert isinstance(failed.value.__cause__, ScriptBreaksToolChoice)
    assert len(failed.value.run.steps) == 1 and failed.value.run.outcome == "error"


def test_forcing_a_call_every_step_never_ends_a_run():
    model = ScriptedModel(lambda messages: call("weather", city="Oslo"))
    run = Agent(model, [weather], tool_choice="any", max_steps=4).run("Weather in Oslo?")
    assert (run.outcome, run.answer, len(run.steps)) == ("max_steps", None, 4)


def test_a_choice_function_is_asked_before_every_call_and_its_answers_are_checked():
    asked = []

    def first_weather_then_answer(run):
        asked.append(len(run.steps))
        return "weather" if not run.steps else "none"

    model = ScriptedModel([call("weather", city="Oslo"), "Sunny."])
    Agent(model, [weather, clock], tool_choice=first_weather_then_answer).run("Weather in Oslo?")
    assert asked == [0, 1]
    with pytest.raises(AgentError, match="the model call at step 1 failed: SettingError: "
                                         "tool_choice must be"):
        Agent(ScriptedModel(["x"]), [weather], tool_choice=lambda run: "umbrella").run("Weather?")


def test_an_agent_refuses_a_choice_it_cannot_send_when_it_is_made():
    with pytest.raises(SettingError, match="got 'umbrella'"):
        Agent(ScriptedModel(["x"]), [weather], tool_choice="umbrella")
    with pytest.raises(SettingError, match="offers none"):
        Agent(ScriptedModel(["x"]), [], tool_choice="any")


def test_a_model_written_with_four_parameters_still_serves_the_default_choice():
    class Plain:
        name = "plain"

        def complete(self, system, messages, tools, max_tokens):
            return ScriptedModel(["Fine."]).complete(system, messages, tools, max_tokens)

    assert Agent(Plain(), [weather]).run("Weather?").answer == "Fine."
    with pytest.raises(AgentError, match="unexpected keyword argument 'tool_choice'"):
        Agent(Plain(), [weather], tool_choice="none").run("Weather?")


def test_a_person_playing_the_model_is_told_the_choice_and_asked_again_when_they_break_it():
    pages, tries = [], iter(['call weather {"city": "Oslo"}', "Sunny."])
    person = HumanModel(ask=lambda page, problem: (pages.append((page, problem)), next(tries))[1])
    reply = person.complete("", ASK, SPECS, 100, tool_choice="none")
    assert reply.text == "Sunny." and not reply.tool_calls
    assert "=== this call: you may not call a tool ===" in pages[0][0]
    assert "tool_choice 'none' allows no tool call" in pages[1][1]
    with pytest.raises(NotAReply, match="requires a call"):
        HumanModel(answers=["Sunny."], show=lambda page: None).complete("", ASK, SPECS, 100, tool_choice="any")


# --- the adapters: each API's own words, through the real SDKs ----------------------------------------------


@pytest.mark.server
@pytest.mark.parametrize("choice, sent", [
    ("any", {"type": "any"}), ("clock", {"type": "tool", "name": "clock"}), ("none", {"type": "none"}),
])
def test_claude_sends_the_choice_in_the_messages_api_words(choice, sent):
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([tool_use_block("toolu_1", "clock", {"city": "Oslo"})], "tool_use"), {}))
        claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=5,
                        thinking=False)
        claude.complete("", ASK, SPECS, 100, tool_choice=choice)
        body = fake.requests[0].body
    assert body["tool_choice"] == sent and body["thinking"] == {"type": "disabled"}


@pytest.mark.server
@pytest.mark.parametrize("thinking", [None, True])
def test_claude_refuses_to_force_a_call_while_it_may_think_before_any_request(thinking):
    with FakeAnthropic() as fake:
        claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=5,
                        thinking=thinking)
        with pytest.raises(SettingError, match=r"refuses tool_choice 'any' while it may think.*Claude\(thinking=False\)"):
            claude.complete("", ASK, SPECS, 100, tool_choice="any")
        fake.queue((200, message_body([text_block("Sunny.")]), {}))
        claude.complete("", ASK, SPECS, 100, tool_choice="none")  # not forcing: thinking may stay on
        assert len(fake.requests) == 1 and fake.requests[0].body["tool_choice"] == {"type": "none"}
    with pytest.raises(SettingError, match="thinking must be True, False or None"):
        Claude("claude-test", api_key="test-key", thinking="off")


@pytest.mark.server
@pytest.mark.parametrize("choice, sent", [
    ("any", "required"), ("none", "none"), ("clock", {"type": "function", "function": {"name": "clock"}}),
])
def test_an_openai_compatible_server_gets_the_choice_in_the_chat_api_words(openai_fake, choice, sent):
    openai_fake.queue((200, completion_body(None, [function_call("c1", "clock", {"city": "Oslo"})], "tool_calls"), {}))
    OpenAICompatible("m", openai_fake.base_url, max_retries=0, timeout=5).complete("", ASK, SPECS, 100, tool_choice=choice)
    assert openai_fake.requests[0].body["tool_choice"] == sent
    assert "tool_choice" not in chat_request("m", "", ASK, SPECS, 100)  # "auto" is the API's default: left out


def grammar(request):
    """The shapes a grammar-held reply may take: ('call', tool) or ('answer', its schema)."""
    return [("call", c["properties"]["tool"]["const"]) if "tool" in c["properties"] else ("answer", c["properties"]["answer"])
            for c in request["response_format"]["json_schema"]["schema"]["anyOf"]]


def test_the_grammar_narrows_to_what_the_choice_allows():
    auto = json_tools_request("m", "Be brief.", ASK, SPECS, 50)
    assert grammar(auto) == [("call", "weather"), ("call", "clock"), ("answer", {"type": "string"})]
    assert grammar(json_tools_request("m", "Be brief.", ASK, SPECS, 50, "any")) == [("call", "weather"), ("call", "clock")]
    assert grammar(json_tools_request("m", "Be brief.", ASK, SPECS, 50, "clock")) == [("call", "clock")]
    none = json_tools_request("m", "Be brief.", ASK, SPECS, 50, "none")
    assert grammar(none) == [("answer", {"type": "string"})]
    assert none == json_tools_request("m", "Be brief.", ASK, [], 50)  # "none": the request without tools
    forced = json_tools_request("m", "Be brief.", ASK, SPECS, 50, "clock")["messages"][0]["content"]
    assert "- clock:" in forced and "- weather:" not in forced and '{"answer"' not in forced


@pytest.mark.server
def test_the_grammar_model_sends_the_narrowed_request(openai_fake):
    openai_fake.queue((200, completion_body('{"answer": "Sunny."}'), {}))
    model = GrammarModel("m", openai_fake.base_url, max_retries=0, timeout=5)
    assert model.complete("", ASK, SPECS, 100, tool_choice="none").text == "Sunny."
    assert grammar(openai_fake.requests[0].body) == [("answer", {"type": "string"})]
    assert "tool_choice" not in openai_fake.requests[0].body  # the grammar does the choosing


# --- recordings: the choice is part of the request a cassette keys on ---------------------------------------


def test_a_recording_keeps_the_choice_and_replays_only_to_the_same_choice(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorder = Recorder(ScriptedModel([call("weather", city="Oslo"), "Sunny."]), cassette)
    run = Agent(recorder, [weather], tool_choice=no_tools_after_a_result).run("Weather in Oslo?")
    recorder.finish()
    lines = [json.loads(line) for line in cassette.read_text().splitlines()[1:]]
    assert "tool_choice" not in lines[0]["request"] and lines[1]["request"]["tool_choice"] == {"type": "none"}
    again = Agent(Player(cassette), [weather], tool_choice=no_tools_after_a_result).run("Weather in Oslo?")
    assert (again.answer, again.Z) == (run.answer, run.Z)
    with pytest.raises(AgentError, match="never recorded"):
        Agent(Player(cassette), [weather], tool_choice="auto", max_steps=3).run("Weather in Oslo?")

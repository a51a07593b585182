"""The OpenAI-compatible adapter through the real openai SDK, against a fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import time

import pytest
from fake_anthropic import RETRY_FAST, Drip, EchoAuthorization, Flood, Gzipped
from fake_openai import completion_body, function_call, openai_error
from shown import everything_shown

from teachagent import OpenAICompatible
from teachagent.agent import Agent, AgentError
from teachagent.base.errors import PromptTooLong, SettingError
from teachagent.base.http import CallTimedOut, MissingAPIKey, ReplyTooLarge, UnexpectedReply
from teachagent.course.replay import Player, Recorder
from teachagent.messages import Message, Text, ToolCall, ToolResult
from teachagent.tools import tool
from teachagent.usage import Usage

SECRET = "Zx8Kq3LmW5nR7tVb2YcH9dJf4Gs6Pa1E"  # a made-up key body; never a real key
KEY = "sk-proj-" + SECRET
WEATHER = {"name": "weather", "description": "Today's weather in a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


@tool
def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


@pytest.fixture
def fake(openai_fake):  # tests/conftest.py
    return openai_fake


def model(fake, **options) -> OpenAICompatible:
    return OpenAICompatible("fake-model", fake.base_url, **{"max_retries": 0, "timeout": 5, **options})


def leaks(text: str) -> bool:
    """Whether any 8 characters in a row of the key's secret part appear in `text`."""
    return any(SECRET[i : i + 8] in text for i in range(len(SECRET) - 7))


@pytest.mark.server  # starts a local fake API server
def test_a_text_reply_becomes_a_response(fake):
    fake.queue((200, completion_body("Hello!", usage={"prompt_tokens": 12, "completion_tokens": 3}), {}))
    response = model(fake).complete("Be brief.", [Message("user", "Hi")])
    assert (response.text, response.stop_reason, response.model) == ("Hello!", "end_turn", "fake-model")
    assert response.usage == Usage(12, 3)


@pytest.mark.server  # starts a local fake API server
def test_the_request_carries_our_conversation_in_the_chat_shape(fake):
    fake.queue((200, completion_body("Done."), {}))
    history = [
        Message("user", "Weather in Oslo and Rome?"),
        Message("assistant", [Text("Checking."), ToolCall("call_1", "weather", {"city": "Oslo"}),
                              ToolCall("call_2", "weather", {"city": "Rome"})]),
        Message("user", [ToolResult("call_1", "rain"), ToolResult("call_2", "no such city", is_error=True)]),
    ]
    model(fake).complete("Be brief.", history, [WEATHER], max_tokens=77)
    body = fake.requests[0].body
    assert fake.requests[0].path == "/v1/chat/completions"
    assert body["model"] == "fake-model" and body["max_tokens"] == 77
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Oslo and Rome?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Rome"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "rain"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: no such city"},
    ]
    assert body["tools"] == [{"type": "function", "function": {
        "name": "weather", "description": "Today's weather in a city.", "parameters": WEATHER["input_schema"]}}]


@pytest.mark.server  # starts a local fake API server
def test_no_system_prompt_and_no_tools_are_left_out(fake):
    fake.queue((200, completion_body("Hi."), {}))
    model(fake).complete("", [Message("user", "Hi")])
    assert fake.requests[0].body["messages"] == [{"role": "user", "content": "Hi"}]
    assert "tools" not in fake.requests[0].body


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("finish, stop_reason", [("stop", "end_turn"), ("tool_calls", "tool_use"), ("function_call", "tool_use"),
                                                 ("length", "max_tokens"), ("content_filter", "refusal")])
def test_every_finish_reason_has_its_stop_reason(fake, finish, stop_reason):
    calls = [function_call("call_1", "weather", {"city": "Oslo"})] if stop_reason == "tool_use" else None
    fake.queue((200, completion_body(None if calls else "…", calls, finish), {}))
    assert model(fake).complete("", [Message("user", "Hi")], [WEATHER]).stop_reason == stop_reason


@pytest.mark.server  # starts a local fake API server
def test_calls_that_end_with_stop_are_still_tool_use(fake):
    """Ollama ends a turn of tool calls with finish_reason "stop"."""
    fake.queue((200, completion_body(None, [function_call("call_1", "weather", {"city": "Oslo"})], "stop"), {}))
    response = model(fake).complete("", [Message("user", "Hi")], [WEATHER])
    assert response.stop_reason == "tool_use" and response.tool_calls == [ToolCall("call_1", "weather", {"city": "Oslo"})]


@pytest.mark.server  # starts a local fake API server
def test_an_unknown_finish_reason_is_an_unexpected_reply(fake):
    fake.queue((200, completion_body("hm", finish_reason="thinking_hard"), {}))
    with pytest.raises(UnexpectedReply, match="thinking_hard"):
        model(fake).complete("", [Message("user", "Hi")])


@pytest.mark.server  # starts a local fake API server
def test_parallel_calls_all_become_tool_calls_and_all_run(fake):
    both = [function_call("call_a", "weather", {"city": "Oslo"}), function_call("call_b", "weather", {"city": "Rome"})]
    fake.queue((200, completion_body(None, both, "tool_calls"), {}), (200, completion_body("Both sunny."), {}))
    run = Agent(model(fake), [weather]).run("Oslo and Rome?")
    assert [c.input["city"] for c in run.steps[0].response.tool_calls] == ["Oslo", "Rome"]
    results = [(r.tool_use_id, r.content) for r in run.steps[0].results]
    assert results == [("call_a", "sunny in Oslo"), ("call_b", "sunny in Rome")]
    sent = fake.requests[1].body["messages"]
    assert [m.get("tool_call_id") for m in sent if m["role"] == "tool"] == ["call_a", "call_b"]
    assert (run.outcome, run.answer) == ("answer", "Both sunny.")


@pytest.mark.server  # starts a local fake API server
def test_cached_prompt_tokens_are_cache_reads_and_add_up_to_the_prompt(fake):
    usage = {"prompt_tokens": 1000, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 640}}
    fake.queue((200, completion_body("ok", usage=usage), {}))
    got = model(fake).complete("", [Message("user", "Hi")]).usage
    assert got == Usage(input_tokens=360, output_tokens=20, cache_read_input_tokens=640)
    assert got.input_tokens + got.cache_read_input_tokens == 1000 == got.total_input_tokens


@pytest.mark.server  # starts a local fake API server
def test_a_reply_without_usage_counts_zero(fake):
    body = completion_body("ok")
    del body["usage"]
    fake.queue((200, body, {}))
    assert model(fake).complete("", [Message("user", "Hi")]).usage == Usage()


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("written", ['{"city": "Oslo"', "city=Oslo", '["Oslo"]', "null"])
def test_arguments_that_are_not_a_json_object_become_an_error_the_model_reads(fake, written):
    fake.queue((200, completion_body(None, [function_call("call_1", "weather", written)], "tool_calls"), {}),
               (200, completion_body("Sorry."), {}))
    run = Agent(model(fake), [weather]).run("Oslo?")
    first = run.steps[0]
    assert first.response.tool_calls[0].unparsed == written and first.results[0].is_error
    assert "not a JSON object" in first.results[0].content and (run.outcome, run.answer) == ("answer", "Sorry.")
    sent = fake.requests[1].body["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == written  # sent back as the model wrote it
    assert sent[2]["content"].startswith("Error: the arguments of this call to 'weather' are not a JSON object")
    saved = type(run).from_json(run.to_json())
    assert saved.steps[0].response.tool_calls[0].unparsed == written


@pytest.mark.server  # starts a local fake API server
def test_a_call_without_arguments_is_a_call_with_empty_input(fake):
    fake.queue((200, completion_body(None, [function_call("call_1", "now", "")], "tool_calls"), {}))
    assert model(fake).complete("", [Message("user", "Time?")]).tool_calls == [ToolCall("call_1", "now", {})]


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("status, error", [(429, "RateLimitError"), (500, "InternalServerError")])
def test_rate_limits_and_server_errors_are_retried(fake, status, error):
    import openai  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    error = getattr(openai, error)
    failure = (status, openai_error("try later"), {**RETRY_FAST, "retry-after": "0"})
    fake.queue(failure, (200, completion_body("Fine."), {}))
    assert model(fake, max_retries=2).complete("", [Message("user", "Hi")]).text == "Fine."
    fake.queue(failure, failure, failure)
    with pytest.raises(AgentError) as caught:
        Agent(model(fake, max_retries=2), []).run("Hi")
    assert isinstance(caught.value.__cause__, error) and len(fake.requests) == 2 + 3
    assert caught.value.run.outcome == "error"


@pytest.mark.server  # starts a local fake API server
def test_a_dripping_server_is_abandoned_at_the_total_deadline(fake):
    fake.queue(Drip(completion_body("x" * 200), every=0.1))  # about 30 s to send in full
    started = time.monotonic()
    with pytest.raises(CallTimedOut, match="1 s in all"):
        model(fake, timeout=1).complete("", [Message("user", "Hi")])
    assert time.monotonic() - started < 3
    fake.queue((200, completion_body("Back."), {}))  # the abandoned client was replaced: the next call works


@pytest.mark.server  # starts a local fake API server
def test_a_context_too_long_for_the_server_is_prompt_too_long(fake):
    too_long = openai_error("the request exceeds the available context size, try increasing it",
                            "exceed_context_size_error", n_prompt_tokens=9000, n_ctx=8192)
    fake.queue((400, too_long, {}))
    with pytest.raises(PromptTooLong) as caught:
        model(fake).complete("", [Message("user", "Hi")])
    assert (caught.value.tokens, caught.value.window) == (9000, 8192)


@pytest.mark.server  # starts a local fake API server
def test_no_key_is_needed_for_a_local_server(fake):
    fake.queue((200, completion_body("Hi."), {}))
    assert model(fake).complete("", [Message("user", "Hi")]).text == "Hi."
    assert SECRET not in json.dumps(fake.requests[0].headers)


@pytest.mark.server  # starts a local fake API server
def test_a_key_is_sent_as_a_bearer_header_and_shown_nowhere(fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake.queue((200, completion_body("Hi."), {}))
    adapter = model(fake)
    run = Agent(adapter, []).run("Hi")
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert not leaks(repr(adapter) + adapter.name + repr(vars(adapter)) + run.to_json())


@pytest.mark.server  # starts a local fake API server
def test_a_server_that_echoes_the_key_in_a_401_puts_it_in_no_error(fake, monkeypatch):
    import openai  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake.queue(EchoAuthorization())
    with pytest.raises(AgentError) as caught:
        Agent(model(fake), []).run("Hi")
    assert isinstance(caught.value.__cause__, openai.AuthenticationError)
    assert "invalid credentials: Bearer [the API key]" in str(caught.value)
    assert not leaks(everything_shown(caught.value) + json.dumps(caught.value.__cause__.body))


def test_a_client_that_cannot_be_built_is_one_line_with_no_key_in_its_frames():
    with pytest.raises(SettingError) as caught:
        OpenAICompatible("m", base_url="http://[::1", api_key=KEY)
    assert "cannot be made" in str(caught.value) and "\n" not in str(caught.value)
    assert not leaks(everything_shown(caught.value))


def test_a_key_with_a_stray_carriage_return_is_refused_without_quoting_it():
    with pytest.raises(MissingAPIKey) as caught:
        OpenAICompatible("m", base_url="http://127.0.0.1:9/v1", api_key=KEY + "\r")
    assert "OPENAI_API_KEY" in str(caught.value) and not leaks(everything_shown(caught.value))


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("reply", [Gzipped(completion_body("ok"), padding=50 * 2**20), Flood(50 * 2**20)],
                         ids=["gzip-bomb", "unannounced"])
def test_a_huge_body_is_cut_off_even_when_it_comes_compressed(fake, monkeypatch, reply):
    monkeypatch.setattr("teachagent.base.http.MAX_REPLY_BYTES", 256 * 2**10)
    fake.queue(reply)
    with pytest.raises(ReplyTooLarge, match="larger than 262,144 bytes"):
        model(fake, timeout=20).complete("", [Message("user", "Hi")])
    assert fake.requests[0].headers.get("accept-encoding") == "identity"


@pytest.mark.server  # starts a local fake API server
def test_a_small_compressed_body_is_read_as_usual(fake):
    fake.queue(Gzipped(completion_body("Fine, compressed."), padding=1000))
    assert model(fake).complete("", [Message("user", "Hi")]).text == "Fine, compressed."


@pytest.mark.server  # starts a local fake API server
def test_a_recording_of_an_openai_compatible_run_replays(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake.queue((200, completion_body(None, [function_call("call_1", "weather", {"city": "Oslo"})], "tool_calls"), {}),
               (200, completion_body("Sunny."), {}))
    recorder = Recorder(model(fake), tmp_path / "c.jsonl")
    recorded = Agent(recorder, [weather]).run("Oslo?")
    recorder.finish()
    replayed = Agent(Player(tmp_path / "c.jsonl"), [weather]).run("Oslo?")
    assert [s.response for s in replayed.steps] == [s.response for s in recorded.steps]
    assert replayed.answer == "Sunny." and not leaks((tmp_path / "c.jsonl").read_text())

"""The `Claude` adapter, driven through the real anthropic SDK against a local fake API.

Nothing is mocked: each test scripts what tests/fake_anthropic.py answers, lets the SDK
do its real HTTP work (request building, retries, parsing), and checks both what our
adapter returns and what went over the wire. No test touches the internet.
"""

from __future__ import annotations

import json

import pytest
from fake_anthropic import RETRY_FAST, FakeAnthropic, error_body, message_body, text_block, tool_use_block

from teachagent.agent import Agent, AgentError
from teachagent.base.errors import PromptTooLong
from teachagent.claude import DEFAULT_MODEL, Claude, MissingAPIKey, UnexpectedReply
from teachagent.cost import PRICES
from teachagent.messages import STOP_REASONS, Message, Text, ToolCall, ToolResult
from teachagent.thinking import OtherBlock
from teachagent.tokens import count_tokens
from teachagent.tools import Tool
from teachagent.usage import Usage

HELLO = [Message("user", "Hello")]


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


def make_claude(fake: FakeAnthropic, *, model: str | None = "claude-test", max_retries: int = 2) -> Claude:
    """A Claude aimed at the fake, with a short timeout so a broken test fails fast."""
    return Claude(model=model, api_key="test-key", base_url=fake.base_url, max_retries=max_retries, timeout=3.0)


def ok(content, stop_reason="end_turn", **kw):
    """A scripted 200 reply."""
    return 200, message_body(content, stop_reason, **kw), {}


def sent(fake: FakeAnthropic) -> dict:
    """The body of the one request the fake received."""
    assert len(fake.requests) == 1
    return fake.requests[0].body


# --- what comes back ---


@pytest.mark.server  # starts a local fake API server
def test_text_reply_becomes_a_response(fake):
    usage = {"input_tokens": 12, "output_tokens": 5, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 2}
    fake.queue(ok([text_block("Hi there")], model="claude-test-20990101", usage=usage))

    reply = make_claude(fake).complete("", HELLO)

    assert reply.content == [Text("Hi there")]
    assert reply.stop_reason == "end_turn"
    assert reply.usage == Usage(12, 5, 3, 2)
    assert reply.model == "claude-test-20990101"


@pytest.mark.server  # starts a local fake API server
def test_null_cache_fields_count_as_zero(fake):
    """The API sends null cache counts when prompt caching was not involved."""
    usage = {"input_tokens": 7, "output_tokens": 1}
    usage |= {"cache_read_input_tokens": None, "cache_creation_input_tokens": None}
    fake.queue(ok([text_block("ok")], usage=usage))

    assert make_claude(fake).complete("", HELLO).usage == Usage(7, 1, 0, 0)


@pytest.mark.server  # starts a local fake API server
def test_tool_use_reply_becomes_a_tool_call(fake):
    fake.queue(ok([text_block("Let me look."), tool_use_block("toolu_1", "read_file", {"path": "a.txt"})], "tool_use"))

    reply = make_claude(fake).complete("", HELLO)

    assert reply.content == [Text("Let me look."), ToolCall("toolu_1", "read_file", {"path": "a.txt"})]
    assert reply.stop_reason == "tool_use"


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("stop_reason", STOP_REASONS)
def test_every_known_stop_reason_is_kept(fake, stop_reason):
    fake.queue(ok([text_block("x")], stop_reason))

    assert make_claude(fake).complete("", HELLO).stop_reason == stop_reason


# --- what goes out ---


@pytest.mark.server  # starts a local fake API server
def test_request_carries_model_system_tools_and_messages_in_api_shape(fake):
    tools = [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}]
    calls = [ToolCall("t1", "read_file", {"path": "a.txt"}), ToolCall("t2", "read_file", {"path": "b.txt"})]
    history = [
        Message("user", "Read a.txt and b.txt"),
        Message("assistant", calls),
        Message("user", [ToolResult("t1", "contents of a"), ToolResult("t2", "no such file", is_error=True)]),
    ]
    fake.queue(ok([text_block("done")]))

    make_claude(fake).complete("You are terse.", history, tools, max_tokens=300)

    assert sent(fake) == {
        "model": "claude-test",
        "max_tokens": 300,
        "system": "You are terse.",
        "tools": tools,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Read a.txt and b.txt"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.txt"}},
                    {"type": "tool_use", "id": "t2", "name": "read_file", "input": {"path": "b.txt"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "contents of a"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "no such file", "is_error": True},
                ],
            },
        ],
    }


@pytest.mark.server  # starts a local fake API server
def test_empty_system_and_no_tools_are_left_out(fake):
    """The API rejects an empty system block, and sending `tools: []` is noise."""
    fake.queue(ok([text_block("hi")]))

    make_claude(fake).complete("", HELLO)

    assert sent(fake) == {
        "model": "claude-test",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}],
    }


@pytest.mark.server  # starts a local fake API server
def test_key_goes_in_a_header_never_in_the_body(fake):
    fake.queue(ok([text_block("hi")]))

    make_claude(fake).complete("", HELLO)

    request = fake.requests[0]
    assert "test-key" not in json.dumps(request.body)
    assert "test-key" in request.headers.get("x-api-key", "") + request.headers.get("authorization", "")


# --- errors and retries (the SDK's job; we check it is really doing it) ---

# status, error type in the body, the name of the SDK exception once retries run out
RETRYABLE = [
    (429, "rate_limit_error", "RateLimitError"),
    (529, "overloaded_error", "OverloadedError"),
    (500, "api_error", "InternalServerError"),
]


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("status, kind", [case[:2] for case in RETRYABLE])
def test_sdk_retries_then_succeeds(fake, status, kind):
    failure = (status, error_body(kind, "try again"), RETRY_FAST)
    fake.queue(failure, failure, ok([text_block("at last")]))

    reply = make_claude(fake, max_retries=2).complete("", HELLO)

    assert reply.text == "at last"
    assert [r.headers["x-stainless-retry-count"] for r in fake.requests] == ["0", "1", "2"]
    assert all(r.body == fake.requests[0].body for r in fake.requests)


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("status, kind, error", RETRYABLE)
def test_sdk_error_propagates_when_retries_run_out(fake, status, kind, error):
    import anthropic  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    error = getattr(anthropic, error)
    failure = (status, error_body(kind, "still failing"), RETRY_FAST)
    fake.queue(failure, failure)

    with pytest.raises(error) as caught:
        make_claude(fake, max_retries=1).complete("", HELLO)

    assert caught.type is error and issubclass(error, anthropic.APIStatusError)
    assert caught.value.status_code == status
    assert len(fake.requests) == 2


@pytest.mark.server  # starts a local fake API server
def test_client_error_is_not_retried(fake):
    import anthropic  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    fake.queue((400, error_body("invalid_request_error", "messages: empty"), {}))

    with pytest.raises(anthropic.BadRequestError):
        make_claude(fake, max_retries=2).complete("", HELLO)

    assert len(fake.requests) == 1


@pytest.mark.server  # starts a local fake API server
def test_a_prompt_too_long_is_the_same_error_a_scripted_model_raises(fake):
    import anthropic  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    message = "prompt is too long: 208656 tokens > 200000 maximum"
    fake.queue((400, error_body("invalid_request_error", message), {}))

    with pytest.raises(PromptTooLong) as caught:
        make_claude(fake, max_retries=2).complete("", HELLO)

    assert (caught.value.tokens, caught.value.window, caught.value.model) == (208656, 200000, "claude-test")
    assert isinstance(caught.value.__cause__, anthropic.BadRequestError)
    assert len(fake.requests) == 1  # a 400 is not retried


@pytest.mark.server  # starts a local fake API server
def test_a_prompt_too_long_in_an_agent_run_keeps_the_partial_run(fake):
    noop = Tool("nothing", "Does nothing.", {"type": "object", "properties": {}}, lambda: "ok")
    fake.queue(ok([tool_use_block("toolu_1", "nothing", {})], "tool_use"),
               (400, error_body("invalid_request_error", "prompt is too long: 200100 tokens > 200000 maximum"), {}))

    with pytest.raises(AgentError) as caught:
        Agent(make_claude(fake), [noop]).run("Go.")

    assert isinstance(caught.value.__cause__, PromptTooLong)
    assert (caught.value.run.outcome, len(caught.value.run.steps)) == ("error", 1)


@pytest.mark.server  # starts a local fake API server
def test_malformed_body_raises_a_clear_error(fake):
    """The SDK lets a 200 whose body is not JSON surface as JSONDecodeError; we name it."""
    fake.queue(b'{"id": "msg_01", "content": [')

    with pytest.raises(UnexpectedReply, match="not JSON"):
        make_claude(fake).complete("", HELLO)

    assert len(fake.requests) == 1


@pytest.mark.server  # starts a local fake API server
def test_unknown_stop_reason_is_an_unexpected_reply(fake):
    fake.queue(ok([text_block("x")], "gave_up"))

    with pytest.raises(UnexpectedReply, match="gave_up"):
        make_claude(fake).complete("", HELLO)


@pytest.mark.server  # starts a local fake API server
def test_an_unknown_block_type_is_kept_not_a_crash(fake):
    """The API adds block types over time; one the course does not know travels on unchanged."""
    fake.queue(ok([text_block("x"), {"type": "hologram", "data": "?"}]))

    reply = make_claude(fake).complete("", HELLO)

    assert reply.text == "x" and reply.unknown_blocks == [OtherBlock({"type": "hologram", "data": "?"})]


@pytest.mark.server  # starts a local fake API server
def test_count_tokens_asks_the_api_and_sends_no_max_tokens(fake):
    fake.counter = lambda body: 4242

    assert make_claude(fake).count_tokens("Be brief.", HELLO, []) == 4242
    assert fake.requests[0].path == "/v1/messages/count_tokens"
    hello = [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}]
    assert sent(fake) == {"model": "claude-test", "system": "Be brief.", "messages": hello}


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan"), True, "5", 1e300])
def test_a_timeout_must_be_a_positive_finite_number(timeout):
    with pytest.raises(ValueError, match="timeout must be a number above 0 and at most 86,400 seconds"):
        Claude("claude-test", api_key="test-key", timeout=timeout)


@pytest.mark.server  # starts a local fake API server
def test_tool_input_that_is_not_an_object_is_an_unexpected_reply(fake):
    fake.queue(ok([tool_use_block("toolu_1", "read_file", ["a.txt"])], "tool_use"))

    with pytest.raises(UnexpectedReply, match="toolu_1"):
        make_claude(fake).complete("", HELLO)


# --- configuration ---


def test_missing_key_is_a_one_line_hint(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)

    with pytest.raises(MissingAPIKey) as caught:
        Claude(model="claude-test")

    message = str(caught.value)
    assert "ANTHROPIC_API_KEY" in message
    assert "\n" not in message


@pytest.mark.server  # starts a local fake API server
def test_env_var_overrides_the_default_model(fake, monkeypatch):
    monkeypatch.setenv("TEACHAGENT_CLAUDE_MODEL", "claude-from-env")
    fake.queue(ok([text_block("hi")]))

    model = make_claude(fake, model=None)
    model.complete("", HELLO)

    assert model.name == "claude-from-env"
    assert sent(fake)["model"] == "claude-from-env"
    assert make_claude(fake, model="claude-explicit").name == "claude-explicit"


@pytest.mark.server  # starts a local fake API server
def test_default_model_is_used_otherwise(fake, monkeypatch):
    monkeypatch.delenv("TEACHAGENT_CLAUDE_MODEL", raising=False)
    fake.queue(ok([text_block("hi")]))

    model = make_claude(fake, model=None)
    model.complete("", HELLO)

    assert model.name == DEFAULT_MODEL
    assert sent(fake)["model"] == DEFAULT_MODEL


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("body", [[1], {**message_body([text_block("x")]), "usage": None}])
def test_a_reply_that_is_not_a_message_is_a_clear_error(fake, body):
    """A JSON list, or a message without usage, must not surface as an AttributeError."""
    fake.queue((200, body, {}))

    with pytest.raises(UnexpectedReply, match="not a message"):
        make_claude(fake).complete("", HELLO)


# --- budgets count with Claude's own tokenizer ---

BIG_TASK = "Summarise this. " + "Sentence number one of a long document. " * 2500  # ~20k tiktoken tokens


@pytest.mark.server  # starts a local fake API server
def test_a_dollar_budget_uses_claudes_count_near_the_long_prompt_price(fake):
    """Our estimate says the call fits the budget; Claude counts the prompt past 100k tokens,
    where every rate is five times higher, so the call must not be made at all."""

    price = PRICES["claude-haiku-5-5"]
    estimate = count_tokens(BIG_TASK)
    fake.counter = lambda body: 100_500  # what Claude's tokenizer says, well above our estimate
    budget = 0.005  # the estimate's worst case fits; the real count's does not
    assert (estimate * price.input + 1024 * price.output) / 1e6 < budget

    run = Agent(make_claude(fake), max_dollars=budget, price=price).run(BIG_TASK)

    assert run.outcome == "max_dollars" and run.steps == []
    assert [r.path for r in fake.requests] == ["/v1/messages/count_tokens"]


@pytest.mark.server  # starts a local fake API server
def test_a_token_budget_is_never_exceeded_live(fake):
    fake.queue(ok([tool_use_block("toolu_1", "nothing", {})], "tool_use", usage={"input_tokens": 700, "output_tokens": 9}))
    fake.counter = lambda body: 700 if len(body["messages"]) == 1 else 760

    noop = Tool("nothing", "Does nothing.", {"type": "object", "properties": {}}, lambda: "ok")
    run = Agent(make_claude(fake), [noop], max_input_tokens=1400).run("Go.")

    assert run.outcome == "max_input_tokens" and len(run.steps) == 1  # 700 read + 760 next > 1400
    assert [r.path for r in fake.requests] == ["/v1/messages/count_tokens", "/v1/messages", "/v1/messages/count_tokens"]


@pytest.mark.server  # starts a local fake API server
def test_without_a_budget_no_count_is_asked_for(fake):
    fake.queue(ok([text_block("hi")]))

    Agent(make_claude(fake)).run("Hello")

    assert [r.path for r in fake.requests] == ["/v1/messages"]

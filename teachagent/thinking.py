"""Blocks a reply may hold that the loop carries but never reads (introduced in notebooks/01_bare_chat.ipynb).

A model that thinks before it answers (Claude's adaptive thinking) may begin its reply
with a `Thinking` block, or a `RedactedThinking` one. Its text is often left out (only a
signature comes back), it is never the answer, and it must be sent back unchanged in the
next request. A block type this course does not know is kept as an `OtherBlock`, word for
word, and sent back the same way rather than dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast


@dataclass
class Thinking:
    """What the model thought before it answered. Never the answer.

    `thinking` is a summary of the reasoning, or "" when the API leaves it out (the
    default for Claude Haiku 5.5). `signature` lets the API check that the block comes
    back unchanged; a changed or dropped thinking block makes the next request fail.
    """

    thinking: str
    signature: str

    def __post_init__(self) -> None:
        if not isinstance(self.thinking, str) or not isinstance(self.signature, str):
            raise TypeError(f"Thinking.thinking and .signature must be str, got {self.thinking!r}, {self.signature!r}")

    def __repr__(self) -> str:
        shown = f"{self.thinking[:40]!r}..." if len(self.thinking) > 40 else repr(self.thinking)
        return f"Thinking(thinking={shown}, signature=<{len(self.signature)} chars>)"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "thinking", "thinking": self.thinking, "signature": self.signature}


@dataclass
class RedactedThinking:
    """Thinking the API hands back encrypted: opaque `data`, returned as it came."""

    data: str

    def __post_init__(self) -> None:
        if not isinstance(self.data, str):
            raise TypeError(f"RedactedThinking.data must be a str, got {type(self.data).__name__}")

    def __repr__(self) -> str:
        return f"RedactedThinking(data=<{len(self.data)} chars>)"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "redacted_thinking", "data": self.data}


@dataclass
class OtherBlock:
    """A content block of a type this course does not know, kept word for word.

    The API adds block types over time. Dropping one would change the conversation the
    model sees; crashing would end a run over something the loop does not need to read.
    So it travels in the history as it came and goes back unchanged.
    """

    data: dict[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.data, dict) or not isinstance(self.data.get("type"), str):
            raise ValueError(f"a content block must be a dict with a str 'type', got {self.data!r}")

    @property
    def type(self) -> str:
        return cast(str, self.data["type"])  # __post_init__ checked that it is a str

    def to_dict(self) -> dict[str, Any]:
        copy: dict[str, Any] = json.loads(json.dumps(self.data))  # a deep copy: what is sent cannot alter what was kept
        return copy

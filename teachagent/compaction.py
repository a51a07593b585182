"""Compaction: dropping tool results the model has already used (introduced in notebooks/06_cost.ipynb).

Every call reads the whole context again, so a tool result that arrived at step k is paid
for at every later call (lesson 6's Z). Once the model has written a step after reading a
result, it has used that result: whatever it took from it is in its own step. `Compaction`
replaces each such result, all but the latest `keep` turns of them, with a one-line note
saying what was dropped, so the later calls read the note instead of the text. What it
costs: the model can no longer see those texts, and to look again it must call the tool
again. It also rewrites an old part of the context, so a cached prefix (prompt caching,
also lesson 6) holds only up to the first note. Give it to an agent as
`Agent(..., compact=Compaction())`. Anthropic's API offers the same idea on its side, as
tool result clearing (`clear_tool_uses_20250919`, one of its context-editing strategies).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base.errors import check_number
from .messages import Message, ToolCall, ToolResult
from .tokens import count_tokens

MARK = "[compacted:"  # how every note begins, for the model to read; a note is known by its type, not by this text


@dataclass
class Note(ToolResult):
    """A tool result that stands for a dropped one: what `Compaction` writes, and all `is_compacted` knows as a note.

    It goes to the model as any tool result does. A tool's own text that begins like a note
    (`MARK`) is still that tool's result: it is compacted like any other once it is old.
    """


@dataclass(frozen=True, repr=False)
class Compaction:
    """A rewrite of the conversation: tool results older than the latest `keep` turns of them become a note."""

    keep: int = 1

    def __post_init__(self) -> None:
        check_number("keep", self.keep, whole=True, at_least=1, at_most=10**6)

    def __repr__(self) -> str:
        return f"Compaction(keep={self.keep})"

    def __call__(self, messages: list[Message]) -> list[Message]:
        """The conversation with old results replaced by notes; `messages` itself is left as it was."""
        turns = [i for i, m in enumerate(messages) if any(isinstance(b, ToolResult) for b in m.content)]
        old = set(turns[: max(len(turns) - self.keep, 0)])
        compacted, changed = [], False
        for i, message in enumerate(messages):
            # a result answers a call of the step just before it: an id used again later names another call
            calls = {b.id: b for b in messages[i - 1].content if isinstance(b, ToolCall)} if i in old and i else {}
            content = [note(b, calls.get(b.tool_use_id)) if i in old and isinstance(b, ToolResult) else b
                       for b in message.content]
            # from the first change on, every message is a new object: a count that continues a list it has
            # seen (base/growing.py checks only its first and last item) then starts again, as it must
            changed = changed or any(a is not b for a, b in zip(content, message.content))
            compacted.append(Message(message.role, content) if changed else message)
        return compacted


def note(result: ToolResult, call: ToolCall | None) -> ToolResult:
    """The note that stands for `result` once it is dropped (the same result if it is a note already).

    It names the tool and the size of what was dropped; the call itself, with its input, stays
    in the model's earlier step, so the note need not repeat what was asked.
    """
    if is_compacted(result):
        return result
    tool = f"this {call.name} result" if call else "this result"
    return Note(result.tool_use_id,
                f"{MARK} {tool}, {count_tokens(result.content):,} tokens, was dropped after it was used; "
                "call the tool again to read it]",
                result.is_error)


def is_compacted(result: ToolResult) -> bool:
    """Whether `result` is a note standing for a dropped result (one `Compaction` wrote, whatever a tool's text says)."""
    return isinstance(result, Note)

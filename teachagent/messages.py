"""The vocabulary of a conversation with a model (introduced in notebooks/01_bare_chat.ipynb).

A model call sends a list of `Message`s and gets back one `Response`. Each message is a
role plus a list of content blocks. Three kinds of block carry the lessons:

- `Text`: words, from the user or from the model;
- `ToolCall`: the model asking for a tool to be run (it only *writes* the request);
- `ToolResult`: what running that tool produced, sent back by our code.

A reply may also hold blocks the loop carries but never reads: a model's thinking, and any
block type the course does not know (thinking.py). What a call read and wrote is a `Usage`
(usage.py).

Text is kept as a saved run or a cassette gives it back (`formats.as_saved`): the two halves
of a surrogate pair written apart are the one character they make, as in any JSON file.

These mirror the shapes of the Anthropic Messages API (`text`, `tool_use`,
`tool_result`, `thinking`, `redacted_thinking`), so `to_dict()` gives exactly what goes
over the wire and `block_from_dict()` reads it back. Nothing here talks to a model; these
are plain records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from .base.formats import as_saved, enum_from_table
from .thinking import OtherBlock, RedactedThinking, Thinking
from .usage import Usage

Role = Literal["user", "assistant"]

# Why a model stopped writing: every value the Messages API can return, what the agent loop
# (notebooks/03_agent_loop.ipynb) does next (its move), and what it means. The moves:
# "continue": run the reply's tool calls and send the grown context back (a reply that asked for
#   its calls' results but wrote no call ends the run, with the stop reason as its outcome);
# "resume": send the conversation back as it is, running any calls the reply holds;
# "answer": the text is the final answer, and the run ends with it;
# "end": the run ends without an answer, with the stop reason as its outcome.
# A new stop reason is one row here: the loop, the run's outcomes and the file formats follow it.
Move = Literal["continue", "resume", "answer", "end"]


class Stop(NamedTuple):
    """One row of STOPS: what the loop does after a reply that stopped this way, and what the stop means."""

    move: Move
    meaning: str


STOPS: dict[str, Stop] = {
    "end_turn": Stop("answer", "the model finished its answer"),
    "tool_use": Stop("continue", "the model wrote one or more tool calls and waits for their results"),
    "max_tokens": Stop("end", "the model's reply was cut at max_tokens"),
    "stop_sequence": Stop("answer", "the model wrote one of the stop sequences we passed"),
    "pause_turn": Stop("resume", "the server paused a long turn; send the conversation back to resume it"),
    "refusal": Stop("end", "the model refused"),
    "model_context_window_exceeded": Stop("end", "the reply was cut where the model's context window ends"),
}
STOP_REASONS: tuple[str, ...] = tuple(STOPS)  # as the API documents them; a row added later counts too (Response)
enum_from_table(f"{__name__}.STOPS", STOPS)  # the stop reasons a saved run or a cassette may hold (base/formats.py)
StopReason = str  # a key of STOPS: a Response with any other is refused when it is made

MAX_TOKENS = 1024  # the reply length every model call allows unless told otherwise

@dataclass
class Text:
    """Plain text written by the user or by the model."""

    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Text.text must be a str, got {type(self.text).__name__}: {self.text!r}")
        self.text = as_saved(self.text)  # as a saved run or a cassette gives it back (base/formats.py)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass
class ToolCall:
    """The model's request to run tool `name` with `input`. Nothing has run yet.

    `unparsed` holds the arguments as the model wrote them when they were not a JSON object
    (a small model behind an OpenAI-compatible server writes that often); `input` is then
    empty, and the dispatcher answers the call with an error the model can read.
    """

    id: str
    name: str
    input: dict[str, Any]
    unparsed: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"ToolCall.name must be a non-empty str, got {self.name!r}")
        if not isinstance(self.input, dict):
            raise TypeError(f"ToolCall.input must be a dict, got {type(self.input).__name__}: {self.input!r}")
        if self.unparsed is not None and not isinstance(self.unparsed, str):
            raise TypeError(f"ToolCall.unparsed must be a str or None, got {type(self.unparsed).__name__}")

    def __repr__(self) -> str:
        shown = f"ToolCall(id={self.id!r}, name={self.name!r}, input={self.input!r}"
        return shown + (f", unparsed={self.unparsed!r})" if self.unparsed is not None else ")")

    def to_dict(self) -> dict[str, Any]:
        d = {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}
        if self.unparsed is not None:
            d["unparsed_input"] = self.unparsed
        return d


@dataclass
class ToolResult:
    """What our code sends back for the `ToolCall` whose id is `tool_use_id`.

    `is_error=True` tells the model the call failed (unknown tool, bad input, the tool
    raised); the model reads the message in `content` and can try again.
    """

    tool_use_id: str
    content: str
    is_error: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise TypeError(
                f"ToolResult.content must be a str (the model reads text), got {type(self.content).__name__}"
            )
        self.content = as_saved(self.content)  # as a saved run or a cassette gives it back (base/formats.py)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": self.content}
        if self.is_error:
            d["is_error"] = True
        return d


Block = Text | ToolCall | ToolResult | Thinking | RedactedThinking | OtherBlock
_BLOCK_TYPES = (Text, ToolCall, ToolResult, Thinking, RedactedThinking, OtherBlock)
# What a model may write: everything but a tool result, which only our code writes.
_MODEL_BLOCKS = (Text, ToolCall, Thinking, RedactedThinking, OtherBlock)


def block_from_dict(d: dict[str, Any]) -> Block:
    """Read one content block in the Messages API shape back into our types.

    A type we do not know becomes an `OtherBlock` holding the dict as it is.
    """
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        raise ValueError(f"a content block must be a dict with a 'type' key, got {d!r}")
    kind = d["type"]
    if kind == "text":
        return Text(d["text"])
    if kind == "tool_use":
        return ToolCall(d["id"], d["name"], d["input"], d.get("unparsed_input"))
    if kind == "tool_result":
        return ToolResult(d["tool_use_id"], d["content"], bool(d.get("is_error", False)))
    if kind == "thinking":
        return Thinking(d["thinking"], d["signature"])
    if kind == "redacted_thinking":
        return RedactedThinking(d["data"])
    return OtherBlock(dict(d))


@dataclass(init=False)
class Message:
    """One turn of the conversation: who speaks (`role`) and what they say (`content`).

    `Message("user", "hi")` is shorthand for `Message("user", [Text("hi")])`, and a single
    block needs no list either. Whatever it was given, `content` is always a list of blocks.
    """

    role: Role
    content: list[Block]

    def __init__(self, role: Role, content: str | Block | Sequence[Block]) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(
                f"role must be 'user' or 'assistant', got {role!r} "
                "(the system prompt is not a message: pass it as `system`)"
            )
        if isinstance(content, str):
            content = [Text(content)]
        elif isinstance(content, _BLOCK_TYPES):
            content = [content]
        elif not isinstance(content, (list, tuple)):
            raise TypeError(f"content must be a str or a list of blocks, got {type(content).__name__}")
        for block in content:
            if not isinstance(block, _BLOCK_TYPES):
                raise TypeError(
                    f"content blocks must be Text, ToolCall, ToolResult or another block of this module, got {block!r} "
                    "(read an API dict with block_from_dict first)"
                )
        self.role = role
        self.content = list(content)

    @property
    def text(self) -> str:
        """All the text blocks of this message, joined."""
        return "".join(b.text for b in self.content if isinstance(b, Text))

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": [b.to_dict() for b in self.content]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Message:
        content = d["content"]
        if isinstance(content, str):
            return cls(d["role"], content)
        return cls(d["role"], [block_from_dict(b) for b in content])


@dataclass
class Response:
    """What one model call returns: the blocks it wrote, why it stopped, what it cost."""

    content: list[Block]
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.model, str):  # a saved run, --json and a cassette store the model's name as text
            raise TypeError(f"Response.model must be a str (the model's name), got {type(self.model).__name__}")
        if not isinstance(self.stop_reason, str) or self.stop_reason not in STOPS:
            raise ValueError(f"unknown stop_reason {self.stop_reason!r}; expected one of {', '.join(STOPS)}")
        self.content = list(self.content)
        for block in self.content:
            if not isinstance(block, _MODEL_BLOCKS):
                raise TypeError(f"a model writes Text, ToolCall and thinking blocks, never {block!r}")

    @property
    def text(self) -> str:
        """The text the model wrote, all text blocks joined; thinking is never part of it."""
        return "".join(b.text for b in self.content if isinstance(b, Text))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls the model wrote, in order."""
        return [b for b in self.content if isinstance(b, ToolCall)]

    @property
    def thoughts(self) -> list[Thinking | RedactedThinking]:
        """The thinking blocks the model wrote before its answer or its calls."""
        return [b for b in self.content if isinstance(b, (Thinking, RedactedThinking))]

    @property
    def unknown_blocks(self) -> list[OtherBlock]:
        """Blocks of a type this course does not know, kept and sent back unchanged."""
        return [b for b in self.content if isinstance(b, OtherBlock)]

    def to_message(self) -> Message:
        """The response as the assistant turn that goes into the history."""
        return Message("assistant", list(self.content))

    def to_dict(self) -> dict[str, Any]:
        return {
            "content": [b.to_dict() for b in self.content],
            "stop_reason": self.stop_reason,
            "usage": self.usage.to_dict(),
            "model": self.model,
        }

    def copy(self) -> Response:
        """This reply made again through the constructors, which check it again, sharing nothing with it: each
        call's input copied as a saved run gives it back. What the loop keeps of a reply (base/replies.py)."""
        return Response([ToolCall(b.id, b.name, as_saved(b.input), b.unparsed) if isinstance(b, ToolCall)
                         else block_from_dict(b.to_dict()) for b in self.content],
                        self.stop_reason, Usage(**self.usage.to_dict()), self.model)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Response:
        return cls(
            [block_from_dict(b) for b in d["content"]],
            d["stop_reason"],
            Usage.from_dict(d.get("usage", {})),
            d.get("model", ""),
        )


def show(messages: list[Message]) -> str:
    """The conversation as the JSON the API receives, a message a line, for printing in a lesson."""
    return "[\n" + ",\n".join("  " + json.dumps(m.to_dict(), ensure_ascii=False) for m in messages) + "\n]"

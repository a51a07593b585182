"""The vocabulary of a conversation with a model (introduced in notebooks/01_bare_chat.ipynb).

A model call sends a list of `Message`s and gets back one `Response`. Each message is a
role plus a list of content blocks. Three kinds of block carry the lessons:

- `Text`: words, from the user or from the model;
- `ToolCall`: the model asking for a tool to be run (it only *writes* the request);
- `ToolResult`: what running that tool produced, sent back by our code.

A model that thinks before it answers (Claude's adaptive thinking) may begin its reply
with a `Thinking` block, or a `RedactedThinking` one. Its text is often left out (only a
signature comes back), it is never the answer, and it must be sent back unchanged in the
next request. A block type this course does not know is kept as an `OtherBlock`, word for
word, and sent back the same way rather than dropped.

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
from typing import TYPE_CHECKING, Any, Literal, cast

from .base.display import shorten
from .base.errors import CourseError, SettingError, check_number, exception_text
from .base.formats import as_saved, enum_from_table, unstorable

if TYPE_CHECKING:
    from .answers import AnswerForm

Role = Literal["user", "assistant"]

# Why a model stopped writing: every value the Messages API can return, what the agent loop
# (notebooks/03_agent_loop.ipynb) does next, and what it means. The loop does one of three things:
# "continue" (run the tool calls, send the grown context back), "answer" (the text is the final
# answer), or "end" (the run ends without an answer, with the stop reason as its outcome).
# A new stop reason is one row here: the loop, STOP_REASONS, the run's outcomes and the file formats follow it.
Next = Literal["continue", "answer", "end"]
STOPS: dict[str, tuple[Next, str]] = {
    "end_turn": ("answer", "the model finished its answer"),
    "tool_use": ("continue", "the model wrote one or more tool calls and waits for their results"),
    "max_tokens": ("end", "the model's reply was cut at max_tokens"),
    "stop_sequence": ("answer", "the model wrote one of the stop sequences we passed"),
    "pause_turn": ("continue", "the server paused a long turn; send the conversation back to resume"),
    "refusal": ("end", "the model refused"),
    "model_context_window_exceeded": ("end", "the reply was cut where the model's context window ends"),
}
STOP_REASONS: tuple[str, ...] = tuple(STOPS)
enum_from_table(f"{__name__}.STOPS", STOPS)  # the stop reasons a saved run or a cassette may hold (base/formats.py)
StopReason = str  # one of STOP_REASONS: a Response with any other is refused when it is made

MAX_TOKENS = 1024  # the reply length every model call allows unless told otherwise

# What a request lets the model do with its tools (notebooks/02_tools.ipynb): "auto" (it decides), "any"
# (it must call one), "none" (it must not call any), or a tool's name (it must call that tool). Each API
# spells it its own way; `tool_choice_field` is the Messages API's, which request_body and a cassette use.
TOOL_CHOICES = ("auto", "any", "none")
ToolChoice = str  # one of TOOL_CHOICES or the name of a tool the request offers


def check_tool_choice(choice: object, tools: Sequence[dict[str, Any]]) -> ToolChoice:
    """`choice` if a request offering `tools` can carry it; else one `SettingError` saying what it can be."""
    names = [t["name"] for t in tools]
    if choice in ("auto", "none") or (choice == "any" and names) or (isinstance(choice, str) and choice in names):
        return cast(str, choice)
    if choice == "any":
        raise SettingError("tool_choice 'any' makes the model call a tool, but this request offers none")
    offered = f"or a tool's name ({', '.join(map(repr, names))})" if names else "(this request offers no tools to name)"
    raise SettingError(f"tool_choice must be 'auto', 'any', 'none' {offered}; got {shorten(repr(choice), 60)}")


def tool_choice_problem(choice: ToolChoice, calls: Sequence[ToolCall]) -> str | None:
    """Why a reply with `calls` breaks `choice`, in words; None if it keeps it (every API holds its model to it)."""
    if choice == "none" and calls:
        return f"it calls {calls[0].name}, but tool_choice 'none' allows no tool call"
    if choice == "any" and not calls:
        return "it calls no tool, but tool_choice 'any' requires a call"
    if choice not in TOOL_CHOICES and (not calls or any(c.name != choice for c in calls)):
        return f"tool_choice {choice!r} requires a call to {choice} and nothing else"
    return None


def tool_choice_field(choice: ToolChoice) -> dict[str, str]:
    """`choice` as the Messages API writes it: {"type": "any"}, or {"type": "tool", "name": ...} for a tool."""
    return {"type": choice} if choice in TOOL_CHOICES else {"type": "tool", "name": choice}


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
class Usage:
    """Tokens one call read and wrote. Usages add up, so a run's total is `sum(...)`.

    With prompt caching, the API reports the cached part of the input separately:
    `cache_creation_input_tokens` were written to the cache on this call and
    `cache_read_input_tokens` were read from it; `input_tokens` is the rest.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )

    def __radd__(self, other: object) -> Usage:
        # lets sum(usages) start from its default 0
        if other == 0:
            return self
        return NotImplemented

    @property
    def total_input_tokens(self) -> int:
        """Everything the model read on this call, cached or not."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens

    def read_at_least(self, c_k: int) -> Usage:
        """This usage with what it reports below our count `c_k` added as uncached input: a call read at least c_k.

        The budget counts a call this way (budget.py) and so does its price (cost.py), so a
        server that reports less than the request holds is never billed below the Z beside it.
        """
        short = c_k - self.total_input_tokens
        return self if short <= 0 else Usage(self.input_tokens + short, self.output_tokens,
                                             self.cache_read_input_tokens, self.cache_creation_input_tokens)

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Usage:
        return cls(**{k: int(d.get(k) or 0) for k in cls().to_dict()})


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
        if not isinstance(self.stop_reason, str) or self.stop_reason not in STOP_REASONS:
            raise ValueError(f"unknown stop_reason {self.stop_reason!r}; expected one of {', '.join(STOP_REASONS)}")
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

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Response:
        return cls(
            [block_from_dict(b) for b in d["content"]],
            d["stop_reason"],
            Usage.from_dict(d.get("usage", {})),
            d.get("model", ""),
        )


def latest_results(messages: list[Message]) -> list[ToolResult]:
    """The tool results in the last message: what a scripted policy reacts to."""
    if not messages:
        return []
    return [b for b in messages[-1].content if isinstance(b, ToolResult)]


def tool_exchanges(messages: list[Message]) -> list[tuple[ToolCall, ToolResult]]:
    """Every tool call so far with the result that came back for it, in order: all a policy has seen."""
    calls = {b.id: b for m in messages for b in m.content if isinstance(b, ToolCall)}
    return [(calls[b.tool_use_id], b) for m in messages for b in m.content
            if isinstance(b, ToolResult) and b.tool_use_id in calls]


def request_body(
    model: str, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
    tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
) -> dict[str, Any]:
    """One request as plain JSON data, in the Messages API's shape these types mirror.

    Claude's adapter sends exactly this; a cassette records it for every model (Claude, an
    OpenAI-compatible server, the local model), so a recording has one shape whoever answered.
    The defaults are left out (tool_choice "auto", no answer form), as the API assumes them.
    """
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": [m.to_dict() for m in messages]}
    if system:
        body["system"] = system
    if tools:
        body["tools"] = list(tools)
    if check_tool_choice(tool_choice, tools) != "auto" and tools:
        body["tool_choice"] = tool_choice_field(tool_choice)
    if answer_form is not None:
        body["output_config"] = {"format": {"type": "json_schema", "schema": answer_form.wire_schema}}
    return body


def answer_text(value: Any) -> str:
    """An answer's text: a string as it is, any other value (held to a form, answers.py) as its JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def unwrapped_answer(written: str) -> str:
    """The answer inside a reply written to an answer form's `wire_schema` (`{"answer": ...}`); else `written` as it is."""
    try:
        value = json.loads(written)
    except (ValueError, RecursionError):
        return written
    return answer_text(value["answer"]) if isinstance(value, dict) and list(value) == ["answer"] else written


def show(messages: list[Message]) -> str:
    """The conversation as the JSON the API receives, a message a line, for printing in a lesson."""
    return "[\n" + ",\n".join("  " + json.dumps(m.to_dict(), ensure_ascii=False) for m in messages) + "\n]"


# --- What the loop can take as a step -------------------------------------------------
# A Response checks its blocks and stop reason when it is made. What it cannot check is a
# reply that is not a Response at all (a model written by hand returns all sorts at first),
# usage counts that are not counts, and tool input a saved run could not hold.


class BadReply(CourseError, TypeError):
    """A model returned something the loop cannot use (a model written by hand often does, at first)."""


MAX_COUNT = 10**15  # a usage count past this is no count of anything (the saved-run schema's limit)


def checked_reply(response: object) -> Response:
    """A frozen copy of `response` if the loop can use it as a step and a saved run can hold it; a `BadReply`
    saying what is wrong otherwise.

    The Response type checks its own blocks and stop reason when it is made; what it cannot
    check is a reply that is not a Response at all, usage counts that are not counts, and
    tool input that cannot be written as JSON (to count it, to send it back, to save it):
    NaN, the infinities, numbers of over 300 digits, nesting deeper than MAX_INPUT_DEPTH (base/formats.py).
    A stand-in block whose fields raise when read is a BadReply too.

    What the loop keeps is a copy, made through JSON as a saved run would read it back: a model
    that changes the reply it returned (a call's input turned into a list) changes nothing the
    loop runs or saves, and the copy's text is as a file gives it back (`formats.as_saved`).
    """
    if not isinstance(response, Response):
        raise BadReply(f"Model.complete must return a Response, got {type(response).__name__}: {shorten(repr(response), 100)}")
    try:
        _check_usage(response.usage)
        for block in response.tool_calls:
            _check_tool_call(block)
        # ensure_ascii writes each half of a surrogate pair as an escape, and json.loads joins two of them, as a file would
        return Response.from_dict(json.loads(json.dumps(response.to_dict())))
    except BadReply:
        raise
    except Exception as error:  # a property of a stand-in object that raises
        raise BadReply(f"the reply could not be read: {exception_text(error)}") from None


def _check_usage(usage: object) -> None:
    if not isinstance(usage, Usage):
        raise BadReply(f"a Response's usage must be a Usage, got {type(usage).__name__}: {shorten(repr(usage), 100)}")
    for name, value in usage.to_dict().items():
        if type(value) is not int or value < 0:  # the quick test; check_number words the refusal
            try:
                check_number(f"usage.{name}", value, whole=True, at_least=0)
            except SettingError as error:
                raise BadReply(str(error)) from None
        if value > MAX_COUNT:
            raise BadReply(f"usage.{name} is {value:.3g}, more than any call reads or writes ({MAX_COUNT:.0e})")


def _check_tool_call(block: ToolCall) -> None:
    if not isinstance(block.id, str):
        raise BadReply(f"a tool call's id must be a str, got {type(block.id).__name__}: {shorten(repr(block.id), 100)}")
    problem = unstorable(block.input)
    if problem:
        raise BadReply(f"the input of tool call {shorten(block.id, 60)!r} cannot be written as JSON and saved: {problem}")

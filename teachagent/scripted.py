"""A model that plays a script, for lessons that run offline (introduced in notebooks/01_bare_chat.ipynb).

`ScriptedModel` is a `Model` that plays a script instead of thinking. Each step of the
script is a fixed reply or a function of the conversation so far (a *policy*), so a
scripted agent can read what a tool returned and build its next step from it. It is
scripted and says so everywhere it appears; everything around it (tools, token counts,
costs) is real. `latest_results` and `tool_exchanges` are what a policy reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from .base.errors import CourseError, check_number
from .base.growing import GrowingCount
from .messages import MAX_TOKENS, Message, Response, StopReason, Text, ToolCall, ToolResult
from .models import Model
from .requests import ToolChoice, check_tool_choice, tool_choice_problem
from .thinking import OtherBlock, RedactedThinking, Thinking
from .tokens import block_tokens, context_tokens, encoding, message_tokens
from .usage import Usage

if TYPE_CHECKING:
    from .answers import AnswerForm


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


# A script step: a fixed reply, or a function of the conversation that returns one.
Reply = Union[str, Text, ToolCall, Thinking, list[Any], Response]  # noqa: UP007 (str | ... fails at run time on Python 3.10)
Policy = Callable[[list[Message]], Reply]  # a function of the conversation that returns a reply
ScriptStep = Union[Reply, Policy]  # noqa: UP007


class ScriptExhausted(CourseError, RuntimeError):
    """The scripted model was asked for more steps than its script has."""


class ScriptBreaksToolChoice(CourseError, RuntimeError):
    """A step of the script does what the request's tool_choice forbids (an API never lets its model do that)."""


def call(tool: str, /, **input: Any) -> ToolCall:
    """A script step that calls `tool` with `input`: `call("read_file", path="notes.txt")`.

    The id is left empty; the scripted model gives each call a unique one when it plays it.
    """
    return ToolCall("", tool, input)


def _as_response(reply: Reply) -> Response:
    """Turn a script step's reply into a Response (usage is filled in later)."""
    if isinstance(reply, Response):
        return Response(list(reply.content), reply.stop_reason)
    if isinstance(reply, str):
        reply = [Text(reply)]
    elif isinstance(reply, (Text, ToolCall, Thinking, RedactedThinking, OtherBlock)):
        reply = [reply]
    if not isinstance(reply, list):
        raise TypeError(
            f"a script step must give a str, Text, ToolCall, Thinking, a list of them or a Response, got {reply!r}"
        )
    stop: StopReason = "tool_use" if any(isinstance(b, ToolCall) for b in reply) else "end_turn"
    return Response(reply, stop)


def _cut_to(content: list[Any], max_tokens: int) -> list[Any]:
    """Keep what fits in `max_tokens`, as the API does when a reply runs over."""
    kept, budget = [], max_tokens
    for block in content:
        n = block_tokens(block)
        if n <= budget:
            kept.append(block)
            budget -= n
            continue
        if isinstance(block, (Text, Thinking)) and budget > 0:
            written = block.text if isinstance(block, Text) else block.thinking
            ids = encoding().encode(written, disallowed_special=())[:budget]
            text = encoding().decode(ids, errors="ignore")  # drop a character cut in half
            if text:
                kept.append(Text(text) if isinstance(block, Text) else Thinking(text, block.signature))
        break  # a tool call that does not fit entirely is lost
    return kept


@dataclass(repr=False)
class ScriptedModel(Model):
    """A stand-in for a language model that plays `script`, one step per call.

    `script` is a list of steps, played in order; or a single function of the
    conversation (a *policy*), consulted on every call and never used up. Offline lessons
    use it so they run with no key, no network and the same output every time. Its `usage`
    is real: tiktoken counts of what it was sent and what it wrote. A reply longer than
    `max_tokens` is cut there, with stop reason `max_tokens`, as the API does.
    """

    script: list[ScriptStep] | Policy
    name: str = "scripted"
    scripted: bool = field(default=True, init=False, repr=False)  # what every run it plays says about it
    played: int = field(default=0, init=False)
    _calls: int = field(default=0, init=False)
    _counted: GrowingCount = field(default_factory=GrowingCount, init=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.script, (str, Text, Response, ToolCall)):
            self.script = [self.script]
        if not callable(self.script):
            self.script = list(self.script)

    def __repr__(self) -> str:
        return f"ScriptedModel(name={self.name!r}, {self.describe()}, played={self.played})"

    def describe(self) -> str:
        """What this model plays, in a few words."""
        if callable(self.script):
            return f"policy={getattr(self.script, '__name__', 'policy')}"
        return f"steps={len(self.script)}"

    def reset(self) -> None:
        """Start the script again from its first step."""
        self.played = 0
        self._calls = 0
        self._counted = GrowingCount()

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        """The script's next step as a reply. It must keep `tool_choice`, as a real API's model does; `answer_form`
        is not enforced (the script wrote its answers already): the agent checks every final reply against it."""
        check_number("max_tokens", max_tokens, whole=True, at_least=1)
        check_tool_choice(tool_choice, tools)
        if not callable(self.script) and self.played >= len(self.script):
            raise ScriptExhausted(
                f"ScriptedModel {self.name!r} has {len(self.script)} steps and was asked for step "
                f"{self.played + 1}. Add steps to the script, or call .reset() to play it again."
            )
        read = self._read(system, messages, tools)
        step = self.script if callable(self.script) else self.script[self.played]
        self.played += 1
        reply = step(list(messages)) if callable(step) else step
        response = _as_response(reply)
        if broken := tool_choice_problem(tool_choice, response.tool_calls):
            raise ScriptBreaksToolChoice(f"step {self.played} of {self.name!r} cannot be played: {broken}")

        content = [self._with_id(b) for b in response.content]
        stop_reason = response.stop_reason
        if sum(block_tokens(b) for b in content) > max_tokens:  # cut where max_tokens ends
            stop_reason = "max_tokens"
            content = _cut_to(content, max_tokens)
        usage = Usage(input_tokens=read, output_tokens=sum(block_tokens(b) for b in content))
        return Response(content, stop_reason, usage, self.name)

    def _read(self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]]) -> int:
        """c_k, what this call reads: always `context_tokens(system, messages, tools)`, counted cheaply.

        An agent's conversation only grows, so when this call continues the last one's,
        only the new messages are counted, the way the loop grows its c_k, and a step
        costs the same at K = 1000 as at K = 10 (base/growing.py keeps the count). Any
        other context is counted from scratch. Like the loop, this takes a message as
        fixed once it has been sent: a message changed in place later is not counted again.
        """
        return self._counted.count((system, list(tools)), messages, lambda: context_tokens(system, (), tools), message_tokens)

    def _with_id(self, block: Any) -> Any:
        """A copy of a tool call with a fresh, predictable id (toolu_001, toolu_002, ...)."""
        if not isinstance(block, ToolCall) or block.id:
            return block
        self._calls += 1
        return ToolCall(f"toolu_{self._calls:03d}", block.name, dict(block.input))

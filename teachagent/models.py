"""What a model is to our code, and a scripted one for offline lessons (notebooks/01_bare_chat.ipynb).

To the rest of teachagent a model is anything with a `name` and a
`complete(system, messages, tools, max_tokens, tool_choice="auto", answer_form=None) -> Response`
method. It keeps no state between calls: whatever it should know must be in the arguments
of that one call. `tool_choice` says what it may do with the tools ("auto", "any", "none" or
a tool's name, notebooks/02_tools.ipynb); `answer_form`, if given, is the form its final
answer must take (answers.py). A model written with only the first four parameters still
serves every request that leaves those two at their defaults (`call_model`).

`ScriptedModel` is such a model that plays a script instead of thinking. Each step of
the script is a fixed reply or a function of the conversation so far, so a scripted
agent can read what a tool returned and build its next step from it. It is scripted
and says so everywhere it appears; everything around it (tools, token counts, costs)
is real. `teachagent.course.modes.select_model` picks a lesson's model from its mode: this scripted
one (the default), the small local model, a live one (Claude or an OpenAI-compatible server), or
a recording of one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Union, runtime_checkable

from .base.errors import CourseError, check_number
from .base.growing import GrowingCount
from .messages import (
    MAX_TOKENS,
    Message,
    OtherBlock,
    RedactedThinking,
    Response,
    StopReason,
    Text,
    Thinking,
    ToolCall,
    ToolChoice,
    Usage,
    check_tool_choice,
    tool_choice_problem,
)
from .tokens import block_tokens, context_tokens, encoding, message_tokens

if TYPE_CHECKING:
    from .answers import AnswerForm


@runtime_checkable
class Model(Protocol):
    """Anything that turns one context into one response: a `name` and `complete`.

    A model may also say three things about itself; one that subclasses `Model` inherits
    these defaults, and `is_scripted`, `own_count` and `suggested_steps` read them from any model:
    - `scripted`: it is a stand-in that plays a script, so every run it plays says so (False);
    - `step_budget`: the step budget it suggests for the course's agents, e.g. fewer steps for
      a slow local model (None: the agent's own);
    - `count_tokens(system, messages, tools)`: its own exact count of what a call would read
      (None: it has none, and the budgets estimate, budget.py).
    """

    name: str
    scripted: bool = False
    step_budget: int | None = None

    def count_tokens(self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = ()) -> int | None:
        return None

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response: ...


def is_scripted(model: Model) -> bool:
    """Whether `model` is a scripted stand-in: every run, view and budget asks this one question, so that a
    scripted run can never pass for a real model's (a model that does not say is not one)."""
    return getattr(model, "scripted", False) is True


def own_count(model: Model, system: str, messages: list[Message], tools: Sequence[dict[str, Any]]) -> int | None:
    """The model's own count of what this call would read (Claude asks its API), or None if it has none."""
    counter = getattr(model, "count_tokens", None)
    return counter(system, messages, tools) if callable(counter) else None


def suggested_steps(model: Model) -> int | None:
    """The step budget the model suggests for the course's agents, or None if it suggests none."""
    budget = getattr(model, "step_budget", None)
    return budget if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0 else None


def call_model(
    model: Model, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
    tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
) -> Response:
    """`model.complete(...)`, with `tool_choice` and `answer_form` passed only when they are not the defaults:
    a model written with four parameters still serves every request that needs neither."""
    settings: dict[str, Any] = {}
    if tool_choice != "auto":
        settings["tool_choice"] = tool_choice
    if answer_form is not None:
        settings["answer_form"] = answer_form
    return model.complete(system, messages, tools, max_tokens, **settings)


# A script step: a fixed reply, or a function of the conversation that returns one.
Reply = Union[str, Text, ToolCall, Thinking, list[Any], Response]  # noqa: UP007 (str | ... fails at run time on Python 3.10)
Policy = Callable[[list[Message]], Reply]  # a function of the conversation that returns a reply
ScriptStep = Union[Reply, Policy]  # noqa: UP007


class ScriptExhausted(CourseError, RuntimeError):
    """The scripted model was asked for more steps than its script has."""


class ScriptBreaksToolChoice(CourseError, RuntimeError):
    """A step of the script does what the request's tool_choice forbids (an API never lets its model do that)."""


class PromptTooLong(CourseError, ValueError):
    """The context alone is larger than the model's context window, so the call is refused (window.py, lesson 4).

    The Messages API answers such a request with HTTP 400 (invalid_request_error, "prompt is
    too long: N tokens > W maximum") and the model never reads it: there is no reply and no
    stop reason. `tokens` and `window` are None when the API's message did not give them.
    """

    def __init__(self, tokens: int | None, window: int | None, model: str) -> None:
        self.tokens, self.window, self.model = tokens, window, model
        counts = f": {tokens} tokens > {window} maximum" if tokens is not None and window is not None else ""
        super().__init__(
            f"prompt is too long for {model}{counts}. The model read nothing; send a shorter context "
            "(an excerpt instead of a whole document, a sub-agent, fewer old tool results)"
        )


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

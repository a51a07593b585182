"""You are the model: a learner plays M inside the real loop (notebooks/03_agent_loop.ipynb).

`HumanModel` is a `Model` like any other, except that a person writes its replies. Each
call shows exactly what a model would read (the system prompt, the tool specs, every
message so far, and c_k in tokens), then takes the reply:

- plain text is a final answer;
- a line `call NAME {"json": "input"}` is a tool call (several such lines, several calls).

Everything around it is real: the dispatcher runs or refuses the call, a call with bad
input comes back as an error result, the step budget ends the run, and the `Run` records
it all. Only a reply that is not a reply at all (empty, or a `call` line whose input is
not a JSON object, or too long for `max_tokens`) is sent back to the person to fix, the
way an API would refuse it, and costs no step.

Three ways to play:
- in a terminal, `HumanModel()` asks with `input()` (`python -m teachagent --human`);
- in JupyterLab, `play(agent, task)` (widgets.py) shows a widget and runs the loop on a
  helper thread, so the kernel stays free to receive the button's clicks (a cell that
  blocks on `input()` or a busy loop would never see them);
- `HumanModel(answers=[...])` plays prepared replies, printing each page and answer as if
  typed: how a lesson's "you are the model" section runs when nobody is there to type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .base.errors import CourseError
from .messages import MAX_TOKENS, Block, Message, Response, StopReason, Text, ToolCall, ToolResult, Usage
from .tokens import block_tokens, context_tokens

HOW_TO_REPLY = 'your reply: text for a final answer, or one line per tool call: call NAME {"json": "input"}'


class NotAReply(ValueError):
    """What the person typed cannot be sent as a model's reply; they are asked again."""


class StoppedPlaying(CourseError):
    """The person playing the model ended their input (Ctrl-D) before the run ended."""


def ask_in_terminal(page: str, problem: str | None) -> str:
    """Print the page (or, on a second try, only what to fix) and read one reply; a blank line ends it."""
    print(f"not sent: {problem}" if problem else f"{page}\n(an empty line ends your reply)", flush=True)
    try:
        lines = [input("> ")]
        while lines[-1].strip():
            lines.append(input("  "))
    except EOFError:
        raise StoppedPlaying("you stopped playing the model (end of input) before the run ended") from None
    return "\n".join(lines)


def context_page(system: str, messages: list[Message], tools: list[dict[str, Any]]) -> str:
    """Everything the model reads on this call, as plain text, headed by c_k."""
    k = 1 + sum(m.role == "assistant" for m in messages)
    lines = [f"=== call {k}: the model reads c_{k} = {context_tokens(system, messages, tools)} tokens ==="]
    lines.append(f"[system]\n{system or '(none)'}")
    for spec in tools:
        lines.append(f"[tool] {spec['name']}: {spec['description']}\n  input schema: {json.dumps(spec['input_schema'])}")
    for message in messages:
        for block in message.content:
            lines.append(f"[{message.role}] {_describe(block)}")
    lines.append(f"=== {HOW_TO_REPLY} ===")
    return "\n".join(lines)


def _describe(block: Any) -> str:
    if isinstance(block, Text):
        return block.text
    if isinstance(block, ToolCall):
        return f"call {block.name} {json.dumps(block.input, ensure_ascii=False)}   (id {block.id})"
    if isinstance(block, ToolResult):
        flag = "ERROR " if block.is_error else ""
        return f"{flag}result for {block.tool_use_id}:\n{block.content}"
    return f"({type(block).__name__}, kept and sent back unchanged)"


def parse_reply(typed: str) -> list[Text | ToolCall]:
    """The blocks of a typed reply: `call NAME {...}` lines become tool calls, the rest is text.

    The ids are left empty; `HumanModel` numbers them. Raises `NotAReply` with what to fix.
    """
    if not isinstance(typed, str) or not typed.strip():
        raise NotAReply("an empty reply cannot be sent; write an answer, or a line: " + 'call NAME {"json": "input"}')
    blocks: list[Text | ToolCall] = []
    text: list[str] = []
    for line in typed.strip().splitlines():
        if line.strip().split(" ", 1)[0] != "call":
            text.append(line)
            continue
        name, _, raw = line.strip()[len("call"):].strip().partition(" ")
        try:
            tool_input = json.loads(raw or "{}")
        except json.JSONDecodeError as error:
            raise NotAReply(f"the input of `call {name}` is not valid JSON ({error.msg} at character {error.pos}); "
                            'write it like {"path": "notes.txt"}') from None
        if not name or not isinstance(tool_input, dict):
            raise NotAReply(f"`{line.strip()[:80]}` needs a tool name and a JSON object: " + 'call NAME {"key": "value"}')
        blocks.append(ToolCall("", name, tool_input))
    if text and "\n".join(text).strip():
        blocks.insert(0, Text("\n".join(text).strip()))
    return blocks


@dataclass(repr=False)
class HumanModel:
    """A model whose replies a person writes.

    `ask(page, problem)` shows the page (and, when the last reply could not be sent, what to
    fix) and returns what was typed. With `answers`, it plays those replies in order instead
    of asking, and `show`s each page with the answer as if typed.
    """

    answers: list[str] | None = None
    ask: Callable[[str, str | None], str] = ask_in_terminal
    show: Callable[[str], None] = print
    name: str = "you (a person playing the model)"
    _calls: int = field(default=0, init=False)
    _ids: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.answers is not None:
            self.answers = list(self.answers)  # played from a copy, so running the cell again plays them again

    def __repr__(self) -> str:
        how = f"{len(self.answers)} prepared answers" if self.answers is not None else "asks for each reply"
        return f"HumanModel({how}, replied {self._calls} times)"

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS
    ) -> Response:
        page, problem = context_page(system, messages, list(tools)), None
        while True:
            try:
                blocks = parse_reply(self._next_reply(page, problem))
                written = sum(block_tokens(b) for b in blocks)
                if written > max_tokens:
                    raise NotAReply(f"that reply is {written} tokens and this call allows max_tokens = {max_tokens}; "
                                    "shorten it")
                break
            except NotAReply as why:
                if self.answers is not None:
                    raise  # a prepared answer that is not a reply is a bug in the lesson: say so at once
                problem = str(why)
        self._calls += 1
        reply: list[Block] = [self._numbered(b) for b in blocks]
        stop: StopReason = "tool_use" if any(isinstance(b, ToolCall) for b in reply) else "end_turn"
        return Response(reply, stop, Usage(context_tokens(system, messages, tools), written), self.name)

    def _next_reply(self, page: str, problem: str | None) -> str:
        if self.answers is None:
            return self.ask(page, problem)
        if not self.answers:
            raise NotAReply("the prepared answers ran out before the run ended; add one to `answers`")
        typed = self.answers.pop(0)
        self.show(f"{page}\n> {typed}")
        return typed

    def _numbered(self, block: Text | ToolCall) -> Text | ToolCall:
        if isinstance(block, Text):
            return block
        self._ids += 1
        return ToolCall(f"toolu_you_{self._ids:03d}", block.name, block.input)

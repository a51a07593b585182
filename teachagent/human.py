"""You are the model: a learner plays M inside the real loop (notebooks/03_agent_loop.ipynb).

`HumanModel` is a `Model` like any other, except that a person writes its replies. The
first call shows exactly what a model would read (the system prompt, the tool specs, the
task, and c_k in tokens); each later call shows only what is new since the person's last
reply (the tool results), and `/page` shows the whole page again. Then it takes the reply:

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
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .base.display import terminal_text
from .base.errors import CourseError
from .base.formats import unstorable
from .messages import MAX_TOKENS, Block, Message, Response, StopReason, Text, ToolCall, ToolResult
from .models import Model
from .requests import ToolChoice, check_tool_choice, tool_choice_problem
from .tokens import block_tokens, context_tokens
from .usage import Usage

if TYPE_CHECKING:
    from .answers import AnswerForm

LONGEST_TOKEN = 128  # characters in the longest token of cl100k: a reply longer than 128 × max_tokens cannot fit
WHOLE_PAGE = "/page"  # typed alone instead of a reply: show the whole page again


class NotAReply(ValueError):
    """What the person typed cannot be sent as a model's reply; they are asked again.

    `where` is the character of the typed text where the mistake is, when one can be named.
    """

    def __init__(self, problem: str, where: int | None = None) -> None:
        super().__init__(problem)
        self.where = where


class StoppedPlaying(CourseError):
    """The person playing the model ended their input (Ctrl-D) before the run ended."""


def ask_in_terminal(page: str, problem: str | None) -> str:
    """Print the page (or, on a second try, only what to fix) and read one reply; a blank line ends it."""
    # what the model reads holds what tools and files wrote: shown as safe text, it cannot clear or reorder the screen
    print(terminal_text(f"not sent: {problem}" if problem else f"{page}\n(an empty line ends your reply)"), flush=True)
    try:
        lines = [input("> ")]
        while lines[-1].strip():
            lines.append(input("  "))
    except EOFError:
        raise StoppedPlaying("you stopped playing the model (end of input) before the run ended") from None
    return "\n".join(lines)


def example_input(schema: dict[str, Any]) -> dict[str, Any]:
    """A plausible input for a tool, read off its own schema: each required parameter with a value of its type.

    A string takes the example its description gives ("such as 'notes.txt'"), else "...".
    """
    values: dict[str, Any] = {}
    properties = schema.get("properties", {})
    for name in schema.get("required", list(properties)):
        spec = properties.get(name, {})
        kind = spec.get("type")
        kind = next((t for t in kind if t != "null"), None) if isinstance(kind, list) else kind
        if spec.get("enum"):
            values[name] = spec["enum"][0]
        elif kind == "string":
            quoted = re.search(r"(?:such as|e\.g\.|for example),? '([^']+)'", spec.get("description", ""))
            values[name] = quoted[1] if quoted else "..."
        else:
            typical: dict[Any, Any] = {"integer": 1, "number": 1.5, "boolean": True, "array": [], "object": {}}
            values[name] = typical.get(kind, "...")
    return values


def example_call(spec: dict[str, Any]) -> str:
    """A `call` line for the tool `spec` describes, such as: call read_file {"path": "notes.txt"}."""
    return f"call {spec['name']} {json.dumps(example_input(spec.get('input_schema', {})), ensure_ascii=False)}"


def how_to_reply(tools: Sequence[dict[str, Any]]) -> str:
    """The line under a page that says how to answer, with an example call of this run's first tool."""
    example = f", such as: {example_call(tools[0])}" if tools else ""
    return f"your reply: text for a final answer, or one line per tool call{example}"


def rules_line(tool_choice: ToolChoice, answer_form: AnswerForm | None) -> str:
    """The page's last line when a call asks more than "auto" and any answer: what this reply must be."""
    rules = {"auto": [], "any": ["you must call a tool"], "none": ["you may not call a tool"]}.get(
        tool_choice, [f"you must call {tool_choice} and nothing else"])
    if answer_form is not None:
        rules.append(f"a final answer must be {answer_form}")
    return f"\n=== this call: {'; '.join(rules)} ===" if rules else ""


def context_page(system: str, messages: list[Message], tools: list[dict[str, Any]]) -> str:
    """Everything the model reads on this call, as plain text, headed by c_k."""
    lines = [f"=== {_heading(system, messages, tools)} ==="]
    lines.append(f"[system]\n{system or '(none)'}")
    for spec in tools:
        lines.append(f"[tool] {spec['name']}: {spec['description']}\n  input schema: {json.dumps(spec['input_schema'])}")
    lines += _blocks(messages, messages)
    lines.append(f"=== {how_to_reply(tools)} ===")
    return "\n".join(lines)


def new_on_page(system: str, messages: list[Message], tools: list[dict[str, Any]], shown: int) -> str:
    """What the page holds beyond its first `shown` messages, headed by c_k: all that is new for the person.

    Their own last reply, the first of the new messages, is left out: they have just typed it.
    """
    new = messages[shown:]
    if new and new[0].role == "assistant":
        new = new[1:]
    return "\n".join([f"=== {_heading(system, messages, tools)}; what is new since your last reply: ===",
                      *_blocks(new, messages), f"=== your reply ({WHOLE_PAGE} shows the whole page) ==="])


def _heading(system: str, messages: list[Message], tools: list[dict[str, Any]]) -> str:
    k = 1 + sum(m.role == "assistant" for m in messages)
    return f"call {k}: the model reads c_{k} = {context_tokens(system, messages, tools)} tokens"


def _blocks(shown: list[Message], everything: list[Message]) -> list[str]:
    calls = {b.id: b for m in everything for b in m.content if isinstance(b, ToolCall)}
    return [f"[{message.role}] {_describe(block, calls)}" for message in shown for block in message.content]


def _describe(block: Any, calls: dict[str, ToolCall]) -> str:
    if isinstance(block, Text):
        return block.text
    if isinstance(block, ToolCall):
        return f"call {block.name} {json.dumps(block.input, ensure_ascii=False)}   (id {block.id})"
    if isinstance(block, ToolResult):
        flag = "ERROR " if block.is_error else ""
        call = calls.get(block.tool_use_id)
        answered = f"call {call.name} {json.dumps(call.input, ensure_ascii=False)}" if call else block.tool_use_id
        return f"{flag}result of {answered} (id {block.tool_use_id}):\n{block.content}"
    return f"({type(block).__name__}, kept and sent back unchanged)"


def parse_reply(typed: str, tools: Sequence[dict[str, Any]] = ()) -> list[Text | ToolCall]:
    """The blocks of a typed reply: `call NAME {...}` lines become tool calls, the rest is text.

    The ids are left empty; `HumanModel` numbers them. Raises `NotAReply` with what to fix,
    and where; its example input is the named tool's own (from `tools`), when there is one.
    """
    if not isinstance(typed, str) or not typed.strip():
        raise NotAReply("an empty reply cannot be sent; write an answer, or a line: " + 'call NAME {"json": "input"}')
    specs = {spec["name"]: spec for spec in tools}
    blocks: list[Text | ToolCall] = []
    text: list[str] = []
    offset = 0  # where the current line starts in `typed`
    for line in typed.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        line = line.rstrip("\r\n")
        if line.strip().split(" ", 1)[0] != "call":
            text.append(line)
            continue
        name, _, raw = line.strip()[len("call"):].strip().partition(" ")
        like = example_call(specs[name]).split(" ", 2)[2] if name in specs else '{"key": "value"}'
        try:
            tool_input = json.loads(raw or "{}")
        except json.JSONDecodeError as error:
            where = start + line.index(raw) + error.pos
            raise NotAReply(f"the input of `call {name}` is not valid JSON ({error.msg} at character {error.pos}); "
                            f"write it like {like}", where) from None
        except RecursionError:
            raise NotAReply(f"the input of `call {name}` is nested too deeply to read; a tool's input is a few "
                            "levels deep at most", start) from None
        if not name or not isinstance(tool_input, dict):
            raise NotAReply(f"`{line.strip()[:80]}` needs a tool name and a JSON object: call NAME {like}", start)
        if problem := unstorable(tool_input):  # what the loop would refuse, ending the run: ask again instead
            raise NotAReply(f"the input of `call {name}` cannot be sent: {problem}", start)
        blocks.append(ToolCall("", name, tool_input))
    if text and "\n".join(text).strip():
        blocks.insert(0, Text("\n".join(text).strip()))
    return blocks


def pointing_at(typed: str, where: int) -> str:
    """The line of `typed` holding character `where`, with a caret under that character."""
    start = typed.rfind("\n", 0, where) + 1
    end = typed.find("\n", where)
    line = typed[start:] if end == -1 else typed[start:end]
    return f"{line}\n{' ' * (where - start)}^"


def read_reply(typed: str, tools: Sequence[dict[str, Any]], max_tokens: int, tool_choice: ToolChoice = "auto",
               answer_form: AnswerForm | None = None) -> list[Text | ToolCall]:
    """The blocks of a typed reply that an API would let a model send; else `NotAReply` saying what to fix:
    too long for `max_tokens`, not a reply (`parse_reply`), or not what `tool_choice` or `answer_form` asks."""
    if isinstance(typed, str) and len(typed) > LONGEST_TOKEN * max_tokens:  # refused before it is read
        raise NotAReply(f"that reply is {len(typed):,} characters, more than a reply of max_tokens = "
                        f"{max_tokens} tokens can hold ({LONGEST_TOKEN * max_tokens:,}); shorten it")
    blocks = parse_reply(typed, tools)
    calls = [b for b in blocks if isinstance(b, ToolCall)]
    if broken := tool_choice_problem(tool_choice, calls):
        raise NotAReply(broken)
    said = "".join(b.text for b in blocks if isinstance(b, Text))
    if answer_form is not None and not calls and (broken := answer_form.problem(said)):
        raise NotAReply(broken)
    written = sum(block_tokens(b) for b in blocks)
    if written > max_tokens:
        raise NotAReply(f"that reply is {written} tokens and this call allows max_tokens = {max_tokens}; shorten it")
    return blocks


@dataclass(repr=False)
class HumanModel(Model):
    """A model whose replies a person writes.

    `ask(page, problem)` shows the page (and, when the last reply could not be sent, what to
    fix) and returns what was typed. The first call of a run shows the whole page; later
    calls show only what is new since the person's last reply (`whole_page=True` shows it
    all every time), and typing `/page` shows the whole page again. With `answers`, it
    plays those replies in order instead of asking, and `show`s each page with the answer
    as if typed. `page` is the whole page of the latest call, `typed` what was last typed
    and `mistake` where it went wrong, for a widget that keeps a refused reply to fix.
    """

    answers: list[str] | None = None
    ask: Callable[[str, str | None], str] = ask_in_terminal
    show: Callable[[str], None] = print
    name: str = "you (a person playing the model)"
    whole_page: bool = False
    page: str = field(default="", init=False)
    typed: str = field(default="", init=False)
    mistake: int | None = field(default=None, init=False)
    _calls: int = field(default=0, init=False)
    _ids: int = field(default=0, init=False)
    _shown: list[Message] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        if self.answers is not None:
            self.answers = list(self.answers)  # played from a copy, so running the cell again plays them again

    def __repr__(self) -> str:
        how = f"{len(self.answers)} prepared answers" if self.answers is not None else "asks for each reply"
        return f"HumanModel({how}, replied {self._calls} times)"

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        """The person's reply to this call: asked again until it is one (a call when tool_choice asks for one, an
        answer of `answer_form`'s shape), as an API holds its model to both."""
        tools = list(tools)
        rules = rules_line(check_tool_choice(tool_choice, tools), answer_form)
        self.page = context_page(system, messages, tools) + rules
        continues = bool(self._shown) and messages[: len(self._shown)] == self._shown  # the same run, one step on
        shown = self.page if self.whole_page or not continues else new_on_page(system, messages, tools, len(self._shown)) + rules
        self._shown = list(messages)
        page, problem = shown, None
        while True:
            try:
                typed = self._next_reply(page, problem)
                if isinstance(typed, str) and len(typed) <= LONGEST_TOKEN * max_tokens and typed.strip() == WHOLE_PAGE:
                    page, problem = self.page, None
                    continue
                self.typed, self.mistake = typed, None
                blocks = read_reply(typed, tools, max_tokens, tool_choice, answer_form)
                break
            except NotAReply as why:
                if self.answers is not None:
                    raise  # a prepared answer that is not a reply is a bug in the lesson: say so at once
                problem, self.mistake = str(why), why.where
        self._calls += 1
        reply: list[Block] = [self._numbered(b) for b in blocks]
        stop: StopReason = "tool_use" if any(isinstance(b, ToolCall) for b in reply) else "end_turn"
        written = sum(block_tokens(b) for b in blocks)
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

"""The agent loop (introduced in notebooks/03_agent_loop.ipynb).

An agent is a model in a loop with tools. For k = 1, 2, ... up to a step budget:
the model reads the context c_k and writes a step v_k; if v_k is a final answer the run
stops; otherwise the handler runs the tool calls in v_k and the results N(v_k) are
appended, giving c_{k+1}. That is all of it; `Agent.run` below is that loop, with each
of the API's stop reasons handled on purpose.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .base.display import shorten
from .base.errors import CourseError, SettingError, check_number
from .dispatch import Dispatcher
from .messages import MAX_TOKENS, STOPS, Message, Response, StopReason, ToolCall, ToolResult, Usage
from .models import Model, TokenCounter
from .tokens import context_tokens, message_tokens
from .tools import Tool
from .trace import Outcome, Run, Step

# Stop reasons after which the model's text is its final answer (messages.STOPS says what each does).
FINAL: tuple[StopReason, ...] = tuple(reason for reason, (move, _) in STOPS.items() if move == "answer")
MAX_STEPS = 1_000_000  # the largest step budget: more is a typo, not a budget


class AgentError(RuntimeError):
    """A model call failed mid-run. The partial record is kept in `.run`."""

    def __init__(self, message: str, run: Run) -> None:
        super().__init__(message)
        self.run = run

    @property
    def _render_traceback_(self) -> Callable[[], list[str]]:
        """IPython's hook: one line when a learner's error (a CourseError) caused this one.

        Any other cause is a bug, whose whole traceback IPython should show: the hook then
        does not exist, as an error raised inside it would hide that traceback.
        """
        if not isinstance(self.__cause__, CourseError):
            raise AttributeError("_render_traceback_")  # hasattr() is False: IPython's usual traceback
        return lambda: [f"{type(self).__name__}: {self}"]


class BadReply(CourseError, TypeError):
    """A model returned something the loop cannot use (a model written by hand often does, at first)."""


MAX_INPUT_DEPTH = 64  # brackets in one tool input: a saved run or a cassette holds at most 100 in all
MAX_COUNT = 10**15  # a usage count past this is no count of anything (the saved-run schema's limit)


def checked_reply(response: object) -> Response:
    """`response` if the loop can use it as a step and a saved run can hold it; a `BadReply` saying what is wrong.

    The Response type checks its own blocks and stop reason when it is made; what it cannot
    check is a reply that is not a Response at all, usage counts that are not counts, and
    tool input that cannot be written as JSON (to count it, to send it back, to save it):
    NaN, the infinities, numbers of over 300 digits, nesting deeper than MAX_INPUT_DEPTH.
    A stand-in block whose fields raise when read is a BadReply too.
    """
    if not isinstance(response, Response):
        raise BadReply(f"Model.complete must return a Response, got {type(response).__name__}: {shorten(repr(response), 100)}")
    try:
        _check_usage(response.usage)
        for block in response.tool_calls:
            _check_tool_call(block)
    except BadReply:
        raise
    except Exception as error:  # a property of a stand-in object that raises
        raise BadReply(f"the reply could not be read: {type(error).__name__}: {shorten(str(error), 200)}") from None
    return response


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


def unstorable(value: Any) -> str | None:
    """What in a tool's input JSON or a saved file cannot hold, or None; one pass, no recursion."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict) or isinstance(item, list):
            if depth > MAX_INPUT_DEPTH:
                return f"it is nested more than {MAX_INPUT_DEPTH} levels deep"
            if isinstance(item, dict):
                if not all(isinstance(key, str) for key in item):
                    return "a key is not a string"
                pending.extend((child, depth + 1) for child in item.values())
            else:
                pending.extend((child, depth + 1) for child in item)
        elif isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        elif isinstance(item, int):
            if abs(item) >= 10**300:
                return "it holds a number of over 300 digits"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"it holds {item!r}, which JSON cannot"
        else:
            return f"it holds a {type(item).__name__}, which is not JSON"
    return None


class Pricing(Protocol):
    """What a dollar budget needs of a price: the dollars one call with a given usage costs.

    `teachagent.cost.Price` (lesson 6) is one; the loop needs nothing else of it.
    """

    def dollars(self, usage: Usage) -> float: ...


@dataclass
class Used:
    """What a run's calls so far have read and cost: running totals, so a budget check costs the same at any step.

    It also keeps how far the model's own counts ran above ours: `ratio`, the largest
    reported input over our c_k, and `most_written`, the longest reply it reported. A model
    that cannot be asked for a count is estimated with these, so a budget stops the run
    before a call that could break it, not after.
    """

    read: int = 0
    dollars: float = 0.0
    calls: int = 0
    ratio: float = 1.0
    most_written: int = 0

    def add(self, c_k: int, usage: Usage, price: Pricing | None) -> None:
        """Count one call: what the model reported reading (the API's count, live) or our c_k, whichever is larger."""
        self.read += max(c_k, usage.total_input_tokens)
        self.calls += 1
        self.ratio = max(self.ratio, usage.total_input_tokens / max(c_k, 1))
        self.most_written = max(self.most_written, usage.output_tokens)
        if price is not None:
            self.dollars += price.dollars(usage)


def request_bytes(system: str, messages: list[Message], specs: list[dict[str, Any]]) -> int:
    """The UTF-8 bytes of a request as JSON: more than its tokens for any tokenizer whose tokens are one byte or more."""
    body = {"system": system, "messages": [m.to_dict() for m in messages], "tools": specs}
    return len(json.dumps(body, ensure_ascii=False).encode("utf-8", "backslashreplace"))


def grow(messages: list[Message], response: Response, results: list[ToolResult]) -> int:
    """Append the model's step v_k and, if any tool ran, its results N(v_k); return the tokens they add to c_k."""
    messages.append(response.to_message())
    added = message_tokens(messages[-1])
    if results:
        messages.append(Message("user", results))
        added += message_tokens(messages[-1])
    return added


def record(run: Run, step: Step) -> None:
    """Add `step` to the run, with a note for each block of a kind teachagent does not know (kept as it came)."""
    run.steps.append(step)
    for block in step.response.unknown_blocks:
        run.notes.append(f"step {step.index}: the model wrote a {block.type!r} block, which teachagent does not know; "
                         "it was kept in the history and sent back unchanged")


@dataclass(repr=False)
class Agent:
    """A model, the tools it may call, a system prompt and a step budget.

    `on_step(step, run)`, if given, is called after every step: the step viewer uses it
    to draw a run while it happens.

    Budgets besides `max_steps`, each checked before every call; a call that could break
    one is not made, and the run ends with the budget's name as its outcome:
    - `max_context_tokens`: the most one call may read (working memory; nothing is cut);
    - `max_input_tokens`: the most the whole run may read, Z = Σ c_k;
    - `max_dollars`: the most the run may cost at `price` (a `teachagent.cost.Price`),
      counting the next call at its input plus a full `max_tokens` reply, the worst case.

    `compact`, if given, rewrites the conversation after every step, before the next call
    reads it (lesson 6's `teachagent.compaction.Compaction`); c_k is then counted afresh.
    """

    model: Model
    tools: Iterable[Tool] = ()
    system: str = ""
    max_steps: int = 10
    on_step: Callable[[Step, Run], None] | None = None
    max_tokens: int = MAX_TOKENS
    max_context_tokens: int | None = None
    max_input_tokens: int | None = None
    max_dollars: float | None = None
    price: Pricing | None = None
    compact: Callable[[list[Message]], list[Message]] | None = None
    runs: list[Run] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        check_number("max_steps", self.max_steps, whole=True, at_least=1, at_most=MAX_STEPS)
        check_number("max_tokens", self.max_tokens, whole=True, at_least=1, at_most=1_000_000)
        for name, largest in (("max_context_tokens", 10**12), ("max_input_tokens", 10**12), ("max_dollars", 10**6)):
            if getattr(self, name) is not None:  # None: no such budget; a larger number is a typo, not a budget
                check_number(name, getattr(self, name), at_least=0, at_most=largest)
        if self.max_dollars is not None and self.price is None:
            raise SettingError("max_dollars needs a price: price=PRICES['claude-haiku-5-5'] for Claude, or for any other "
                               "model price=Price(input=..., output=..., cache_write=..., cache_read=...) in dollars per "
                               "million tokens (teachagent.cost)")

    def __setattr__(self, name: str, value: Any) -> None:
        """`agent.tools = ...` keeps a list of the tools, checked now: a generator is read once, not used up by a run."""
        if name == "tools":
            value = list(value)
            Dispatcher(value)  # a bad tool or two tools of one name: refused here, not at the next run
        super().__setattr__(name, value)

    @property
    def dispatcher(self) -> Dispatcher:
        """The handler for the tools as they are now; each run makes its own, so a change counts from the next run."""
        return Dispatcher(self.tools)

    def __repr__(self) -> str:
        return f"Agent(model={self.model.name!r}, tools={[t.name for t in self.tools]}, max_steps={self.max_steps})"

    def run(self, task: str) -> Run:
        """Run the loop on `task` until a final answer, a stop, or the step budget."""
        handler, used = self.dispatcher, Used()
        specs = handler.specs
        run = Run(task, self.model.name, self.system, specs, scripted=getattr(self.model, "scripted", False) is True)
        self.runs.append(run)
        messages = [Message("user", task)]
        c_k = context_tokens(self.system, messages, specs)  # then grown step by step, recounted only after a compaction
        try:  # whatever fails (a model call, counting, the learner's on_step) ends the run, its record kept
            for k in range(1, self.max_steps + 1):
                doing = "counting the context before step {k} failed"
                if broken := self.budget_broken_by(self.next_read(c_k, messages, specs, used), used):
                    run.outcome = broken
                    return run
                doing, started = "the model call at step {k} failed", time.perf_counter()
                response = checked_reply(self.model.complete(self.system, messages, specs, self.max_tokens))
                results = [handler(call) for call in response.tool_calls] if response.stop_reason == "tool_use" else []
                record(run, Step(k, c_k, response, results, time.perf_counter() - started))
                used.add(c_k, response.usage, self.price if self.max_dollars is not None else None)
                c_k += grow(messages, response, results)  # c_{k+1} = c_k + v_k + N(v_k)
                if self.compact is not None:
                    doing = "compacting the context after step {k} failed"
                    messages = self.compact(messages)
                    c_k = context_tokens(self.system, messages, specs)
                doing = "on_step raised after step {k}"
                if self.on_step:
                    self.on_step(run.steps[-1], run)

                move = STOPS[response.stop_reason][0]  # continue, answer or end
                if move == "answer":
                    run.answer = response.text
                if move != "continue" or (response.stop_reason == "tool_use" and not results):
                    run.outcome = "answer" if move == "answer" else response.stop_reason
                    return run
        except KeyboardInterrupt:  # Ctrl-C is the learner's: it stops the run as it always does
            raise
        except BaseException as error:  # SystemExit or any other BaseException from a model or on_step, too
            run.outcome = "error"
            raise AgentError(f"{doing.format(k=k)}: {type(error).__name__}: {error}", run) from error
        run.outcome = "max_steps"
        return run

    def next_read(self, c_k: int, messages: list[Message], specs: list[dict[str, Any]], used: Used | None = None) -> int:
        """How many tokens the next call will read, for the budgets: at least our count c_k, never less than the model's.

        Our count c_k is a tiktoken estimate. Claude's tokenizer counts more, so a live
        model that can count (`Claude.count_tokens`, the API's own count) is asked before
        each call, and only when a token or dollar budget is set: no budget, no extra request.
        A model that cannot be asked and is not scripted is estimated from what it reported
        so far (c_k times the largest ratio of its count to ours); before its first reply,
        at one token per byte of the request, which no tokenizer of bytes exceeds.
        """
        counter: TokenCounter | None = getattr(self.model, "count_tokens", None)
        budgets = (self.max_context_tokens, self.max_input_tokens, self.max_dollars)
        if all(limit is None for limit in budgets):
            return c_k
        if counter is not None:
            return max(c_k, counter(self.system, messages, specs))
        if getattr(self.model, "scripted", False) is True:  # its usage is our own count
            return c_k
        if used is None or not used.calls:
            return max(c_k, request_bytes(self.system, messages, specs))
        return max(c_k, math.ceil(c_k * used.ratio))

    def budget_broken_by(self, next_read: int, used: Used | None = None) -> Outcome | None:
        """The budget a next call reading `next_read` tokens could break, or None if it may go ahead.

        `used` holds what the run's calls so far have read and cost. For each call
        the loop adds what the model reported (the API's count, live) or our count,
        whichever is larger, so the check costs the same at step 1000 as at step 1. The
        reply is counted at `max_tokens`, or at the longest reply the model reported if longer.
        """
        used = used or Used()
        if self.max_context_tokens is not None and next_read > self.max_context_tokens:
            return "max_context_tokens"
        if self.max_input_tokens is not None and used.read + next_read > self.max_input_tokens:
            return "max_input_tokens"
        if self.max_dollars is not None:
            assert self.price is not None  # __post_init__ refuses max_dollars without a price
            if used.dollars + self.price.dollars(Usage(next_read, max(self.max_tokens, used.most_written))) > self.max_dollars:
                return "max_dollars"
        return None

    def as_tool(self, name: str, description: str) -> Tool:
        """This agent as a tool for another agent: a sub-agent.

        Each call starts a fresh run on the given task, in its own context; only the final
        answer goes back to the caller. The sub-agent's runs stay in `self.runs`.
        """

        def delegate(task: str) -> str:
            run = self.run(task)
            if run.answer is None:  # only a run whose outcome is "answer" has one
                raise RuntimeError(f"the sub-agent stopped without an answer (outcome: {run.outcome})")
            return run.answer

        schema = {
            "type": "object",
            "properties": {"task": {"type": "string", "description": "the sub-task, stated in full"}},
            "required": ["task"],
            "additionalProperties": False,
        }
        return Tool(name, description, schema, delegate, timeout=None)

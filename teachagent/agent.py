"""The agent loop (introduced in notebooks/03_agent_loop.ipynb).

An agent is a model in a loop with tools. For k = 1, 2, ... up to a step budget:
the model reads the context c_k and writes a step v_k; if v_k is a final answer the run
stops; otherwise the handler runs the tool calls in v_k and the results N(v_k) are
appended, giving c_{k+1}. That is all of it; `Agent.run` below is that loop, and what it
does after each reply is the reply's row of `messages.STOPS`: run the calls and go on,
resume, take the answer, or end. A reply that is cut off or refused ends the run with no
answer; so does a final reply that says nothing, or breaks the answer's form.

What guards the loop sits at its two seams, below it in `base/`: the reply a model returns
is checked and copied by `checked_reply` (base/replies.py), and each tool call is run by
the dispatcher through `run_tool` (base/tool_runs.py). Whatever else fails (counting, the
model call itself, a compaction, the learner's `on_step`) ends the run as an `AgentError`
saying where, with the run's record kept (`failing`, base/errors.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from .answers import AnswerForm, checked_form
from .base.errors import ShortIfCourseCause, check_number, failing
from .base.replies import checked_reply
from .budget import Budget, Pricing, check_limits
from .dispatch import Approver, Dispatcher, ask_in_terminal, checked_tools
from .messages import MAX_TOKENS, STOPS, Message, Response, ToolResult
from .models import Model, call_model, is_scripted
from .requests import ToolChoice, check_tool_choice
from .tokens import context_tokens, message_tokens
from .tools import Tool
from .trace import Outcome, Run, Step, says_something

MAX_STEPS = 1_000_000  # the largest step budget: more is a typo, not a budget


def no_tools_after_a_result(run: Run) -> ToolChoice:
    """A `tool_choice` for `Agent`: "auto" until a tool has answered, then "none", so the next reply is an answer.

    A small model that has read what it needs tends to call the same tool again and again;
    offering it no tool once a result is in leaves it only the answer to write.
    """
    return "none" if any(step.results for step in run.steps) else "auto"


class AgentError(ShortIfCourseCause, RuntimeError):
    """A run failed mid-way (its model call, say). The partial record is kept in `.run`; one line in Jupyter when a
    learner's error caused it."""

    def __init__(self, message: str, run: Run) -> None:
        super().__init__(message)
        self.run = run


def grow(messages: list[Message], response: Response, results: list[ToolResult]) -> int:
    """Append the model's step v_k and, if any tool ran, its results N(v_k); return the tokens they add to c_k."""
    messages.append(response.to_message())
    added = message_tokens(messages[-1])
    if results:
        messages.append(Message("user", results))
        added += message_tokens(messages[-1])
    return added


def ending(response: Response, results: list[ToolResult], form: AnswerForm | None) -> tuple[Outcome, str | None] | None:
    """How the run ends after `response`, or None if it goes on: its outcome, and its answer (or, for a final reply
    that is no answer, why not).

    A reply whose move is "continue" goes on if its calls ran; one that asked for results
    but wrote no call ends with its stop reason. A final reply is the answer only if it says
    something and keeps the answer's form.
    """
    move = STOPS[response.stop_reason].move
    if move == "resume" or (move == "continue" and results):
        return None
    if move != "answer":
        return response.stop_reason, None
    if not says_something(response.text):
        return "empty_answer", f"it says nothing: {response.text[:40]!r}"
    broken = form.problem(response.text) if form else None
    return ("off_form", broken) if broken else ("answer", response.text)


@dataclass(repr=False)
class Agent:
    """A model, the tools it may call, a system prompt and a step budget.

    `on_step(step, run)`, if given, is called after every step: the step viewer uses it
    to draw a run while it happens. `approve(call)` is asked before a tool made with
    `ask_first=True` runs (the dispatcher's; by default it asks on the terminal).

    Besides the step budget `max_steps`: `max_context_tokens`, `max_input_tokens` and
    `max_dollars` at `price` (a `teachagent.cost.Price`), each checked before every call
    (budget.py); a call that could break one is not made, and the run ends with its name.

    `compact`, if given, rewrites the conversation after every step, before the next call
    reads it (lesson 6's `teachagent.compaction.Compaction`); c_k is then counted afresh.

    `tool_choice` is sent with every call ("auto", "any", "none" or a tool's name), or is a
    function of the run so far that says it afresh before each call (`no_tools_after_a_result`).
    `answer_form`, if given, is the form a final answer must take (answers.py), or a function of
    the run giving it (the numbers of the note just read, say): it is sent to the model, and a
    final reply that breaks it ends the run with outcome "off_form", with no answer.
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
    approve: Approver = ask_in_terminal
    tool_choice: ToolChoice | Callable[[Run], ToolChoice] = "auto"
    answer_form: AnswerForm | Callable[[Run], AnswerForm | None] | None = None
    runs: list[Run] = field(default_factory=list, init=False)
    _handler: Dispatcher | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Everything the agent is given is checked now, once, rather than at its first run."""
        check_number("max_steps", self.max_steps, whole=True, at_least=1, at_most=MAX_STEPS)
        check_number("max_tokens", self.max_tokens, whole=True, at_least=1, at_most=1_000_000)
        check_limits(self.max_context_tokens, self.max_input_tokens, self.max_dollars, self.price)
        checked_tools(self.tools, self.approve)
        if not callable(self.tool_choice):
            check_tool_choice(self.tool_choice, self.specs)
        if not callable(self.answer_form):
            checked_form(self.answer_form)

    def __setattr__(self, name: str, value: Any) -> None:
        """`agent.tools = ...` keeps a list of the tools, checked now: a generator is read once, not used up by a run."""
        if name == "tools":
            value = checked_tools(value)
        super().__setattr__(name, value)

    @property
    def specs(self) -> list[dict[str, Any]]:
        """What the model is told of the tools, as a run starting now would tell it."""
        return [t.spec for t in self.tools]

    def dispatcher(self) -> Dispatcher:
        """The dispatcher of a run starting now: the last run's, while it serves the tools as they are now."""
        if self._handler is None or not self._handler.serves(self.tools, self.approve):
            self._handler = Dispatcher(self.tools, self.approve)
        return self._handler

    def budget(self) -> Budget:
        """A fresh `Budget` for one run, from this agent's limits (budget.py)."""
        return Budget(self.max_context_tokens, self.max_input_tokens, self.max_dollars, self.price, self.max_tokens)

    def asks(self, run: Run, specs: list[dict[str, Any]]) -> tuple[ToolChoice, AnswerForm | None]:
        """What the next call asks of the model: its tool_choice and answer form, each as given or as the
        function of the run given for it says now."""
        choice = self.tool_choice(run) if callable(self.tool_choice) else self.tool_choice
        form = self.answer_form(run) if callable(self.answer_form) else self.answer_form
        return check_tool_choice(choice, specs), checked_form(form)

    def __repr__(self) -> str:
        return f"Agent(model={self.model.name!r}, tools={[t.name for t in self.tools]}, max_steps={self.max_steps})"

    def run(self, task: str) -> Run:
        """Run the loop on `task` until a final answer, a stop, or the step budget."""
        handler, budget = self.dispatcher(), self.budget()  # this run's: a change counts from the next
        run = Run(task, self.model.name, self.system, handler.specs, scripted=is_scripted(self.model))
        self.runs.append(run)
        messages = [Message("user", run.task)]
        c_k = context_tokens(self.system, messages, handler.specs)  # c_1; then grown step by step
        for k in range(1, self.max_steps + 1):
            started = time.perf_counter()
            with self.failing(run, f"the model call at step {k}"):  # its budget, its settings, the call itself
                if broken := budget.broken_by(budget.next_read(self.model, self.system, messages, handler.specs, c_k)):
                    return run.ended(broken)
                choice, form = self.asks(run, handler.specs)
                reply = call_model(self.model, self.system, messages, handler.specs, self.max_tokens, choice, form)
                response = checked_reply(reply, Response)  # the model seam: a copy the model can no longer change
            move = STOPS[response.stop_reason].move
            results = [handler(call) for call in response.tool_calls] if move in ("continue", "resume") else []
            run.add(Step(k, c_k, response, results, time.perf_counter() - started))
            budget.add(c_k, response.usage)
            c_k += grow(messages, response, results)  # c_{k+1} = c_k + v_k + N(v_k)
            messages, c_k = self.after_step(run, messages, c_k, handler.specs)
            if ended := ending(response, results, form):
                return run.ended(*ended)  # with the answer, or a note on why the final reply is none
        return run.ended("max_steps")

    def after_step(self, run: Run, messages: list[Message], c_k: int,
                   specs: list[dict[str, Any]]) -> tuple[list[Message], int]:
        """What follows each step: the compaction, if any (c_k then counted afresh), and `on_step`."""
        k = len(run.steps)
        if self.compact is not None:
            with self.failing(run, f"compacting the context after step {k}"):
                messages = self.compact(messages)
                c_k = context_tokens(self.system, messages, specs)
        if self.on_step:
            with self.failing(run, f"on_step after step {k}"):
                self.on_step(run.steps[-1], run)
        return messages, c_k

    @staticmethod
    def failing(run: Run, what: str) -> AbstractContextManager[None]:
        """A block whose failure ends `run` as an "error": an AgentError saying `what` failed, with the record kept."""
        return failing(what, lambda message: AgentError(message, run.ended("error")))

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

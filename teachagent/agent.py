"""The agent loop (introduced in notebooks/03_agent_loop.ipynb).

An agent is a model in a loop with tools. For k = 1, 2, ... up to a step budget:
the model reads the context c_k and writes a step v_k; if v_k is a final answer the run
stops; otherwise the handler runs the tool calls in v_k and the results N(v_k) are
appended, giving c_{k+1}. That is all of it; `Agent.run` below is that loop, with each
of the API's stop reasons handled on purpose.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .answers import AnswerForm
from .base.display import shorten
from .base.errors import RaisedFrom, SettingError, check_number, exception_text
from .budget import Budget, Pricing
from .dispatch import Approver, Dispatcher, ask_in_terminal
from .messages import MAX_TOKENS, STOPS, Message, Response, StopReason, ToolChoice, ToolResult, check_tool_choice, checked_reply
from .models import Model, call_model, is_scripted
from .tokens import context_tokens, message_tokens
from .tools import Tool
from .trace import Run, Step

# Stop reasons after which the model's text is its final answer (messages.STOPS says what each does).
FINAL: tuple[StopReason, ...] = tuple(reason for reason, (move, _) in STOPS.items() if move == "answer")
MAX_STEPS = 1_000_000  # the largest step budget: more is a typo, not a budget


def no_tools_after_a_result(run: Run) -> ToolChoice:
    """A `tool_choice` for `Agent`: "auto" until a tool has answered, then "none", so the next reply is an answer.

    A small model that has read what it needs tends to call the same tool again and again;
    offering it no tool once a result is in leaves it only the answer to write.
    """
    return "none" if any(step.results for step in run.steps) else "auto"


def checked_form(form: object) -> AnswerForm | None:
    """`form` if it is an AnswerForm or None; else one `SettingError`."""
    if form is None or isinstance(form, AnswerForm):
        return form
    raise SettingError(f"answer_form must be an AnswerForm, None or a function of the run giving one; "
                       f"got {shorten(repr(form), 80)}")


class AgentError(RaisedFrom, RuntimeError):
    """A model call failed mid-run. The partial record is kept in `.run`; one line in Jupyter when a learner's error caused it."""

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

    def __post_init__(self) -> None:
        check_number("max_steps", self.max_steps, whole=True, at_least=1, at_most=MAX_STEPS)
        check_number("max_tokens", self.max_tokens, whole=True, at_least=1, at_most=1_000_000)
        self.budget()  # a budget it cannot take is refused now, not at the first run
        specs = Dispatcher(self.tools, self.approve).specs  # an approve that is no function is refused here, not at the first run
        if not callable(self.tool_choice):
            check_tool_choice(self.tool_choice, specs)
        if not callable(self.answer_form):
            checked_form(self.answer_form)

    def budget(self) -> Budget:
        """A fresh `Budget` for one run, from this agent's limits (budget.py)."""
        return Budget(self.max_context_tokens, self.max_input_tokens, self.max_dollars, self.price, self.max_tokens)

    def __setattr__(self, name: str, value: Any) -> None:
        """`agent.tools = ...` keeps a list of the tools, checked now: a generator is read once, not used up by a run."""
        if name == "tools":
            value = list(value)
            Dispatcher(value)  # a bad tool or two tools of one name: refused here, not at the next run
        super().__setattr__(name, value)

    @property
    def dispatcher(self) -> Dispatcher:
        """The handler for the tools as they are now; each run makes its own, so a change counts from the next run."""
        return Dispatcher(self.tools, self.approve)

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
        handler, budget = self.dispatcher, self.budget()
        specs = handler.specs
        run = Run(task, self.model.name, self.system, specs, scripted=is_scripted(self.model))
        self.runs.append(run)
        messages = [Message("user", task)]
        c_k = context_tokens(self.system, messages, specs)  # then grown step by step, recounted only after a compaction
        try:  # whatever fails (a model call, counting, the learner's on_step) ends the run, its record kept
            for k in range(1, self.max_steps + 1):
                doing = "counting the context before step {k} failed"
                if broken := budget.broken_by(budget.next_read(self.model, self.system, messages, specs, c_k)):
                    run.outcome = broken
                    return run
                doing = "choosing the tool_choice and answer form of step {k} failed"
                choice, form = self.asks(run, specs)
                doing, started = "the model call at step {k} failed", time.perf_counter()
                response = checked_reply(call_model(self.model, self.system, messages, specs, self.max_tokens, choice, form))
                results = [handler(call) for call in response.tool_calls] if response.stop_reason == "tool_use" else []
                record(run, Step(k, c_k, response, results, time.perf_counter() - started))
                budget.add(c_k, response.usage)
                c_k += grow(messages, response, results)  # c_{k+1} = c_k + v_k + N(v_k)
                if self.compact is not None:
                    doing = "compacting the context after step {k} failed"
                    messages = self.compact(messages)
                    c_k = context_tokens(self.system, messages, specs)
                doing = "on_step raised after step {k}"
                if self.on_step:
                    self.on_step(run.steps[-1], run)

                move = STOPS[response.stop_reason][0]  # continue, answer or end
                if move == "answer" and form and (broken := form.problem(response.text)):
                    run.notes.append(f"step {k}: the final reply is no answer: {broken}")
                    run.outcome = "off_form"
                    return run
                if move == "answer":
                    run.answer = response.text
                if move != "continue" or (response.stop_reason == "tool_use" and not results):
                    run.outcome = "answer" if move == "answer" else response.stop_reason
                    return run
        except KeyboardInterrupt:  # Ctrl-C is the learner's: it stops the run as it always does
            raise
        except BaseException as error:  # SystemExit or any other BaseException from a model or on_step, too
            run.outcome = "error"
            raise AgentError(f"{doing.format(k=k)}: {exception_text(error, limit=None)}", run) from error
        run.outcome = "max_steps"
        return run

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

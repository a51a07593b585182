"""What the agent loop costs apart from the model, and what an offline lesson's run costs.

a. The loop's own work per step, with an instant stub model (timing.InstantModel) and a
   tool that returns at once: a bare hand-written loop making the same model and tool
   calls, `Agent.run` with the tool run inline (timeout=None), and `Agent.run` with the
   tool run under its default time limit. At K = 10, 100 and 1000 steps: flat rows
   mean a step costs the same however long the run.
b. Building an agent, outside the runs above: `Agent(...)` over one tool whose schema
   was checked before, and the first check of a schema never seen.
c. The whole offline path, as a lesson runs it: `Agent.run` with a `ScriptedModel`
   policy, whose usage is real tiktoken counts, at K = 10, 100 and 1000; beside it the
   same run with a model that recounts its whole context at every step, as
   ScriptedModel did before issue 17 (quadratic: it grows with K); and the same run
   with a token and a dollar budget set, which the loop checks before every call.
(d. start-up is bench_start.py.)
"""

from __future__ import annotations

from timing import InstantModel, Row, interleaved

from teachagent.agent import Agent
from teachagent.base.schema import input_validator
from teachagent.cost import PRICES
from teachagent.dispatch import Dispatcher
from teachagent.messages import Message
from teachagent.scripted import ScriptedModel, call
from teachagent.tokens import context_tokens
from teachagent.tools import tool
from teachagent.usage import Usage

KS = (10, 100, 1000)
ROUNDS = 7


@tool
def noop() -> str:
    """Do nothing, at once."""
    return "ok"


noop_inline = tool(noop.fn, timeout=None)  # the same tool, run in the caller's thread


def rounds_for(steps: int) -> int:
    """More rounds for short runs, so that each row times at least a few thousand steps."""
    return max(ROUNDS, 3000 // steps)


# --- a. the loop's own work ---------------------------------------------------------------


def bare_loop(model, dispatcher: Dispatcher, specs: list, task: str) -> None:
    """The same calls as Agent.run, with nothing around them: no Run, no Steps, no c_k, no budgets."""
    messages = [Message("user", task)]
    while True:
        response = model.complete("", messages, specs, 1024)
        messages.append(response.to_message())
        if response.stop_reason != "tool_use":
            return
        messages.append(Message("user", [dispatcher(c) for c in response.tool_calls]))


def loop_overhead(steps: int) -> list[Row]:
    model = InstantModel(steps)
    dispatcher = Dispatcher([noop_inline])
    inline = Agent(model, tools=[noop_inline], max_steps=steps)
    timed = Agent(model, tools=[noop], max_steps=steps)
    assert len(inline.run("go").steps) == len(timed.run("go").steps) == steps
    t = interleaved({
        "bare": lambda: bare_loop(model, dispatcher, dispatcher.specs, "go"),
        "inline": lambda: inline.run("go"),
        "timed": lambda: timed.run("go"),
    }, rounds_for(steps))
    us = {name: (1e6 * best / steps, 1e6 * median / steps) for name, (best, median) in t.items()}
    group = f"a. loop, instant stub model, K={steps}"
    return [
        (group, "bare hand-written loop, same model and tool calls", *us["bare"], "µs/step"),
        (group, "Agent.run, tool run inline (timeout=None)", *us["inline"], "µs/step"),
        (group, "Agent.run, tool under its time limit (default timeout)", *us["timed"], "µs/step"),
        (group, "Agent.run (inline) / bare loop", us["inline"][0] / us["bare"][0], us["inline"][1] / us["bare"][1], "x"),
        (group, "the time limit's cost per tool call", us["timed"][0] - us["inline"][0],
         us["timed"][1] - us["inline"][1], "µs"),
    ]


# --- b. building an agent -----------------------------------------------------------------


def construction(count: int = 2000) -> list[Row]:
    model = InstantModel(2)
    fresh = iter(range(10**9))

    def new_schema() -> None:
        input_validator({"type": "object", "properties": {f"x{next(fresh)}": {"type": "string"}}})

    t = interleaved({
        "agent": lambda: [Agent(model, tools=[noop]) for _ in range(count)],
        "schema": lambda: [new_schema() for _ in range(count // 10)],
    }, ROUNDS)
    return [
        ("b. building an agent", "Agent(model, tools=[one tool]), its schema checked before",
         *(1e6 * s / count for s in t["agent"]), "µs"),
        ("b. building an agent", "first check of a schema never seen (jsonschema metaschema)",
         *(1e6 * s / (count // 10) for s in t["schema"]), "µs"),
    ]


# --- c. the whole offline path ------------------------------------------------------------


def calls_then_answers(steps: int):
    """A policy that calls `noop` at steps 1 to steps - 1 and answers at the last one."""

    def policy(messages):
        k = (len(messages) + 1) // 2  # the task, then a call and its result per step
        return call("noop") if k < steps else "done"

    return policy


class Recounting(ScriptedModel):
    """ScriptedModel as it was before issue 17: its usage recounts the whole context on every call."""

    def complete(self, system, messages, tools=(), max_tokens=4096):
        response = super().complete(system, messages, tools, max_tokens)
        response.usage = Usage(context_tokens(system, messages, tools), response.usage.output_tokens)
        return response


def offline_path(steps: int) -> list[Row]:
    policy = calls_then_answers(steps)
    scripted = Agent(ScriptedModel(policy), tools=[noop_inline], max_steps=steps)
    recounting = Agent(Recounting(policy), tools=[noop_inline], max_steps=steps)
    budgeted = Agent(ScriptedModel(policy), tools=[noop_inline], max_steps=steps,
                     max_input_tokens=10**12, max_dollars=10**6, price=PRICES["claude-haiku-5-5"])
    runs = [scripted.run("go"), recounting.run("go"), budgeted.run("go")]  # the first runs fill the token cache
    assert [s.response.usage for s in runs[0].steps] == [s.response.usage for s in runs[1].steps]
    assert len(runs[2].steps) == steps  # budgets too large to stop it: only the checking is timed
    t = interleaved({"scripted": lambda: scripted.run("go"), "recounting": lambda: recounting.run("go"),
                     "budgeted": lambda: budgeted.run("go")},
                    rounds_for(steps) if steps < 1000 else 3)
    group = f"c. whole offline path, K={steps}"
    return [
        (group, "Agent.run + ScriptedModel policy + tool (inline)", *(1e6 * s / steps for s in t["scripted"]), "µs/step"),
        (group, "the same, model recounting its whole context each step (before)",
         *(1e6 * s / steps for s in t["recounting"]), "µs/step"),
        (group, "the same, with a token and a dollar budget checked before each call",
         *(1e6 * s / steps for s in t["budgeted"]), "µs/step"),
    ]


def rows() -> list[Row]:
    return [row for steps in KS for row in loop_overhead(steps) + offline_path(steps)] + construction()

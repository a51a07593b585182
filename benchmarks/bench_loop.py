"""What the agent loop itself costs, apart from the model.

Three questions, each answered with ratios measured in one run (absolute times depend
on the machine, ratios much less):

a. Overhead per step: `Agent.run` against a bare loop doing the same model calls and
   tool calls by hand, and what the thread behind a tool's timeout adds.
b. Token accounting: `Agent.run` grows c_k by the tokens of the new messages only, so a
   run's accounting is linear in its steps. Recounting the whole context at every step
   (as a naive loop would) is quadratic; the token cache hides most of that, and without
   it the recount dominates.
c. `import teachagent`: the time a fresh interpreter takes to import it, against one that
   imports nothing.

`rows()` runs them all and returns (benchmark, measurement, value, unit) rows.
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
import time

from teachagent import tokens
from teachagent.agent import Agent
from teachagent.dispatch import Dispatcher
from teachagent.messages import Message, Response, Text
from teachagent.models import ScriptedModel, call
from teachagent.tools import tool

REPEATS = 5


def fastest(fns: dict, repeats: int = REPEATS) -> dict:
    """The fastest of `repeats` timed calls of each function, in seconds.

    The functions take turns, so a burst of load elsewhere on the machine slows all of
    them rather than one; and the minimum is the best estimate, since noise only adds time.
    """
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            gc.collect()
            started = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - started)
    return {name: min(t) for name, t in times.items()}


# --- a. overhead per step ------------------------------------------------------------------


@tool
def noop() -> str:
    """Do nothing, at once."""
    return "ok"


noop_untimed = tool(noop.fn, timeout=None)  # the same tool, run in the caller's thread


def calls_then_answers(steps: int):
    """A policy that calls `noop` at steps 1 to steps - 1 and answers at the last one."""

    def policy(messages):
        k = (len(messages) + 1) // 2  # the task, then a call and its result per step
        return call("noop") if k < steps else "done"

    return policy


def bare_loop(model, dispatcher: Dispatcher, task: str) -> None:
    """The same calls as Agent.run, with nothing around them: no Run, no Steps, no c_k."""
    messages = [Message("user", task)]
    while True:
        response = model.complete("", messages, dispatcher.specs, 1024)
        messages.append(response.to_message())
        if response.stop_reason != "tool_use":
            return
        messages.append(Message("user", [dispatcher(c) for c in response.tool_calls]))


def loop_overhead(steps: int = 50) -> list[tuple]:
    """µs per step of Agent.run and of bare_loop, with the tool run in a thread (the default) or not.

    Most of a step is ScriptedModel itself, which counts its whole context for its usage
    on every call, so the µs per step grow with K; the ratio is what the loop adds.
    """
    policy = calls_then_answers(steps)
    runs = {}
    for timeout, t in [("timeout=10 s", noop), ("timeout=None", noop_untimed)]:
        agent = Agent(ScriptedModel(policy), tools=[t], max_steps=steps)
        assert len(agent.run("go").steps) == steps
        model, dispatcher = ScriptedModel(policy), Dispatcher([t])
        runs["Agent.run", timeout] = lambda agent=agent: agent.run("go")
        runs["bare loop", timeout] = lambda model=model, dispatcher=dispatcher: bare_loop(model, dispatcher, "go")
    per_step = {key: 1e6 * seconds / steps for key, seconds in fastest(runs, repeats=15).items()}

    group = f"a. loop, K={steps} steps"
    rows = [(group, f"{what}, tool {timeout}", us, "µs/step") for (what, timeout), us in per_step.items()]
    for timeout in ("timeout=10 s", "timeout=None"):
        ratio = per_step["Agent.run", timeout] / per_step["bare loop", timeout]
        rows.append((group, f"Agent.run / bare loop, tool {timeout}", ratio, "x"))
    thread = per_step["Agent.run", "timeout=10 s"] - per_step["Agent.run", "timeout=None"]
    rows.append((group, "the timeout's thread, per tool call", thread, "µs"))
    return rows


# --- b. token accounting -------------------------------------------------------------------

FILLER = "the quick brown fox jumps over the lazy dog"


class Writer:
    """A model that writes a new text of the same size at every step and costs nothing.

    Each reply stops with "pause_turn", so the loop sends the context straight back with no
    tool in between, until the answer at step `steps`. Its usage is zero: unlike
    ScriptedModel it counts nothing, unless given a `recount(system, messages, tools)` to
    call on every context it reads, which is how a naive loop would find c_k.
    """

    name = "writer"

    def __init__(self, steps: int, recount=None) -> None:
        self.steps, self.recount = steps, recount

    def complete(self, system, messages, tools, max_tokens):
        if self.recount:
            self.recount(system, messages, tools)
        k = len(messages)  # the task, then one reply per step
        if k >= self.steps:
            return Response([Text("done")], "end_turn")
        return Response([Text(f"step {k:04d}: {FILLER}")], "pause_turn")


def recount_uncached(system, messages, tools) -> int:
    """c_k from scratch, encoding the whole context every time."""
    text = "\n".join([system, *(json.dumps(t) for t in tools), *(m.text for m in messages)])
    return len(tokens.encoding().encode(text, disallowed_special=()))


def run_of(steps: int, recount=None):
    """A function that runs the loop for `steps` steps of Writer, with the token counter emptied first."""

    def run():
        tokens.count_tokens.cache_clear()  # so every step's text is new to the counter
        assert len(Agent(Writer(steps, recount), max_steps=steps).run("go").steps) == steps

    return run


def token_accounting(small: int = 100, large: int = 1000) -> list[tuple]:
    """Time of a K-step run of Writer for two K: 10 times the steps should take 10 times as long."""
    tokens.encoding()  # load the vocabulary before timing anything
    rows = []
    for label, recount, repeats in [
        ("Agent.run alone (c_k grown)", None, 5),
        ("+ full recount per step, cached", tokens.context_tokens, 3),
        ("+ full recount per step, uncached", recount_uncached, 1),
    ]:
        t = fastest({small: run_of(small, recount), large: run_of(large, recount)}, repeats)
        rows += [
            ("b. token accounting", f"{label}, K={small}", 1e3 * t[small], "ms"),
            ("b. token accounting", f"{label}, K={large}", 1e3 * t[large], "ms"),
            ("b. token accounting", f"{label}, K={large} / K={small}", t[large] / t[small], "x (10 linear, 100 quadratic)"),
        ]
    return rows


# --- c. import time ------------------------------------------------------------------------


def import_time(runs: int = 5) -> list[tuple]:
    """Median wall time of a fresh interpreter that imports teachagent, and of one that does not."""
    codes = {"bare": "pass", "import": "import teachagent"}
    times = {name: [] for name in codes}
    for _ in range(runs):  # taking turns, as in fastest()
        for name, code in codes.items():
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times[name].append(1e3 * (time.perf_counter() - started))
    bare, imported = statistics.median(times["bare"]), statistics.median(times["import"])
    return [
        ("c. import", "python -c pass", bare, "ms"),
        ("c. import", "python -c 'import teachagent'", imported, "ms"),
        ("c. import", "import teachagent alone (the difference)", imported - bare, "ms"),
        ("c. import", "with the import / without", imported / bare, "x"),
    ]


def rows() -> list[tuple]:
    return loop_overhead() + token_accounting() + import_time()

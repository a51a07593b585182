"""The same loop in teachagent and in smolagents, a well-known agent library.

Both run one task of K steps with an instant stub model (it writes K - 1 calls to a tool
that does nothing, then a final answer) and a tool run inline, so what is timed is each
library's own machinery per step. smolagents is not a dependency of the course: install
it next to teachagent (`pip install smolagents`) to get these rows.
"""

from __future__ import annotations

import time
import warnings

from teachagent.agent import Agent
from teachagent.messages import Response, Text, ToolCall, Usage
from teachagent.tools import tool

STEPS = 50
REPEATS = 5


@tool(timeout=None)
def noop() -> str:
    """Do nothing, at once."""
    return "ok"


class InstantModel:
    """Calls `noop` until the last step, then answers; no token counting, like the smolagents stub."""

    name = "instant"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, system, messages, tools, max_tokens):
        self.calls += 1
        if self.calls < STEPS:
            return Response([ToolCall(f"c{self.calls}", "noop", {})], "tool_use", Usage())
        return Response([Text("done")], "end_turn", Usage())


def teachagent_run() -> None:
    run = Agent(InstantModel(), [noop], max_steps=STEPS).run("Call noop, then answer.")
    assert run.outcome == "answer" and len(run.steps) == STEPS


def smolagents_run() -> None:
    from smolagents import ToolCallingAgent
    from smolagents import tool as smol_tool
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, Model
    from smolagents.monitoring import LogLevel

    with warnings.catch_warnings():  # smolagents warns about tools defined inside a function; harmless here
        warnings.simplefilter("ignore")

        @smol_tool
        def smol_noop() -> str:
            """Do nothing, at once."""
            return "ok"

    class Instant(Model):
        def __init__(self) -> None:
            super().__init__(model_id="instant")
            self.calls = 0

        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
            self.calls += 1
            name, arguments = ("smol_noop", {}) if self.calls < STEPS else ("final_answer", {"answer": "done"})
            function = ChatMessageToolCallFunction(name=name, arguments=arguments)
            call = ChatMessageToolCall(function=function, id=f"c{self.calls}", type="function")
            return ChatMessage(role="assistant", content="", tool_calls=[call])

    agent = ToolCallingAgent(tools=[smol_noop], model=Instant(), max_steps=STEPS + 1, verbosity_level=LogLevel.OFF)
    assert agent.run("Call smol_noop, then answer.") == "done"


def fastest(fn) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def rows() -> list[tuple]:
    group = f"e. vs smolagents, K={STEPS}"
    ours = fastest(teachagent_run) / STEPS * 1e6
    try:
        import smolagents
    except ImportError:
        return [(group, "teachagent Agent.run, instant model", ours, "µs/step"),
                (group, "smolagents not installed: pip install smolagents to compare", 0.0, "")]
    theirs = fastest(smolagents_run) / STEPS * 1e6
    return [
        (group, "teachagent Agent.run, instant model", ours, "µs/step"),
        (group, f"smolagents {smolagents.__version__} ToolCallingAgent.run, instant model", theirs, "µs/step"),
        (group, "smolagents / teachagent", theirs / ours, "x"),
    ]

"""The same loop in teachagent and in smolagents, a well-known agent library.

Both run one task of K steps (K - 1 calls to a tool that does nothing, then a final
answer) with an instant stub model that builds its replies beforehand, and a tool run
inline, so what is timed is each library's own machinery per step. Each agent is built
once, outside the timing (construction is a row of its own); the two take turns, round
after round. smolagents is not a dependency of the course: install it next to
teachagent (`pip install smolagents`) to get these rows.

This compares machinery, not quality: smolagents does more per step (its memory of
the run, logging, prompt templates), which is what a course's loop can leave out.
"""

from __future__ import annotations

import warnings

from timing import InstantModel, Row, interleaved

from teachagent.agent import Agent
from teachagent.tools import tool

KS = (10, 100, 1000)


@tool(timeout=None)
def noop() -> str:
    """Do nothing, at once."""
    return "ok"


def smolagents_parts(steps: int):
    """A function that builds a smolagents ToolCallingAgent over a stub model, and that model (to rewind)."""
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

    def reply(k: int) -> ChatMessage:
        name, arguments = ("smol_noop", {}) if k < steps else ("final_answer", {"answer": "done"})
        function = ChatMessageToolCallFunction(name=name, arguments=arguments)
        return ChatMessage(role="assistant", content="", tool_calls=[ChatMessageToolCall(function=function,
                                                                                       id=f"c{k}", type="function")])

    class Instant(Model):
        def __init__(self) -> None:
            super().__init__(model_id="instant")
            self.replies, self.calls = [reply(k) for k in range(1, steps + 1)], 0

        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
            self.calls += 1
            return self.replies[self.calls - 1]

    model = Instant()

    def build():
        return ToolCallingAgent(tools=[smol_noop], model=model, max_steps=steps + 1, verbosity_level=LogLevel.OFF)

    return build, model


def per_step(steps: int, version: str) -> list[Row]:
    ours = Agent(InstantModel(steps), [noop], max_steps=steps)
    build_theirs, their_model = smolagents_parts(steps)
    theirs = build_theirs()

    def rewind() -> None:
        their_model.calls = 0

    rewind()
    assert len(ours.run("go").steps) == steps and theirs.run("Call smol_noop, then answer.") == "done"
    t = interleaved({"ours": lambda: ours.run("go"), "theirs": lambda: theirs.run("Call smol_noop, then answer.")},
                    rounds=max(3, 1000 // steps), setup={"theirs": rewind})
    us = {name: (1e6 * best / steps, 1e6 * median / steps) for name, (best, median) in t.items()}
    group = f"f. vs smolagents {version}, instant stubs, K={steps}"
    return [
        (group, "teachagent Agent.run, tool inline", *us["ours"], "µs/step"),
        (group, "smolagents ToolCallingAgent.run, tool inline", *us["theirs"], "µs/step"),
        (group, "smolagents / teachagent", us["theirs"][0] / us["ours"][0], us["theirs"][1] / us["ours"][1], "x"),
    ]


def rows() -> list[Row]:
    try:
        import smolagents
    except ImportError:
        return [("f. vs smolagents", "smolagents not installed, rows skipped: pip install smolagents to compare",
                 0.0, None, "")]
    rows = [row for steps in KS for row in per_step(steps, smolagents.__version__)]
    model, (build_theirs, _) = InstantModel(10), smolagents_parts(10)
    batch = 20  # agents built per timed call
    built = interleaved({"ours": lambda: [Agent(model, [noop], max_steps=10) for _ in range(batch)],
                         "theirs": lambda: [build_theirs() for _ in range(batch)]}, rounds=15)
    group = "f. building an agent, outside the runs above"
    rows += [(group, "teachagent Agent(model, [one tool])", *(1e6 * s / batch for s in built["ours"]), "µs"),
             (group, "smolagents ToolCallingAgent(tools=[one tool], model=model)",
              *(1e6 * s / batch for s in built["theirs"]), "µs")]
    return rows

"""Checks for the exercises of notebooks/04_memory.ipynb (lesson 4: memory).

4.1 `check_progress`: a function that reads how far a plan written in a reply has got.
4.2 `check_smallest_limit`: the smallest `max_context_tokens` with which the trip agent still answers.
4.3 `check_seat_finder`: a policy for a new session that finds a note in long-term memory with a tool.

Each prints one line, "correct: ..." or "not yet: ..." (see `teachagent.exercises`).
Where an exercise is about an agent, the check plays it with a `ScriptedModel` itself,
so it tests the same behaviour in live mode as offline.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..agent import Agent, AgentError
from ..base.display import shorten
from ..memory import MemoryStore, memory_tools
from ..messages import Message, tool_exchanges
from ..models import ScriptedModel
from ..plan import find_plan, write_plan
from ..tools import Tool
from ..trace import Run
from . import NotYet, check, expect, filled

# 4.1: a reply with a plan, one without, and a plan written by hand with two of three items done
REPLIES = [
    write_plan([(True, "read the notes"), (False, "read the map"), (False, "answer")]) + "\n\nNext: read the map.",
    "Packing list: rain jacket.",
    "Plan:\n1. [x] book the train\n2. [X] book the hotel\n3. [ ] pack",
]


def check_progress(progress: Callable[[str], Any], run: Run) -> None:
    """4.1: `progress(text)` is (ticked items, all items) of the plan written in `text`, or (0, 0) if it holds none."""

    def test() -> str:
        for text in REPLIES + [step.response.text for step in run.steps]:
            got = filled(progress(text), "progress(text)")
            plan = find_plan(text) or []
            wanted = (sum(done for done, _ in plan), len(plan))
            expect(isinstance(got, (tuple, list)) and tuple(got) == wanted,
                   f"progress gave {shorten(repr(got))} for this reply, not {wanted}: {shorten(repr(text), 70)}")
        steps = ", ".join("{} of {}".format(*progress(step.response.text)) for step in run.steps)
        return f"the plan at each step of the run, ticked of all items: {steps}"

    check("4.1", test)


def check_smallest_limit(smallest: Any, policy: Callable, tools: list[Tool], system: str, task: str) -> None:
    """4.2: with `max_context_tokens=smallest` the scripted `policy` answers; with one token less it does not."""

    def run_with_limit(limit: int) -> Run:
        return Agent(ScriptedModel(policy), tools=tools, system=system, max_context_tokens=limit).run(task)

    def test() -> str:
        limit = filled(smallest, "smallest")
        expect(isinstance(limit, int) and not isinstance(limit, bool),
               f"`smallest` is {shorten(repr(limit))}; a limit is a whole number of tokens")
        enough = run_with_limit(limit)
        expect(enough.outcome == "answer",
               f"with max_context_tokens = {limit} the agent stops before it answers (outcome {enough.outcome!r})")
        short = run_with_limit(limit - 1)
        expect(short.outcome != "answer",
               f"with max_context_tokens = {limit - 1} the agent still answers, so {limit} is not the smallest")
        return (f"with {limit} tokens the agent answers after {len(enough.steps)} calls; "
                f"with {limit - 1} it stops before call {len(short.steps) + 1} ({short.outcome!r})")

    check("4.2", test)


SEAT_TASK = "Pick my seat."
OTHER_NOTES = ["The user's passport expires in 2031.", "The user prefers a window seat on the left, away from the wing."]


def check_seat_finder(seat_finder: Callable[[list[Message]], Any], memory_file: str | Path) -> None:
    """4.3: a session played by `seat_finder` finds the seat note with `search_notes` and answers with it.

    It runs on `memory_file`, then on a memory holding a different seat note: an answer
    typed into the policy instead of taken from the search cannot pass both.
    """

    def test() -> str:
        answer = _seat_session(seat_finder, MemoryStore(memory_file))
        with tempfile.TemporaryDirectory() as folder:
            other = MemoryStore(Path(folder) / "other.sqlite")
            for note in OTHER_NOTES:
                other.save(note)
            _seat_session(seat_finder, other)
        return f"a new session searched long-term memory and answered: {answer}"

    check("4.3", test)


def _seat_session(seat_finder: Callable[[list[Message]], Any], store: MemoryStore) -> str:
    """The answer of one session on `store` played by `seat_finder`, or NotYet saying what went wrong."""
    notes = store.search("window")
    expect(bool(notes), f"{store.path.name} holds no note about window seats: run the cell above the exercise")

    def played(messages: list[Message]) -> Any:
        reply = seat_finder(messages)
        if reply is Ellipsis:
            raise NotYet(f"seat_finder still returns ... at step {sum(m.role == 'assistant' for m in messages) + 1} "
                         "(fill in the marked gap)")
        return reply

    try:
        run = Agent(ScriptedModel(played, name="seat_finder"), memory_tools(store)).run(SEAT_TASK)
    except AgentError as error:
        if isinstance(error.__cause__, NotYet):
            raise error.__cause__ from None
        raise
    answer = run.answer or ""
    searched = [call.input.get("query") for call, _ in tool_exchanges(run.messages) if call.name == "search_notes"]
    expect(bool(searched), f"the agent never called search_notes; it answered {shorten(repr(answer))}")
    expect(run.outcome == "answer", f"the session ended without an answer (outcome {run.outcome!r})")
    expect(notes[0].text in answer,
           f"the answer does not say what memory holds ({notes[0].text!r}); "
           f"it was {shorten(repr(answer))} after searching {shorten(repr(searched))}")
    return answer

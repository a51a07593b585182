"""Checks for the exercises and the quiz of notebooks/04_memory.ipynb (lesson 4: memory).

4.1 `check_progress`: a function that reads how far a plan written in a reply has got.
4.2 `check_smallest_limit`: the smallest `max_context_tokens` with which the trip agent still answers.
4.3 `check_seat_finder`: a policy for a new session that finds a note in long-term memory with a tool.
`QUIZ`: the key to the lesson's four quiz questions.

Each check prints one line, "correct: ..." or "not yet: ..." (see `teachagent.exercises`).
Where an exercise is about an agent, the check plays it with a `ScriptedModel` itself,
so it tests the same behaviour in live mode as offline. Every case a check tries is shown
in the notebook or named in the exercise's statement.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..agent import Agent, AgentError
from ..base.display import one_line, shorten
from ..memory import MemoryStore, memory_tools
from ..messages import Message
from ..plan import find_plan, write_plan
from ..scripted import Policy, ScriptedModel, tool_exchanges
from ..tools import Tool
from ..trace import Run
from .checks import NotYet, check, describe, expect, filled, whole
from .quizzes import Question

# 4.1: the notebook prints these three before the exercise, so no case of the check is hidden.
# A plan written by write_plan, a reply with no plan, and a plan typed by hand with a capital [X].
REPLIES = [
    write_plan([(True, "read the notes"), (False, "read the map"), (False, "answer")]) + "\n\nNext: read the map.",
    "Packing list: rain jacket.",
    "Plan:\n1. [x] book the train\n2. [X] book the hotel\n3. [ ] pack",
]


def _pair(got: Any) -> tuple[int, int] | None:
    """`got` as two plain ints if it is a tuple or list of two whole numbers, else None (asking `got` nothing)."""
    kind = tuple if isinstance(got, tuple) else list if isinstance(got, list) else None
    if kind is None or kind.__len__(got) != 2:
        return None
    try:
        return whole(kind.__getitem__(got, 0), "ticked"), whole(kind.__getitem__(got, 1), "total")
    except NotYet:
        return None


def check_progress(progress: Callable[[str], Any], run: Run) -> None:
    """4.1: `progress(text)` is (ticked items, all items) of the plan written in `text`, or (0, 0) if it holds none."""

    def test() -> str:
        for text in REPLIES + [step.response.text for step in run.steps]:
            got = filled(progress(text), "progress(text)")
            plan = find_plan(text) or []
            wanted = (sum(done for done, _ in plan), len(plan))
            pair = _pair(got)
            expect(pair is not None,
                   f"progress gave {describe(got)} for a reply; it should give a pair of whole numbers, such as {wanted}")
            if pair != wanted and "[X]" in text:
                raise NotYet(f"progress gave {pair}, not {wanted}, for a reply that ticks an item with a capital [X], "
                             f"which counts as done too: {shorten(repr(text), 70)}")
            expect(pair == wanted, f"progress gave {pair} for this reply, not {wanted}: {shorten(repr(text), 70)}")
        counts = [find_plan(step.response.text) or [] for step in run.steps]
        steps = ", ".join(f"{sum(done for done, _ in plan)} of {len(plan)}" for plan in counts)
        return f"the plan at each step of the run, ticked of all items: {steps}"

    check("4.1", test)


def check_smallest_limit(smallest: Any, policy: Policy, tools: list[Tool], system: str, task: str) -> None:
    """4.2: with `max_context_tokens=smallest` the scripted `policy` answers; with one token less it does not."""

    def run_with_limit(limit: int) -> Run:
        return Agent(ScriptedModel(policy), tools=tools, system=system, max_context_tokens=limit).run(task)

    def test() -> str:
        limit = whole(smallest, "smallest")
        expect(limit >= 1, f"`smallest` is {limit}; a limit on the context is at least 1 token")
        enough = run_with_limit(limit)
        expect(enough.outcome == "answer",
               f"with max_context_tokens = {limit} the agent stops before it answers (outcome {enough.outcome!r}): "
               "a call it needs reads more than that")
        short = run_with_limit(limit - 1)
        expect(short.outcome != "answer",
               f"with max_context_tokens = {limit - 1} the agent still answers, so {limit} is not the smallest")
        return (f"with {limit} tokens the agent answers after {len(enough.steps)} calls; "
                f"with {limit - 1} it stops before call {len(short.steps) + 1} ({short.outcome!r})")

    check("4.2", test)


SEAT_TASK = "Pick my seat."
# 4.3's second memory, named in the exercise's statement: a different seat note, and one that is not about seats
OTHER_NOTES = ["The user's passport expires in 2031.", "The user prefers a window seat on the left, away from the wing."]


def check_seat_finder(seat_finder: Callable[[list[Message]], Any], memory_file: str | Path) -> None:
    """4.3: a session played by `seat_finder` finds the seat note with `search_notes` and answers with it.

Any query whose results hold the seat note passes ("window", "seat"), as the statement says.

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
        # the answer on one line, however many it was written on: a verdict is one line
        return f"a new session searched long-term memory and answered: {one_line(answer, 200)}"

    check("4.3", test)


def _plain(words: str) -> str:
    """`words` with case and runs of spaces dropped: how an answer is compared with a note."""
    return " ".join(words.lower().split())


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
    expect(_plain(notes[0].text) in _plain(answer),
           f"the answer does not say what memory holds ({notes[0].text!r}); "
           f"it was {shorten(repr(answer))} after searching {shorten(repr(searched))}")
    return answer


QUIZ = {
    "4.1": Question(
        answer="c",
        right="a session's context is gone when it stops; the next one starts from a fresh c₁, and only a tool "
              "result or text our code puts into c₁ can carry anything over",
        wrong={
            "a": "the Agent object starts every run from a new c₁ (system prompt, tools, task); it sends nothing "
                 "of an earlier session",
            "b": "the plan was text inside Monday's context, and that context ended with Monday's session",
        },
    ),
    "4.2": Question(
        answer="a",
        right="the loop never parses the plan; a tick is a claim in the model's text, and only the tool results "
              "show what was really done (the scripted boaster in section 2)",
        wrong={
            "b": "the loop runs whatever tool calls a step makes and never compares them with the plan",
            "c": "find_plan only reads the marks; it cannot know what was read, and it raises nothing",
        },
    ),
    "4.3": Question(
        answer="b",
        right="a context larger than the window cannot be read, so there is no reply at all: PromptTooLong, "
              "and the run ends as an error that keeps the steps done so far",
        wrong={
            "a": "that stop reason comes when the context fits and the reply then reaches the window's end",
            "c": "no model reads part of a context here: the API refuses the whole request",
        },
    ),
    "4.4": Question(
        answer="c",
        right="each sub-agent read its report in its own session, and that Z is counted too; in the scripted "
              "reference the main agent's context only ever held their one-line answers",
        wrong={
            "a": "a sub-agent is a model reading a context like any other: section 4 prints the Z of the "
                 "sub-agents beside the main agent's",
            "b": "only a sub-agent's final answer comes back, as a tool result; its context is never appended",
        },
    ),
}

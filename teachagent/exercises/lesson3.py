"""Checks for the exercises and the quiz of notebooks/03_agent_loop.ipynb (lesson 3: the agent loop).

3.1 `check_total_context`: a function that adds up what each call read, Z = c_1 + ... + c_K.
3.2 `check_smallest_budget`: the smallest `max_steps` with which the careful reader still answers.
3.3 `check_recovery`: a script that reads the first file an error suggests, and goes on.
`compare_cK_guess` holds section 4's guess of c_K against the run (through guesses.guess_line).

Where an exercise is about a scripted policy, the check plays it with a `ScriptedModel`
itself, so it tests the same behaviour in live mode as offline. The reference solutions
are in solutions/lesson3.py.
"""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..agent import Agent
from ..base.display import one_line, shorten
from ..messages import ToolCall
from ..scripted import Policy, ScriptedModel
from ..tools import Tool, read_file_tool
from ..trace import Run, Step
from .checks import check, describe, expect, text, whole
from .guesses import guess_line
from .quizzes import Question

# the folder 3.3 is also run on, so that a second step naming a file itself, not reading the error, shows
OTHER_FILES = {"asteroids.txt": "Ceres is the largest asteroid.\n", "comets.txt": "Halley returns every 76 years.\n"}


def compare_cK_guess(guess: Any, run: Run) -> None:
    """Section 4's prediction, through `guess_line`: the guessed c_K beside what the run's last call read."""
    sizes = run.context_sizes
    whose = ("the run" if run.scripted else f"your model's run ({shorten(run.model, 60)})").replace("{", "{{").replace("}", "}}")
    if not sizes:  # a sentence with no figure in it: guess_line still says first whether there is a guess
        print(guess_line(guess, math.nan, f"{whose} made no call (outcome {run.outcome!r}), so there is no c_K"))
        return
    said = (f"{whose} made K = {len(sizes)} call{'s' * (len(sizes) != 1)}, and its last read c_{len(sizes)} = {{:g}} "
            f"tokens, {sizes[-1] / sizes[0]:.1f} times its first")
    print(guess_line(guess, sizes[-1], said))


def check_total_context(total_context: Callable[[list[Step]], Any], run: Run) -> None:
    """Exercise 3.1: `total_context(steps)` gives Z, the tokens read by all the calls in `steps`."""

    def test() -> str:
        for k in range(1, len(run.steps) + 1):
            got = whole(total_context(run.steps[:k]), f"total_context(run.steps[:{k}])")
            read = sum(step.context_tokens for step in run.steps[:k])
            expect(got == read, f"total_context(run.steps[:{k}]) returned {got}; {_calls_read(k, read)}")
        total = sum(step.context_tokens for step in run.steps)
        return f"Z = {total} tokens over {len(run.steps)} calls, and the right total for the first k calls, whatever k"

    check("3.1", test)


def _calls_read(k: int, read: int) -> str:
    """What the first k calls read, in words that fit k."""
    if k == 1:
        return f"that one call read {read} tokens (c_1)"
    terms = "c_1 + c_2" if k == 2 else f"c_1 + ... + c_{k}"
    return f"those {k} calls read {read} tokens in all ({terms})"


def check_smallest_budget(smallest: Any, policy: Policy, tools: list[Tool], system: str, task: str) -> None:
    """Exercise 3.2: with `max_steps=smallest` the scripted `policy` answers; with one step fewer it runs out."""

    def run_with(max_steps: int) -> Run:
        return Agent(ScriptedModel(policy), tools=tools, system=system, max_steps=max_steps).run(task)

    def test() -> str:
        n = whole(smallest, "smallest")
        expect(n >= 1, f"`smallest` is {n}; a step budget is a whole number, at least 1")
        enough = run_with(n)
        expect(enough.outcome == "answer", f"with max_steps={n} the run ends with outcome {enough.outcome!r}, "
                                           "before an answer: it needs more steps")
        fewer = run_with(n - 1) if n > 1 else None
        expect(fewer is None or fewer.outcome != "answer", f"with max_steps={n - 1} it answers too: look for a smaller budget")
        reading = sum(1 for step in enough.steps if step.results)
        return f"max_steps={n}: {reading} steps calling read_file, then one to answer; with {n - 1} it runs out of steps"

    check("3.2", test)


def check_recovery(script: list[Any], read_file: Tool, system: str, task: str) -> None:
    """Exercise 3.3: the script's first call fails, its second reads the first file the error suggests, then it answers.

    It is run twice: on the lesson's folder through `read_file`, and on a folder of other
    files, so a second step that names a file itself, instead of reading the error, shows.
    """

    def test() -> str:
        nonlocal script
        expect(type(script) in (list, tuple), f"the script should be a list of steps, not {describe(script)}")
        script = list(script)
        expect(len(script) >= 3, f"the script has {len(script)} step{'s' * (len(script) != 1)}; it needs at least "
                                 "three: the failing call, the step that reads the error, an answer")
        read = [second_read(read_file)]
        with tempfile.TemporaryDirectory() as other:
            for name, text in OTHER_FILES.items():
                (Path(other) / name).write_text(text, encoding="utf-8")
            read.append(second_read(read_file_tool(other, name=read_file.name)))
        return (f"after the error the agent read {read[0]!r}, the first file suggested, and answered "
                f"(and {read[1]!r} in a folder of other files)")

    def second_read(tool: Tool) -> str:
        """Play the script with `tool`; the path of its second call, once it checks out."""
        first = Agent(ScriptedModel(script[:1]), tools=[tool], system=system, max_steps=1).run(task)
        results = [r for step in first.steps for r in step.results]
        expect(len(results) == 1 and results[0].is_error,
               "the first step must be one call that fails, such as call('read_file', path='venus.md'); "
               f"it got back: {one_line(' | '.join(r.content for r in results) or 'no tool result')}")
        error = results[0].content
        reply = script[1](first.messages) if callable(script[1]) else script[1]
        calls = [block for block in (reply if isinstance(reply, list) else [reply]) if isinstance(block, ToolCall)]
        expect(len(calls) == 1, f"the second step gave {shorten(repr(reply))}; make it one tool call, "
                                "such as call('read_file', path=...)")
        path = text(calls[0].input.get("path"), "suggestion")
        suggested = re.findall(r"include: ([^,\s]+)", error)
        expect(bool(suggested), f"the error suggests no file to read: {one_line(error)}")
        expect(path == suggested[0], f"the second call asked for {shorten(repr(path))}, but the error, "
                                     f"{one_line(error, 150)!r}, suggests {suggested[0]!r} first")
        whole = Agent(ScriptedModel(script), tools=[tool], system=system, max_steps=len(script)).run(task)
        second = whole.steps[1].results[0]
        expect(not second.is_error, f"reading {path!r} failed: {one_line(second.content)}")
        expect(whole.outcome == "answer", f"after reading {path!r} the run ended with outcome {whole.outcome!r}, "
                                          "not an answer: end the script with one")
        return path

    check("3.3", test)


QUIZ = {
    "3.1": Question(
        answer="c",
        right="the loop ends at the first final answer (v_k ∈ F), at an end step, which leaves no answer "
              "(max_tokens, refusal, a reply cut at the context window), or when a budget runs out: "
              "the K_max steps, or the agent's tokens or dollars",
        wrong={"a": "an error result is data: it goes back to the model, which can try again (exercise 3.3)",
               "b": "K_max counts model calls (steps), not tokens; and a step with no text may still hold calls"}),
    "3.2": Question(
        answer="a",
        right="a run that ran out of steps has no answer and says so (outcome max_steps); nothing is passed off as one",
        wrong={"b": "the last text was written on the way, not as an answer: treating it as one would hide the failure",
               "c": "a tool result is an observation for the model, never the agent's answer"}),
    "3.3": Question(
        answer="b",
        right="c_4 = c_3 ⊕ v_3 ⊕ N(v_3): the model's step 3 and what its calls returned",
        wrong={"a": "the model's own step v_3 is appended too: the model rereads what it wrote",
               "c": "the context grows at every step; that growth is what Z adds up"}),
}

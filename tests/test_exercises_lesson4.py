"""The checks of lesson 4's exercises and quiz (teachagent/exercises/lesson4.py).

For each exercise: right answers written in several styles say "correct", plausible wrong
ones say "not yet" with the real mistake, and hostile objects (an `__eq__` that always says
True, a `__str__`/`__len__`/`__bool__` that raises, `sys.exit()`) get one line too.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest
from learner_objects import AlwaysEqual, Broken, LyingInt

from teachagent import Agent, MemoryStore, ScriptedModel, Text, call, find_plan, latest_results, read_file_tool, write_plan
from teachagent.exercises.lesson4 import REPLIES, check_progress, check_seat_finder, check_smallest_limit

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "04_memory.ipynb"


class LyingTuple(tuple):
    def __eq__(self, other):
        return True

    __hash__ = tuple.__hash__

    def __iter__(self):
        raise RuntimeError("no iterating")


def planner(messages):
    """Plans two items, reads a file, then answers with its plan ticked."""
    if len(messages) == 1:
        return [Text(write_plan([(False, "read a.md"), (False, "answer")])), call("read_file", path="a.md")]
    return write_plan([(True, "read a.md"), (True, "answer")]) + "\n\nBring a map."


@pytest.fixture
def setting(tmp_path):
    """The planner with its tools, system prompt and task: what `check_smallest_limit` runs."""
    (tmp_path / "a.md").write_text("Bring a map.")
    return planner, [read_file_tool(tmp_path)], "Plan first.", "Get ready."


@pytest.fixture
def plan_run(setting):
    """One run of the planner, with no limit."""
    policy, tools, system, task = setting
    return Agent(ScriptedModel(policy), tools, system).run(task)


# 4.1


def progress(text):
    plan = find_plan(text) or []
    return sum(done for done, _ in plan), len(plan)


def progress_by_hand(text):  # no find_plan: the marks counted line by line
    marks = re.findall(r"^\s*\d+\.\s*\[([ xX])\]", text, flags=re.MULTILINE) if "Plan:" in text else []
    return [sum(m in "xX" and m != " " for m in marks), len(marks)]


def progress_with_a_loop(text):
    ticked = total = 0
    for done, _ in find_plan(text) or []:
        total += 1
        if done:
            ticked += 1
    return ticked, total


def progress_lowered(text):  # reads the capital X by lowering the whole text first
    lowered = text.lower()
    return lowered.count("[x]"), lowered.count("[x]") + lowered.count("[ ]")


@pytest.mark.parametrize("right", [progress, progress_by_hand, progress_with_a_loop, progress_lowered])
def test_progress_right(said, plan_run, right):
    check_progress(right, plan_run)
    assert said("4.1") == "correct: the plan at each step of the run, ticked of all items: 0 of 2, 2 of 2\n"


def test_every_case_of_4_1_is_shown():
    """The replies the check tries are the ones the notebook prints, the capital [X] among them."""
    assert any("[X]" in reply for reply in REPLIES) and any(find_plan(reply) is None for reply in REPLIES)


@pytest.mark.parametrize("wrong, problem", [
    (lambda text: ..., "`progress(text)` is still ..."),
    (lambda text: progress(text)[::-1], "progress gave (3, 1) for this reply, not (1, 3)"),
    (lambda text: list(progress(text)) + [0], "progress gave an object of type list for a reply; it should give a pair"),
    (lambda text: (sum(d for d, _ in find_plan(text)), len(find_plan(text))), "your code raised TypeError"),
    (lambda text: (text.count("[x]"), text.count("[")), "ticks an item with a capital [X], which counts as done too"),
    (lambda text: (text.count("[x]"), text.count("[x]") + text.count("[ ]")), "capital [X]"),
    (lambda text: (len(find_plan(text) or []), len(find_plan(text) or [])), "progress gave (3, 3) for this reply, not (1, 3)"),
    (lambda text: f"{progress(text)[0]} of {progress(text)[1]}", "progress gave '1 of 3' for a reply"),
    (lambda text: (True, 3), "progress gave an object of type tuple"),
])
def test_progress_not_yet(said, plan_run, wrong, problem):
    check_progress(wrong, plan_run)
    line = said("4.1")
    assert line.startswith("not yet: ") and problem in line, line


@pytest.mark.parametrize("hostile", [
    lambda text: AlwaysEqual(),
    lambda text: LyingTuple((9, 9)),
    lambda text: (LyingInt(9), LyingInt(9)),
    lambda text: Broken(),
    lambda text: sys.exit(0),
    lambda text: (_ for _ in ()).throw(type("E", (Exception,), {"__str__": lambda self: 1 / 0})()),
])
def test_progress_hostile(said, plan_run, hostile):
    check_progress(hostile, plan_run)
    assert said("4.1").startswith("not yet: ")


# 4.2


@pytest.mark.parametrize("style", [
    lambda run: max(run.context_sizes),
    lambda run: run.context_sizes[-1],
    lambda run: run.steps[-1].context_tokens,
    lambda run: float(sorted(s.context_tokens for s in run.steps)[-1]),  # 395.0 is a whole number too
])
def test_smallest_limit_right(said, setting, plan_run, style):
    smallest = max(plan_run.context_sizes)
    check_smallest_limit(style(plan_run), *setting)
    assert said("4.2").startswith(f"correct: with {smallest} tokens the agent answers after 2 calls; ")


@pytest.mark.parametrize("style, problem", [
    (lambda run: max(run.context_sizes) + 1, "the agent still answers, so"),
    (lambda run: max(run.context_sizes) - 1, "stops before it answers"),
    (lambda run: min(run.context_sizes), "stops before it answers"),
    (lambda run: run.Z, "the agent still answers, so"),
    (lambda run: len(run.steps), "stops before it answers"),
    (lambda run: max(run.context_sizes) + 0.5, "should be a whole number"),
])
def test_smallest_limit_wrong(said, setting, plan_run, style, problem):
    check_smallest_limit(style(plan_run), *setting)
    line = said("4.2")
    assert line.startswith("not yet: ") and problem in line, line


@pytest.mark.parametrize("wrong, problem", [
    (..., "`smallest` is still ..."),
    ("300", "`smallest` should be a number, not '300'"),
    (True, "`smallest` should be a number, not the truth value True"),
    (0, "a limit on the context is at least 1 token"),
    (AlwaysEqual(), "should be a number, not an object of type AlwaysEqual"),
    (Broken(), "should be a number, not an object of type Broken"),
])
def test_smallest_limit_not_a_number(said, setting, wrong, problem):
    check_smallest_limit(wrong, *setting)
    line = said("4.2")
    assert line.startswith("not yet: ") and problem in line, line


def test_smallest_limit_reads_a_lying_int_as_its_value(said, setting, plan_run):
    check_smallest_limit(LyingInt(max(plan_run.context_sizes) + 1), *setting)
    assert said("4.2").startswith("not yet: ")


# 4.3


@pytest.fixture
def memory_file(tmp_path):
    path = tmp_path / "memory.sqlite"
    MemoryStore(path).save("The user is vegetarian and prefers window seats.")
    return path


def seat_finder(messages):
    results = latest_results(messages)
    if not results:
        return call("search_notes", query="window")
    return "Seat booked: " + results[0].content


def seat_finder_loud(messages):  # another query, and an answer in capitals
    results = latest_results(messages)
    if not results:
        return call("search_notes", query="window seat")
    return "WINDOW SEAT, BECAUSE: " + results[0].content.upper()


def seat_finder_by_count(messages):  # decides by counting its own earlier steps, and strips the note's id
    if sum(m.role == "assistant" for m in messages) == 0:
        return [Text("Let me look in memory."), call("search_notes", query="Window")]
    note = latest_results(messages)[0].content.split("] ", 1)[1]
    return f"From memory: {note}  I picked a window seat."


def seat_finder_by_seat(messages):  # the statement says a search for "seat" passes too: it finds the note
    results = latest_results(messages)
    if not results:
        return call("search_notes", query="seat")
    return "Seat booked: " + results[0].content


def test_4_3_statement_names_the_searches_its_check_accepts():
    (statement,) = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells
                    if c.source.startswith("**Exercise 4.3")]
    assert '"window" finds it; so does "seat"' in statement


def test_seat_finder_right(said, memory_file):
    check_seat_finder(seat_finder, memory_file)
    assert said("4.3") == ("correct: a new session searched long-term memory and answered: "
                           "Seat booked: [1] The user is vegetarian and prefers window seats.\n")


def seat_finder_on_lines(messages):  # an answer of several lines: the verdict is still one line
    results = latest_results(messages)
    if not results:
        return call("search_notes", query="window")
    return "Seat booked.\n\nFrom memory:\n" + results[0].content + "\n"


def test_an_answer_of_several_lines_is_one_line_of_verdict(said, memory_file):
    check_seat_finder(seat_finder_on_lines, memory_file)
    assert said("4.3") == ("correct: a new session searched long-term memory and answered: "
                           "Seat booked. From memory: [1] The user is vegetarian and prefers window seats.\n")


@pytest.mark.parametrize("right", [seat_finder_loud, seat_finder_by_count, seat_finder_by_seat])
def test_seat_finder_right_in_other_styles(said, memory_file, right):
    check_seat_finder(right, memory_file)
    assert said("4.3").startswith("correct: a new session searched long-term memory and answered: ")


def typed_in(messages):  # searches, but answers with the note of the first memory whatever it found
    if not latest_results(messages):
        return seat_finder(messages)
    return "Seat booked: The user is vegetarian and prefers window seats."


def second_gap(messages):
    return seat_finder(messages) if not latest_results(messages) else ...


@pytest.mark.parametrize("wrong, problem", [
    (lambda messages: ..., "seat_finder still returns ... at step 1"),
    (second_gap, "seat_finder still returns ... at step 2"),
    (lambda messages: "Seat booked: window.", "never called search_notes"),
    (lambda messages: call("list_notes") if not latest_results(messages) else "Seat booked.", "never called search_notes"),
    (lambda messages: call("search_notes", query="aisle") if not latest_results(messages) else "Seat booked: " +
     latest_results(messages)[0].content, "the answer does not say what memory holds"),
    (typed_in, "'The user prefers a window seat on the left, away from the wing.'"),
    (lambda messages: call("search_notes", query="window"), "ended without an answer (outcome 'max_steps')"),
    (lambda messages: messages[5], "your code raised AgentError"),
])
def test_seat_finder_not_yet(said, memory_file, wrong, problem):
    check_seat_finder(wrong, memory_file)
    line = said("4.3")
    assert line.startswith("not yet: ") and problem in line, line


@pytest.mark.parametrize("hostile", [
    lambda messages: AlwaysEqual(),
    lambda messages: Broken(),
    lambda messages: sys.exit(3),
])
def test_seat_finder_hostile(said, memory_file, hostile):
    check_seat_finder(hostile, memory_file)
    assert said("4.3").startswith("not yet: ")


def test_seat_finder_needs_the_note(said, tmp_path):
    check_seat_finder(seat_finder, tmp_path / "empty.sqlite")
    assert said("4.3") == "not yet: empty.sqlite holds no note about window seats: run the cell above the exercise\n"

"""The checks of lesson 4's exercises (teachagent/exercises/lesson4.py): each says "not yet" to
the gap and to wrong answers, and "correct" to a right one, in one printed line."""

from __future__ import annotations

import pytest

from teachagent import Agent, MemoryStore, ScriptedModel, Text, call, find_plan, latest_results, read_file_tool, write_plan
from teachagent.exercises.lesson4 import check_progress, check_seat_finder, check_smallest_limit


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


def test_progress_right(said, plan_run):
    check_progress(progress, plan_run)
    assert said("4.1") == "correct: the plan at each step of the run, ticked of all items: 0 of 2, 2 of 2\n"


@pytest.mark.parametrize("wrong, problem", [
    (lambda text: ..., "`progress(text)` is still ..."),
    (lambda text: progress(text)[::-1], "progress gave (3, 1) for this reply, not (1, 3)"),
    (lambda text: list(progress(text)) + [0], "progress gave [1, 3, 0]"),
    (lambda text: (sum(d for d, _ in find_plan(text)), len(find_plan(text))), "your code raised TypeError"),
    (lambda text: (text.count("[x]"), text.count("[")), "progress gave (1, 3)"),  # misses the [X] of a plan
])
def test_progress_not_yet(said, plan_run, wrong, problem):
    check_progress(wrong, plan_run)
    line = said("4.1")
    assert line.startswith("not yet: ") and problem in line, line


# 4.2


def test_smallest_limit_right(said, setting, plan_run):
    smallest = max(plan_run.context_sizes)
    check_smallest_limit(smallest, *setting)
    assert said("4.2").startswith(f"correct: with {smallest} tokens the agent answers after 2 calls; ")


@pytest.mark.parametrize("offset, problem", [(1, "the agent still answers, so"), (-1, "stops before it answers")])
def test_smallest_limit_off_by_one(said, setting, plan_run, offset, problem):
    check_smallest_limit(max(plan_run.context_sizes) + offset, *setting)
    line = said("4.2")
    assert line.startswith("not yet: ") and problem in line, line


@pytest.mark.parametrize("wrong, problem", [
    (..., "`smallest` is still ..."),
    ("300", "`smallest` is '300'; a limit is a whole number of tokens"),
    (True, "`smallest` is True; a limit is a whole number"),
])
def test_smallest_limit_not_a_number(said, setting, wrong, problem):
    check_smallest_limit(wrong, *setting)
    line = said("4.2")
    assert line.startswith("not yet: ") and problem in line, line


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


def test_seat_finder_right(said, memory_file):
    check_seat_finder(seat_finder, memory_file)
    assert said("4.3") == ("correct: a new session searched long-term memory and answered: "
                                   "Seat booked: [1] The user is vegetarian and prefers window seats.\n")


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


def test_seat_finder_needs_the_note(said, tmp_path):
    check_seat_finder(seat_finder, tmp_path / "empty.sqlite")
    assert said("4.3") == "not yet: empty.sqlite holds no note about window seats: run the cell above the exercise\n"

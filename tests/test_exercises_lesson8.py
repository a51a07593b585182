"""The checks of lesson 8's exercises (notebooks/08_capstone.ipynb) say "not yet" to the gap and to wrong
answers, and "correct" to a right one; its "predict, then run" says what a guess missed."""

from __future__ import annotations

import math

from teachagent import n50, predicted_total, step_success, tool
from teachagent.exercises.lesson8 import SAMPLE_NOTES as NOTES
from teachagent.exercises.lesson8 import check_half_time, check_largest_K, check_titles_tool, compare_Z_guess


def test_compare_Z_guess(said):
    compare_Z_guess(..., 6000)
    assert said().startswith("no guess yet: ")
    for guess in ("a lot", True, -5):
        compare_Z_guess(guess, 6000)
        assert said().startswith(f"your guess {guess!r} is not a number of tokens")
    compare_Z_guess(3000, 6000)
    assert said() == "you guessed Z = 3,000 tokens; the run measured Z = 6,000: 50% too low\n"
    compare_Z_guess(6200, 6000)
    assert said() == "you guessed Z = 6,200 tokens; the run measured Z = 6,000: close\n"


def titles_tool(body):
    @tool
    def note_titles() -> str:
        "One line per note: its file name and its title."
        return body()

    return note_titles


def test_titles_tool(said):
    right = "\n".join(f"{p.name}: {p.read_text().splitlines()[0].removeprefix('# ')}" for p in sorted(NOTES.glob("*.md")))
    wrong = [
        titles_tool(lambda: ...),  # the gap
        lambda: right,  # no @tool
        titles_tool(lambda: 42),  # not text
        titles_tool(lambda: right.replace(": ", ": # ")),  # the heading mark kept
        titles_tool(lambda: "\n".join(right.splitlines()[:-1])),  # one note missing
        titles_tool(lambda: "\n".join(reversed(right.splitlines()))),  # not sorted
        titles_tool(lambda: 1 / 0),  # crashes
    ]
    for answer in wrong:
        check_titles_tool(answer, NOTES)
        assert said().startswith("exercise 8.1: not yet: ")
    check_titles_tool(titles_tool(lambda: right), NOTES)
    assert said() == "exercise 8.1: correct: 5 notes listed, the first 'cactus.md: Bunny-ear cactus'\n"


def test_largest_K(said):
    c1, d, budget = 486, 48.5, 5000
    assert predicted_total(7, c1, d) <= budget < predicted_total(8, c1, d)
    for answer in (..., 0, 6, 8, 7.0, "7", True, -1):
        check_largest_K(answer, c1, d, budget)
        assert said().startswith("exercise 8.2: not yet: ")
    check_largest_K(7, c1, d, budget)
    assert said() == "exercise 8.2: correct: K = 7 calls read Z = 4,420 ≤ 5,000 tokens; K = 8 would read 5,246\n"


def test_half_time(said):
    p, d, r = 0.905, 0.9, 1
    plain, checked = math.floor(n50(p)), math.floor(n50(step_success(p, d, r)))
    assert (plain, checked) == (6, 38)
    for answer in [(..., ...), (7, 38), (6.0, 38), (6, ...), (6, 39), (6, 37), (6, 6), ("6", 38)]:
        check_half_time(*answer, p, d, r)
        assert said().startswith("exercise 8.3: not yet: ")
    check_half_time(1, 1, 1.0, d, r)
    assert said().startswith("exercise 8.3: not yet: p = 1.0")
    check_half_time(6, 38, p, d, r)
    assert said() == "exercise 8.3: correct: p = 0.905: 6 steps unchecked; q = 0.9824 with the check: 38 steps\n"

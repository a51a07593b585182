"""The checks of lesson 8's exercises and quiz (notebooks/08_capstone.ipynb): right answers in several styles are
"correct", plausible wrong ones and hostile objects get one line of "not yet"; its "predict, then run" says what a
guess missed."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from learner_objects import AlwaysEqual, Broken, Exits, LyingInt

from teachagent import n50, predicted_total, step_success, tool
from teachagent.exercises.lesson8 import SAMPLE_NOTES as NOTES
from teachagent.exercises.lesson8 import check_half_time, check_largest_K, check_titles_tool


class LoudStr(str):
    """A str that claims to equal everything and to strip into anything."""

    def __eq__(self, other):
        return True

    def strip(self, *args):
        return self

    def splitlines(self, *args):
        return ["whatever you want"]

    __hash__ = str.__hash__


HOSTILE = [AlwaysEqual(), LyingInt(1), Broken(), Exits()]


# 8.1: the note_titles tool


def titles_tool(body):
    @tool
    def note_titles() -> str:
        "One line per note: its file name and its title."
        return body()

    return note_titles


RIGHT_LINES = [f"{p.name}: {p.read_text().splitlines()[0].removeprefix('# ')}" for p in sorted(NOTES.glob("*.md"))]
RIGHT = "\n".join(RIGHT_LINES)


def read_lines():
    """The right lines, read from the notes in NOTES each time (the name the tool reads, as in lesson 8)."""
    return [f"{p.name}: {p.read_text().splitlines()[0].removeprefix('# ')}" for p in sorted(NOTES.glob("*.md"))]


@pytest.mark.parametrize("body", [
    lambda: "\n".join(read_lines()),
    lambda: "\n".join(read_lines()) + "\n",  # a trailing newline
    lambda: "\n".join(f"{line}  " for line in read_lines()),  # spaces at the ends of lines
    lambda: "\n".join(f"{p.name}: {p.open().readline()[2:].strip()}" for p in sorted(NOTES.iterdir()) if p.suffix == ".md"),
    lambda: "\n".join(sorted(f"{p.name}: {p.read_text().partition(chr(10))[0].lstrip('# ')}" for p in NOTES.glob("*.md"))),
])
def test_titles_tool_right(said, body):
    check_titles_tool(titles_tool(body), NOTES)
    assert said() == "exercise 8.1: correct: 5 notes listed, the first 'cactus.md: Bunny-ear cactus'\n"


@pytest.mark.parametrize("answer, because", [
    (titles_tool(lambda: ...), "is still ..."),
    (lambda: RIGHT, "should be a tool"),  # no @tool
    (titles_tool(lambda: 42), "should be text"),
    (titles_tool(lambda: RIGHT_LINES), "should be text"),  # a list, not one text
    (titles_tool(lambda: RIGHT.replace(": ", ": # ")), "should read"),  # the heading mark kept
    (titles_tool(lambda: RIGHT.replace(".md", "")), "should read"),  # the file name without .md
    (titles_tool(lambda: "\n".join(RIGHT_LINES[:-1])), "gave 4 lines"),  # one note missing
    (titles_tool(lambda: "\n".join(reversed(RIGHT_LINES))), "should read"),  # not sorted
    (titles_tool(lambda: 1 / 0), "ZeroDivisionError"),
    (titles_tool(lambda: sys.exit()), "sys.exit()"),
    (titles_tool(lambda: RIGHT), "gave the same lines when NOTES named another folder"),  # typed in, not read
    (titles_tool(lambda: RIGHT + "\n"), "gave the same lines when NOTES named another folder"),
    (titles_tool(lambda: "\n".join(f"{line}  " for line in RIGHT_LINES)), "gave the same lines"),
])
def test_titles_tool_wrong(said, answer, because):
    check_titles_tool(answer, NOTES)
    assert because in said("8.1")


def test_titles_tool_with_an_argument_and_hostile_results(said):
    @tool
    def note_titles(folder: str) -> str:
        "One line per note.\n\n        Args:\n            folder: where the notes are\n        "
        return RIGHT

    check_titles_tool(note_titles, NOTES)
    assert "should take no arguments" in said("8.1")
    for hostile in (AlwaysEqual(), Broken(), LoudStr("nothing like the titles")):
        check_titles_tool(titles_tool(lambda hostile=hostile: hostile), NOTES)
        assert said("8.1").startswith("not yet: ")
    check_titles_tool(AlwaysEqual(), NOTES)
    assert "should be a tool" in said("8.1")


def test_titles_tool_on_an_empty_folder(said, tmp_path):
    check_titles_tool(titles_tool(lambda: ""), tmp_path)
    assert "has no .md notes" in said("8.1")


# 8.2: the largest K within a budget

C1, D, BUDGET = 486, 48.5, 5000


def by_loop():
    K = 1
    while predicted_total(K + 1, C1, D) <= BUDGET:
        K += 1
    return K


def by_formula():
    # D K²/2 + (C1 − D/2) K − BUDGET = 0, the positive root, rounded down
    a, b = D / 2, C1 - D / 2
    return math.floor((-b + math.sqrt(b * b + 4 * a * BUDGET)) / (2 * a))


@pytest.mark.parametrize("answer", [7, by_loop(), by_formula(), 7.0, np.int64(7),
                                    max(K for K in range(1, 100) if K * C1 + D * K * (K - 1) / 2 <= BUDGET)])
def test_largest_K_right(said, answer):
    assert predicted_total(7, C1, D) <= BUDGET < predicted_total(8, C1, D)
    check_largest_K(answer, C1, D, BUDGET)
    assert said() == "exercise 8.2: correct: K = 7 calls read Z = 4,420 ≤ 5,000 tokens; K = 8 would read 5,246\n"


@pytest.mark.parametrize("answer, because", [
    (..., "is still ..."),
    (0, "one call (K = 1)"),
    (-1, "one call (K = 1)"),
    (6, "K = 7 still fits"),
    (8, "over the budget"),  # the first K that does not fit
    (BUDGET // C1, "over the budget"),  # ignoring the growth: 10 calls
    (7.5, "whole number"),
    ("7", "should be a number"),
    (True, "should be a number"),
])
def test_largest_K_wrong(said, answer, because):
    check_largest_K(answer, C1, D, BUDGET)
    assert because in said("8.2")


@pytest.mark.parametrize("hostile", [*HOSTILE, LyingInt(9)])
def test_largest_K_hostile(said, hostile):
    check_largest_K(hostile, C1, D, BUDGET)
    assert said("8.2").startswith("not yet: ")


# 8.3: the longest task done half the time, with the measured p

P, DELTA, R = 0.905, 0.9, 1


def test_the_numbers_of_8_3():
    assert (math.floor(n50(P)), math.floor(n50(step_success(P, DELTA, R)))) == (6, 38)


def longest(q):
    n = 0
    while q ** (n + 1) >= 0.5:
        n += 1
    return n


@pytest.mark.parametrize("answer", [
    (6, 38),
    (longest(P), longest(step_success(P, DELTA, R))),
    (int(math.log(2) / -math.log(P)), int(math.log(0.5) / math.log(step_success(P, DELTA, R)))),
    (6.0, 38.0),
    (np.int64(6), np.int64(38)),
])
def test_half_time_right(said, answer):
    check_half_time(*answer, P, DELTA, R)
    assert said() == "exercise 8.3: correct: p = 0.905: 6 steps unchecked; q = 0.9824 with the check: 38 steps\n"


@pytest.mark.parametrize("answer, because", [
    ((..., ...), "is still ..."),
    ((7, 38), "n_unchecked = 7"),  # rounded up
    ((6, ...), "is still ..."),
    ((6, 39), "n_checked = 39"),
    ((6, 37), "n_checked = 37"),
    ((6, 6), "n_checked = 6"),  # the checked step forgotten
    ((6.6, 38), "whole number"),  # n₅₀ itself, not rounded down
    (("6", 38), "should be a number"),
    ((-6, 38), "0 or more"),
])
def test_half_time_wrong(said, answer, because):
    check_half_time(*answer, P, DELTA, R)
    assert because in said("8.3")


def test_half_time_with_a_p_of_one(said):
    check_half_time(1, 1, 1.0, DELTA, R)
    assert said("8.3").startswith("not yet: p = 1.0")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_half_time_hostile(said, hostile):
    for answer in ((hostile, 38), (6, hostile)):
        check_half_time(*answer, P, DELTA, R)
        assert said("8.3").startswith("not yet: ")


# the quiz

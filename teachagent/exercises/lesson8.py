"""Checks for the exercises and the quiz of notebooks/08_capstone.ipynb: your own agent.

Learners' values are read as plain numbers and text (`number`, `whole`, `text`) before
anything is compared; the lesson's "predict, then run" uses `guesses.guess_line`, as the
other lessons do.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ..cost import predicted_total
from ..reliability import floor_n50, step_success
from ..tools import Tool
from .checks import check, expect, text, whole
from .quizzes import Question

# The sample notes of lesson 8, shipped inside the package (package data), so the notebook finds them
# wherever its kernel starts and however teachagent was installed.
SAMPLE_NOTES = Path(__file__).resolve().parents[1] / "capstone_notes"


def expected_titles(folder: str | Path) -> str:
    """One line per note in `folder`, sorted by file name: `name: title`, the title being its first line without '# '."""
    lines = []
    for path in sorted(Path(folder).glob("*.md")):
        first = (path.read_text(encoding="utf-8").splitlines() or [""])[0]
        lines.append(f"{path.name}: {first.removeprefix('# ').strip()}")
    return "\n".join(lines)


# A second folder of notes the check makes for exercise 8.1: a tool that lists NOTES must list these when NOTES names
# them (a text typed out from the sample notes lists the same lines whatever NOTES holds).
OTHER_NOTES = {"aloe.md": "# Aloe vera\nWater every: 14 days\n", "basil.md": "# Sweet basil\nWater every: 2 days\n",
               "readme.txt": "# not a note: only .md files are listed\n"}


def check_titles_tool(note_titles: Any, folder: str | Path) -> None:
    """8.1: a tool of your own, `note_titles`, listing each note's file name and title.

    It is run twice: on `folder` (the notebook's NOTES), and on a folder of other notes, with the
    name NOTES the tool reads pointing there for that one call; a tool that returns the same text
    whatever NOTES holds has typed the answer in rather than read it.
    """

    def test() -> str:
        expect(isinstance(note_titles, Tool),
               f"`note_titles` should be a tool: put @tool on the line above its `def`, not {type(note_titles).__name__}")
        expect(not note_titles.input_schema.get("required"), "`note_titles` should take no arguments")
        got = text(note_titles.fn(), "what note_titles returns")  # a tool's result is text: what the model reads
        wanted = expected_titles(folder)
        expect(bool(wanted), f"the folder {folder} has no .md notes to list: point NOTES at a folder of notes")
        same_lines(got, wanted, "the folder has")
        with tempfile.TemporaryDirectory() as other:
            for name, note in OTHER_NOTES.items():
                (Path(other) / name).write_text(note, encoding="utf-8")
            there = text(listed_from(note_titles, Path(other)), "what note_titles returns")
            expect(there.strip() != got.strip(), "note_titles gave the same lines when NOTES named another folder of "
                   "notes: read the notes of the folder NOTES names each time, rather than typing their titles in")
            same_lines(there, expected_titles(other), "with NOTES = another folder, which has")
        wanted_lines = wanted.splitlines()
        return f"{len(wanted_lines)} notes listed, the first {wanted_lines[0]!r}"

    check("8.1", test)


def same_lines(got: str, wanted: str, where: str) -> None:
    """The lines of `got` are those of `wanted`, in order, spaces at their ends aside; a NotYet saying which differs."""
    got_lines, wanted_lines = got.strip().splitlines(), wanted.splitlines()
    expect(len(got_lines) == len(wanted_lines),
           f"note_titles gave {len(got_lines)} lines; {where} {len(wanted_lines)} notes, one line each")
    for mine, right in zip(got_lines, wanted_lines):
        expect(mine.strip() == right, f"the line {mine.strip()!r} should read {right!r}")


def listed_from(note_titles: Tool, folder: Path) -> Any:
    """What `note_titles` returns when the name NOTES it reads names `folder`; the learner's NOTES is put back after."""
    names = getattr(note_titles.fn, "__globals__", {})
    expect("NOTES" in names, "note_titles should list the notes of the folder named NOTES, as the exercise asks")
    before, names["NOTES"] = names["NOTES"], folder
    try:
        return note_titles.fn()
    finally:
        names["NOTES"] = before


def check_largest_K(K_largest: Any, c1: float, d: float, budget: int) -> None:
    """8.2: the most calls K whose predicted Z = K c_1 + d K (K − 1) / 2 stays within `budget` tokens."""

    def test() -> str:
        K = whole(K_largest, "K_largest")
        expect(K >= 1, f"K_largest = {K}: one call (K = 1) reads only c_1 = {c1:,.0f} tokens, within the budget")
        Z = predicted_total(K, c1, d)
        expect(Z <= budget, f"K = {K} calls are predicted to read Z = {Z:,.0f} tokens, over the budget of {budget:,}")
        more = predicted_total(K + 1, c1, d)
        expect(more > budget, f"K = {K + 1} still fits (Z = {more:,.0f} ≤ {budget:,}): find the largest K")
        return f"K = {K} calls read Z = {Z:,.0f} ≤ {budget:,} tokens; K = {K + 1} would read {more:,.0f}"

    check("8.2", test)


def check_half_time(n_unchecked: Any, n_checked: Any, p: float, delta: float, r: int) -> None:
    """8.3: the longest task (in steps) done at least half the time with the measured p, without and with a
    check that notices a wrong step with probability δ (`delta`) and retries up to r times."""

    def test() -> str:
        expect(0 < p < 1, f"p = {p}: with p = 0 or 1 every task length fails or succeeds; measure p on more runs")
        q = step_success(p, delta, r)
        plain, checked = floor_n50(p), floor_n50(q)
        mine = whole(n_unchecked, "n_unchecked")
        expect(mine >= 0, f"n_unchecked = {mine}: a task has 0 or more steps")
        expect(mine == plain, f"n_unchecked = {mine}: p^{mine} = {p ** mine:.3f}; find the longest n with p^n ≥ 0.5")
        theirs = whole(n_checked, "n_checked")
        expect(theirs >= 0, f"n_checked = {theirs}: a task has 0 or more steps")
        expect(theirs == checked,
               f"n_checked = {theirs}: with the check q = {q:.4f} and q^{theirs} = {q ** theirs:.3f}; "
               "find the longest n with q^n ≥ 0.5")
        return f"p = {p:.3f}: {plain} steps unchecked; q = {q:.4f} with the check: {checked} steps"

    check("8.3", test)


QUIZ = {
    "8.1": Question(
        answer="c",
        right="the theorem takes one d for every step; a long note, a calculation or a saved answer add more than the probe saw",
        wrong={"a": "the theorem is exact whenever every step adds the same d, however long the run: the steps differ here",
               "b": "tiktoken counts the same text the same way every time; what changed is what the later steps added"},
    ),
    "8.2": Question(
        answer="a",
        right="a 95 % interval catches the true p in about 95 of 100 experiments; this was one of the others",
        wrong={"b": "Wilson's interval does what it promises over many experiments: about 1 in 20 misses, as the repeats show",
               "c": "a step that slips with the same chance on every run can still give 200 runs that land far off"},
    ),
    "8.3": Question(
        answer="b",
        right="0.9^30 ≈ 0.04 because each step fails 10 % of the time: of the three, only a check with retries raises q",
        wrong={"a": "a larger budget lets a run go on, but each step is still wrong 10 % of the time: qⁿ stays as it is",
               "c": "a shorter prompt lowers the cost per call (lesson 6), not the chance that a step goes wrong"},
    ),
}

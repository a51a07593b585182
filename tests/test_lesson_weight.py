"""The lessons stay as light as issue 40 made them, counted by scripts/lesson_stats.py: at most 2,500 words
before a lesson's exercises, 18,000 words of markdown in all, and 3 % of a lesson's code for the reference."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import lesson_stats

LESSONS = sorted(lesson_stats.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("notebook", LESSONS, ids=[p.name for p in LESSONS])
def test_a_lesson_reads_in_one_sitting(notebook):
    weight = lesson_stats.weigh(notebook)
    assert weight.words_before_exercises <= lesson_stats.LESSON_WORDS, f"{weight}: cut words before the exercises"
    assert weight.reference_share <= lesson_stats.REFERENCE_SHARE, f"{weight}: run the reference through one helper call"


def test_the_whole_course_stays_within_its_words():
    total = sum(lesson_stats.weigh(notebook).words for notebook in LESSONS)
    assert total <= lesson_stats.ALL_WORDS, f"{total:,} words of markdown, more than {lesson_stats.ALL_WORDS:,}"


def test_the_counts_are_of_what_a_reader_reads(tmp_path):
    cells = [{"cell_type": "markdown", "source": ["one two three"]},
             {"cell_type": "code", "source": ["x = 1\n", "# a comment\n", "\n", "beside_reference(run, model, script)\n"]},
             {"cell_type": "markdown", "source": ["## Exercises\n", "four five"]}]
    notebook = tmp_path / "99_test.ipynb"
    notebook.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    weight = lesson_stats.weigh(notebook)
    assert (weight.words, weight.words_before_exercises, weight.code_lines, weight.reference_lines) == (7, 3, 2, 1)

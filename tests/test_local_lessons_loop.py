"""Lessons 3, 4, 6 and 7 run to their end with the real small model: the other half of
test_local_notebooks.py, in a file of its own so that a second worker runs it beside that one."""

from __future__ import annotations

import pytest
from test_local_notebooks import runs_under_local

pytestmark = pytest.mark.local

LESSONS = ["03_agent_loop", "04_memory", "06_cost", "07_reliability"]


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_of_the_loop_runs_to_its_end_with_the_small_local_model(lesson, tmp_path, monkeypatch):
    runs_under_local(lesson, tmp_path, monkeypatch)

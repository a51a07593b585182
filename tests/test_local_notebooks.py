"""Every lesson that calls a model, run to its end with the real small model (TEACHAGENT_MODE=local).

Outputs differ from the stored ones (the model is not the script), so this is nbclient, not
nbval: each lesson must run every cell without an exception, say it is in local mode and
name the model as the small local one. One CPU thread and seed 0, as CI has little and
must take the same time on every run. Lessons 1, 2, 5 and 8 are here and lessons 3, 4, 6
and 7 in test_local_lessons_loop.py: pytest hands each file to one worker, so the two
halves (about two and four and a half minutes here) run side by side. Skipped, with the
reason, when the local extra or the model file is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from live_notebooks import execute_copy, printed

from teachagent.course import local

pytestmark = pytest.mark.local

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"
LESSONS = ["01_bare_chat", "02_tools", "05_research_kl", "08_capstone"]

try:
    local.check_installed()
except local.LocalModelMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_runs_to_its_end_with_the_small_local_model(lesson, tmp_path, monkeypatch):
    runs_under_local(lesson, tmp_path, monkeypatch)


def runs_under_local(lesson, tmp_path, monkeypatch):
    """Run `lesson` top to bottom under local mode, seeded, on one thread, and check what it printed."""
    monkeypatch.setenv("TEACHAGENT_MODE", "local")
    monkeypatch.setenv("TEACHAGENT_LOCAL_THREADS", "1")
    monkeypatch.setenv("TEACHAGENT_LOCAL_SEED", "0")  # the same replies on every run, so the same time in CI
    nb = execute_copy(NOTEBOOKS / f"{lesson}.ipynb", tmp_path, timeout=300)  # a cell that raises fails the test here
    text = printed(nb)
    assert "[teachagent] local mode: " in text and local.LABEL in text
    assert "Traceback" not in text and "offline mode" not in text

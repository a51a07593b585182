"""The lessons that call a model, run to their end with the real small model (TEACHAGENT_MODE=local).

Outputs differ from the stored ones (the model is not the script), so this is nbclient, not
nbval: each lesson must run every cell without an exception, say it is in local mode and
name the model as the small local one. One CPU thread, as CI has little. The lessons left
out, and why, are in README.md ("Choosing a model"): 03_agent_loop (about 4.5 minutes here)
and 06_cost (from under 2 minutes to over 5, as the model's replies run long or short) do
not fit CI's budget for this file; 07_reliability calls no model. Skipped, with the reason,
when the local extra or the model file is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from live_notebooks import execute_copy, printed

from teachagent.course import local

pytestmark = pytest.mark.local

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"
LESSONS = ["01_bare_chat", "02_tools", "05_research_kl", "08_capstone"]  # 2 to 3 minutes in all here

try:
    local.check_installed()
except local.LocalModelMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_runs_to_its_end_with_the_small_local_model(lesson, tmp_path, monkeypatch):
    monkeypatch.setenv("TEACHAGENT_MODE", "local")
    monkeypatch.setenv("TEACHAGENT_LOCAL_THREADS", "1")
    monkeypatch.setenv("TEACHAGENT_LOCAL_SEED", "0")  # the same replies on every run, so the same time in CI
    nb = execute_copy(NOTEBOOKS / f"{lesson}.ipynb", tmp_path, timeout=300)  # a cell that raises fails the test here
    text = printed(nb)
    assert "[teachagent] local mode: " in text and local.LABEL in text
    assert "Traceback" not in text and "offline mode" not in text

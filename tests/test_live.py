"""Every notebook against real Claude. Costs money, so it runs only when asked for.

    ANTHROPIC_API_KEY=... TEACHAGENT_LIVE_TESTS=1 pytest -m live tests/test_live.py

With the key alone nothing is spent: the opt-in variable keeps a key that happens to be
set from running up a bill on every `pytest`. Claude chooses its own steps, so the checks
are what must hold whatever it chooses (tests/test_live_fake.py runs the same lessons
against a fake API playing another model, in every `pytest`).
"""

from __future__ import annotations

import os

import pytest
from live_notebooks import NOTEBOOKS, check_ran_live, execute_copy

ASKED = bool(os.environ.get("ANTHROPIC_API_KEY")) and os.environ.get("TEACHAGENT_LIVE_TESTS") == "1"

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not ASKED,
        reason="live test against Claude (costs money): set ANTHROPIC_API_KEY and TEACHAGENT_LIVE_TESTS=1, "
        "then run: pytest -m live tests/test_live.py",
    ),
]

# What a live run must still show, whatever Claude writes (beyond every cell running): the
# system prompt of lesson 5 asks for every number from the calculator.
MUST_SHOW = {"05_research_kl.ipynb": ["0.119", "0.126"]}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_live(notebook, tmp_path, monkeypatch):
    monkeypatch.setenv("TEACHAGENT_MODE", "live")
    nb = execute_copy(notebook, tmp_path, timeout=600)
    check_ran_live(nb, MUST_SHOW.get(notebook.name, []))

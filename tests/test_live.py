"""Every notebook against real Claude. Costs money, so it runs only when asked for.

    ANTHROPIC_API_KEY=... TEACHAGENT_LIVE_TESTS=1 pytest -m live tests/test_live.py

With the key alone nothing is spent: the opt-in variable keeps a key that happens to be
set from running up a bill on every `pytest`.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
ASKED = bool(os.environ.get("ANTHROPIC_API_KEY")) and os.environ.get("TEACHAGENT_LIVE_TESTS") == "1"

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not ASKED,
        reason="live test against Claude (costs money): set ANTHROPIC_API_KEY and TEACHAGENT_LIVE_TESTS=1, "
        "then run: pytest -m live tests/test_live.py",
    ),
]

# What a live run must still show, whatever Claude writes (beyond every cell running).
MUST_SHOW = {"05_research_kl.ipynb": ["0.119", "0.126"]}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_live(notebook, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("TEACHAGENT_MODE", "live")
    nb = nbformat.read(notebook, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(notebook.parent)}},
                   store_widget_state=True).execute()
    printed = "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                      for cell in nb.cells for o in cell.get("outputs", []))
    assert "live mode" in printed or "select_model" not in "".join(c.source for c in nb.cells)
    for expected in MUST_SHOW.get(notebook.name, []):
        assert expected in printed, f"{notebook.name}: {expected!r} not in the live outputs"

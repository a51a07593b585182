"""Lesson 8 after the learner does what it invites: point `NOTES` at a folder of their own.

The lesson says to change `NOTES` in section 1; after that edit, Restart and Run All must
still run every cell, the sections on `NOTES` must speak of the new folder (the policy reads
each file, then calculates, saves and answers from those notes; the plan counts their
files), and sections 8 to 10, which say they read the shipped notes whatever `NOTES` names,
must print what the stored notebook prints.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "08_capstone.ipynb"
OWN_NOTES = {
    "aloe.md": "# Aloe vera\n\nOn the kitchen sill.\nWater every: 14 days. Let the soil dry out first.\n",
    "basil.md": "# Sweet basil\n\nA pot by the door.\nWater every: 2 days, more in summer.\n",
    "ivy.md": "# English ivy\n\nTrails from the bookcase.\nWater every: 5 days.\n",
    "shopping.txt": "Compost, a bigger pot for the aloe.\n",
}


def learners_edit(nb: nbformat.NotebookNode, folder: Path) -> None:
    """Section 1's first line, `NOTES = SAMPLE_NOTES`, made to name `folder`, as its comment invites."""
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("NOTES = SAMPLE_NOTES")]
    assert 'or your own: Path("' in cell.source
    cell.source = cell.source.replace("NOTES = SAMPLE_NOTES", f"NOTES = Path({str(folder)!r})", 1)


def printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))


@pytest.mark.notebook  # starts a Jupyter kernel
def test_lesson_8_on_a_folder_of_your_own_runs_through_and_stays_true(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.delenv("TEACHAGENT_MODE", raising=False)
    folder = tmp_path / "my notes"
    folder.mkdir()
    for name, text in OWN_NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    stored = nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    learners_edit(nb, folder)
    NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}},
                   ).execute()  # raises CellExecutionError at the first cell that fails

    def said(start: str) -> str:
        (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(start)]
        return printed(cell)

    assert re.findall(r"^(\S+)\s+\d+ tokens$", said("NOTES = "), flags=re.M) == sorted(OWN_NOTES)
    assert said("K_plan = ").startswith(f"K = {1 + len(OWN_NOTES) + 3} calls planned")
    assert said("def full_run").startswith("no guess yet")
    did = said("def what_it_did")
    assert f"tools called, in order: note_files, read_file ×{len(OWN_NOTES)}, calculate, save_note\n" in did
    assert "answer: basil needs water most often: every 2 days, about 182 times a year." in did
    assert f"K = {1 + len(OWN_NOTES) + 3} calls (the plan: {1 + len(OWN_NOTES) + 3})" in did
    assert "does not hold this task" in said("def real_run")  # the recording is of the shipped notes
    assert "Traceback" not in "\n".join(printed(c) for c in nb.cells)

    # sections 8 to 10 read the shipped notes: every cell of theirs prints what the stored lesson prints
    first, last = (next(i for i, c in enumerate(stored.cells) if c.source.startswith(h)) for h in ("## 8.", "## Exercises"))
    compared = [i for i in range(first, last) if stored.cells[i].cell_type == "code"]
    assert len(compared) >= 8
    for i in compared:
        assert printed(nb.cells[i]) == printed(stored.cells[i]), f"cell {i} ({stored.cells[i].source[:40]!r}) changed"

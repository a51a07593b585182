"""Running a lesson live and reading what it printed: shared by tests/test_live.py (real
Claude) and tests/test_live_fake.py (the fake API playing another model)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import nbformat

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
BANNER = "[teachagent] live mode"


def execute_copy(notebook: Path, folder: Path, timeout: int) -> nbformat.NotebookNode:
    """Execute a copy of `notebook` in `folder`, so that nothing it writes lands beside the real one."""
    from nbclient import NotebookClient

    copy = folder / notebook.name
    shutil.copy(notebook, copy)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(folder)}},
                   store_widget_state=True).execute()
    return nb


def cell_outputs(nb: nbformat.NotebookNode) -> Iterator[tuple[int, str | None, str]]:
    """(cell index, its error in one line or None, the text it showed) for every output of every cell, in order."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                yield index, f"{output.get('ename')}: {' '.join(str(output.get('evalue')).split())[:300]}", ""
            else:
                yield index, None, str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))


def printed(nb: nbformat.NotebookNode) -> str:
    """Everything the notebook printed or showed as text, in order."""
    return "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                     for cell in nb.cells for o in cell.get("outputs", []))


def uses_a_model(nb: nbformat.NotebookNode) -> bool:
    return any("select_model" in cell.source for cell in nb.cells if cell.cell_type == "code")


def check_ran_live(nb: nbformat.NotebookNode, must_show: list[str] = ()) -> None:
    """What must hold whatever the model did: it said it was live, nothing printed a traceback,
    and each of `must_show` appears after the live banner (not in a lesson's own worked numbers)."""
    text = printed(nb)
    assert "Traceback" not in text
    assert "offline mode" not in text
    assert (BANNER in text) == uses_a_model(nb)
    after = text.split(BANNER, 1)[-1]
    for expected in must_show:
        assert expected in after, f"{expected!r} not in the live outputs"

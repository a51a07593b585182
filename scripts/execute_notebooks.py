"""Re-execute the course's notebooks in place, the way they are committed.

    python scripts/execute_notebooks.py                 # every notebook
    python scripts/execute_notebooks.py notebooks/03_agent_loop.ipynb

Run it after changing a notebook or any code a notebook uses: nbval compares the stored
outputs with fresh ones, so stored outputs must come from the current code. It executes
with the offline scripted models (TEACHAGENT_MODE is cleared) and drops what changes on
every run: widget state, the widget views that point to it (their text/html and
text/plain versions stay, and GitHub and nbviewer show those), execution timestamps,
and the chance splits of one printed stream into several outputs. Cell ids are numbered.
So a re-run with no real change leaves the files as they were.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def execute(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    # store_widget_state=True only because nbclient fails on Output widgets without it; the state is dropped below
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}},
                   store_widget_state=True).execute()
    notebook.metadata.pop("widgets", None)
    for i, cell in enumerate(notebook.cells):
        cell["id"] = f"c{i:02d}"
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
        if "outputs" in cell:
            cell["outputs"] = joined_streams(cell["outputs"])
    nbformat.write(notebook, path)


def joined_streams(outputs: list) -> list:
    """Consecutive pieces of one stream as one output: how the kernel split a print is chance, not content."""
    joined: list = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (last is not None and output.get("output_type") == "stream" == last.get("output_type")
                and output.get("name") == last.get("name")):
            last["text"] += output["text"]
        else:
            joined.append(output)
    return joined


def main(paths: list[str]) -> None:
    if any(p in ("-h", "--help") for p in paths):
        print(__doc__)
        return
    os.environ.pop("TEACHAGENT_MODE", None)
    os.environ["TEACHAGENT_CHECK_SOLUTIONS"] = "1"  # as under pytest: each reference solution must pass its check
    for path in [Path(p) for p in paths] or sorted(NOTEBOOKS.glob("*.ipynb")):
        print(f"executing {path} ...", flush=True)
        execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])

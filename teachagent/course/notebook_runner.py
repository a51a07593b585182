"""Run a whole notebook to record or replay its calls (course machinery; docs/instructors.md).

`python -m teachagent notebook record|replay NOTEBOOK` comes here. A recording is made
from whichever model `--mode` names: the live one (Claude, or the OpenAI-compatible server
of `--base-url` and `--model`) or the local one. Recording never destroys: the
notebook's kernel records into a draft beside the cassette (it learns where from
`TEACHAGENT_DRAFT`), and the draft replaces the cassette only once every cell has run.
If a cell fails, the old cassette stays as it was and the draft is deleted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.errors import CourseError
from ..base.formats import FormatError, read_text
from .modes import check_recordable_from, default_cassette, record_from
from .replay import CassetteError, check_recordable, new_draft, promote, read_cassette, resolved

if TYPE_CHECKING:  # nbformat is imported only when a notebook is read: the CLI's other commands do not pay for it
    from nbformat import NotebookNode

CELL_TIMEOUT = 600  # seconds one cell may run: a whole research run against Claude fits easily
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # the colours of IPython's tracebacks


class NotebookError(CourseError):
    """A cell failed while a notebook was being recorded or replayed."""


def one_line(text: str) -> str:
    """`text` without terminal colour codes, its lines joined: fit for a log or a pipe."""
    return " ".join(ANSI.sub("", text).split())


def run_notebook(notebook: str | Path, mode: str, cassette: str | Path | None = None,
                 progress: Callable[[str], object] = print, source: str | None = None,
                 base_url: str | None = None, model_name: str | None = None) -> NotebookNode:
    """Execute a whole notebook in `mode` ("record" or "replay") and return it with its outputs.

    The kernel inherits TEACHAGENT_MODE, TEACHAGENT_CASSETTE and, when recording,
    TEACHAGENT_DRAFT and TEACHAGENT_RECORD_FROM (`source`: "live" or "local", else the setting; with
    TEACHAGENT_BASE_URL and TEACHAGENT_MODEL when `base_url` and `model_name` are given)
    from here, so every `select_model` in the notebook records the same model to, or
    replays from, the same cassette. Whatever can be checked is checked before any cell
    runs: the cassette (to replay), the path and the model to record (a key, a model
    name, the local install).
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellControlSignal, CellExecutionError, DeadKernelError

    if mode not in ("record", "replay"):
        raise ValueError(f"mode must be 'record' or 'replay', got {mode!r}")
    notebook = Path(notebook)
    cassette = resolved(cassette or default_cassette(notebook))
    nb = read_notebook(notebook)
    draft = None
    settings: dict[str, str | None] = {"TEACHAGENT_MODE": mode, "TEACHAGENT_CASSETTE": str(cassette)}
    if mode == "record":
        check_recordable(cassette)
        check_recordable_from(source, base_url, model_name)  # e.g. a missing key stops here, not in the notebook
        settings["TEACHAGENT_RECORD_FROM"] = record_from(source)
        settings.update({name: value for name, value in (("TEACHAGENT_BASE_URL", base_url),
                                                          ("TEACHAGENT_MODEL", model_name)) if value is not None})
        draft = new_draft(cassette)
        settings["TEACHAGENT_DRAFT"] = str(draft)
    else:
        read_cassette(cassette)
        settings["TEACHAGENT_DRAFT"] = None
    code_cells = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    at = {"cell": 0}

    def starting(cell: NotebookNode, cell_index: int, **_: object) -> None:
        if cell.cell_type == "code":
            at["cell"] = code_cells.index(cell_index) + 1

    def report(cell: NotebookNode, cell_index: int, **_: object) -> None:
        if cell.cell_type == "code":
            progress(f"  cell {at['cell']}/{len(code_cells)} done")

    saved = {name: os.environ.get(name) for name in settings}
    _set_environment(**settings)
    try:
        progress(f"{mode}ing {notebook} ({len(code_cells)} code cells) with the cassette {cassette}")
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                on_cell_execute=starting, on_cell_executed=report,
                                resources={"metadata": {"path": str(notebook.parent)}}, store_widget_state=True)
        client.execute()
    except BaseException as error:
        if draft:
            draft.unlink(missing_ok=True)
        if not isinstance(error, (CellControlSignal, DeadKernelError)):
            raise
        what = f"{error.ename}: {error.evalue}" if isinstance(error, CellExecutionError) else f"{type(error).__name__}: {error}"
        kept = f"; {cassette} was left as it was and the partial recording deleted" if draft else ""
        where = f"code cell {at['cell']} of {len(code_cells)}"
        raise NotebookError(f"{notebook} stopped at {where}: {one_line(what)}{kept}") from None
    finally:
        _set_environment(**saved)
    if draft:
        _keep(draft, cassette, notebook)
    return nb


def read_notebook(path: Path) -> NotebookNode:
    """The notebook at `path`, or a `FormatError` saying why the file is not one."""
    import nbformat

    text = read_text(path, "a notebook")  # a missing file, a folder, a FIFO, not UTF-8 or empty
    try:
        notebook: NotebookNode = nbformat.reads(text, as_version=4)
    except Exception as error:  # nbformat's reader raises many kinds, for JSON that is not a notebook too
        raise FormatError(f"{str(path)!r} is not a notebook ({type(error).__name__}: {one_line(str(error))[:200]})") from None
    return notebook


def _keep(draft: Path, cassette: Path, notebook: Path) -> None:
    """Make a notebook's whole recording the cassette; a recording of no calls leaves the old one."""
    try:
        if not (draft.stat().st_size and read_cassette(draft)):
            raise CassetteError(f"{notebook} made no call through select_model, so there is nothing to record; "
                                f"{cassette} was left as it was")
        promote(draft, cassette)
    finally:
        draft.unlink(missing_ok=True)


def _set_environment(**values: str | None) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value

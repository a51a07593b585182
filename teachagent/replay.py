"""Record a live run once, replay it anywhere (the instructor's guide in README.md).

A workshop has one API key and thirty learners. The instructor runs a notebook once in
`record` mode: every exchange with Claude (our request, Claude's response and its usage)
is appended to a cassette, a plain JSON-lines file. In class, `replay` mode answers each
request from the cassette, with no key and no network. A replayed request must be the
one that was recorded; if a learner changed a prompt, replay stops and says which call
diverged and how, rather than handing back an answer to a different question.

A cassette holds only what our own code sent and received: never the API key, never
HTTP headers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .messages import Message, Response
from .models import Model

FORMAT = "teachagent.cassette/1"


class CassetteError(RuntimeError):
    """A cassette is missing, corrupt, or does not match what is being replayed."""


def request_dict(model: str, system: str, messages: list[Message], tools: list[dict[str, Any]], max_tokens: int) -> dict:
    """One request as plain JSON data: what is recorded and what replay compares."""
    return {
        "model": model,
        "system": system,
        "messages": [m.to_dict() for m in messages],
        "tools": list(tools),
        "max_tokens": max_tokens,
    }


class Recorder:
    """A `Model` that passes every call to `model` and appends the exchange to a cassette.

    The cassette is started afresh when the first Recorder for it is made in a process;
    each exchange is written as one line, flushed at once, so a crash loses at most the
    call in flight.
    """

    def __init__(self, model: Model, path: str | Path, fresh: bool = True) -> None:
        self.model, self.path = model, Path(path)
        self.name = model.name
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh or not self.path.exists():
            self._write({"format": FORMAT}, mode="w")

    def __repr__(self) -> str:
        return f"Recorder({self.model!r} → {str(self.path)!r})"

    def _write(self, record: dict, mode: str = "a") -> None:
        with open(self.path, mode, encoding="utf-8") as cassette:
            cassette.write(json.dumps(record, ensure_ascii=False) + "\n")
            cassette.flush()
            os.fsync(cassette.fileno())

    def complete(self, system: str, messages: list[Message], tools: list[dict[str, Any]] = (), max_tokens: int = 1024) -> Response:
        response = self.model.complete(system, messages, tools, max_tokens)
        self._write({"request": request_dict(self.name, system, messages, tools, max_tokens), "response": response.to_dict()})
        return response


def read_cassette(path: str | Path) -> list[dict]:
    """The recorded exchanges of a cassette, checked line by line; a clear error otherwise."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise CassetteError(f"there is no cassette at {str(path)!r}; record one first (TEACHAGENT_MODE=record)") from None
    except UnicodeDecodeError:
        raise CassetteError(f"{str(path)!r} is not a cassette: it is not UTF-8 text") from None
    if not lines or lines[0].strip() != json.dumps({"format": FORMAT}):
        raise CassetteError(f"{str(path)!r} is not a cassette: its first line should be {json.dumps({'format': FORMAT})}")
    exchanges = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
            Response.from_dict(record["response"])  # the response must be readable before class starts
            exchanges.append({"request": dict(record["request"]), "response": record["response"]})
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise CassetteError(
                f"the cassette {str(path)!r} is damaged at line {number} ({type(error).__name__}: {error}); "
                "it may have been cut short while recording. Record it again."
            ) from None
    return exchanges


class Player:
    """A `Model` that answers from a cassette, in order, and insists on the recorded requests."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.exchanges = read_cassette(self.path)
        self.played = 0
        recorded = self.exchanges[0]["request"]["model"] if self.exchanges else "nothing"
        self.name = f"{recorded} (replayed)"

    def __repr__(self) -> str:
        return f"Player({str(self.path)!r}, played {self.played} of {len(self.exchanges)})"

    def complete(self, system: str, messages: list[Message], tools: list[dict[str, Any]] = (), max_tokens: int = 1024) -> Response:
        if self.played >= len(self.exchanges):
            raise CassetteError(
                f"the cassette {str(self.path)!r} holds {len(self.exchanges)} calls and call {self.played + 1} was asked for; "
                "the notebook makes more calls than were recorded. Record it again."
            )
        recorded = self.exchanges[self.played]
        asked = request_dict(recorded["request"]["model"], system, messages, tools, max_tokens)
        difference = first_difference(recorded["request"], asked)
        if difference:
            raise CassetteError(
                f"call {self.played + 1} differs from the recording in {str(self.path)!r}: {difference}. "
                "Replay only answers the requests that were recorded; undo the change or record again."
            )
        self.played += 1
        return Response.from_dict(recorded["response"])


def first_difference(recorded: Any, asked: Any, where: str = "request") -> str | None:
    """Where two JSON values first differ, in words, or None if they are equal."""
    if type(recorded) is not type(asked):
        return f"{where} was {_short(recorded)} when recorded, now {_short(asked)}"
    if isinstance(recorded, dict):
        for key in sorted(set(recorded) | set(asked)):
            if key not in recorded or key not in asked:
                return f"{where}.{key} is {'new' if key not in recorded else 'missing'}"
            found = first_difference(recorded[key], asked[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list):
        for i, (a, b) in enumerate(zip(recorded, asked)):
            found = first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        if len(recorded) != len(asked):
            return f"{where} had {len(recorded)} items when recorded, now {len(asked)}"
        return None
    return None if recorded == asked else f"{where} was {_short(recorded)} when recorded, now {_short(asked)}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def run_notebook(notebook: str | Path, mode: str, cassette: str | Path | None = None, progress=print):
    """Execute a whole notebook in `mode` ("record" or "replay") and return it with its outputs.

    The kernel inherits TEACHAGENT_MODE and TEACHAGENT_CASSETTE from here, so every
    `select_model` in the notebook records to, or replays from, the same cassette.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    from .modes import default_cassette

    if mode not in ("record", "replay"):
        raise ValueError(f"mode must be 'record' or 'replay', got {mode!r}")
    notebook = Path(notebook)
    cassette = Path(cassette or default_cassette(notebook)).resolve()
    if mode == "replay":
        read_cassette(cassette)  # a missing or damaged cassette is reported before any cell runs
    nb = nbformat.read(notebook, as_version=4)
    code_cells = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]

    def report(cell, cell_index, **_):
        if cell.cell_type == "code":
            progress(f"  cell {code_cells.index(cell_index) + 1}/{len(code_cells)} done")

    saved = {name: os.environ.get(name) for name in ("TEACHAGENT_MODE", "TEACHAGENT_CASSETTE")}
    os.environ.update(TEACHAGENT_MODE=mode, TEACHAGENT_CASSETTE=str(cassette))
    try:
        progress(f"{mode}ing {notebook} ({len(code_cells)} code cells) with the cassette {cassette}")
        client = NotebookClient(nb, timeout=600, kernel_name="python3", on_cell_executed=report,
                                resources={"metadata": {"path": str(notebook.parent)}}, store_widget_state=True)
        client.execute()
    except CellExecutionError as error:
        last = [line for line in str(error).splitlines() if line.strip()][-1]
        raise CassetteError(f"{notebook} stopped in a cell: {last}") from None
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return nb

"""Every lesson replays, whole, from the recording of a real model it ships (notebooks/cassettes/NN_name.jsonl).

`TEACHAGENT_MODE=replay jupyter lab notebooks/` must play every lesson from the small
local model's seeded recording, with no key, no local install and no network. A lesson
whose prompts changed since its recording asks a request the cassette never heard: this
test then fails, and its message is the one command that records the lesson again. Each
lesson runs in a copy, from a copy of its cassette, so nothing lands beside the real ones.
A lesson not recorded yet is skipped, saying so. These run in a step of their own with the
poor models (`pytest -m models`, as .ci/run does): eight kernels would slow the suite.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from live_notebooks import NOTEBOOKS, cell_outputs, uses_a_model

from teachagent.course.local import MODEL
from teachagent.course.modes import default_cassette
from teachagent.course.replay import RECORDING_SEED, Player, record_command

ROOT = Path(__file__).parent.parent
LESSONS = [path for path in NOTEBOOKS if path.name[:2] != "00"]  # the notation page runs no model
SHIPPED_FROM = f"{MODEL} (local mode, seed {RECORDING_SEED})"
CELL_SECONDS = 120
# what a cell shows when the recording lacks a request: real_model_run's lines, a replay error's words
UNANSWERED = ("does not hold this task", "does not hold these runs", "cannot be played", "no recording of a real model",
              "never recorded")

pytestmark = [pytest.mark.models, pytest.mark.notebook]  # its own step; each test starts a Jupyter kernel


def problems(nb: nbformat.NotebookNode) -> list[str]:
    """Each cell that failed or went unanswered by the cassette, in one line; none when it all replayed."""
    found = []
    for index, error, text in cell_outputs(nb):
        if error:
            found.append(f"cell {index}: {error}")
        found += [f"cell {index}: {line.strip()[:300]}" for line in text.splitlines()
                  if any(words in line for words in UNANSWERED)]
    return found


@pytest.mark.parametrize("notebook", LESSONS, ids=[p.name for p in LESSONS])
def test_a_lesson_replays_entirely_from_its_shipped_recording(notebook, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.chdir(ROOT)  # so the command below names notebooks/NN_name.ipynb, as typed at the repository's root
    again = f"record it again with: {record_command(notebook)}"
    cassette = default_cassette(notebook)
    if not cassette.exists():
        pytest.skip(f"{cassette.relative_to(ROOT)} is not recorded yet"
                    + ("" if uses_a_model(nbformat.read(notebook, as_version=4)) else " (the lesson calls no model)")
                    + f"; record it with: {record_command(notebook)}")
    source = Player(cassette).source
    assert source == SHIPPED_FROM, f"{cassette.relative_to(ROOT)} is a recording of {source}, not of {SHIPPED_FROM}; {again}"

    shutil.copy(notebook, tmp_path / notebook.name)
    (tmp_path / "cassettes").mkdir()
    copy = shutil.copy(cassette, tmp_path / "cassettes" / cassette.name)
    nb = nbformat.read(tmp_path / notebook.name, as_version=4)
    monkeypatch.setenv("TEACHAGENT_MODE", "replay")
    monkeypatch.setenv("TEACHAGENT_CASSETTE", str(copy))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens there: replay must not call out
    NotebookClient(nb, timeout=CELL_SECONDS, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    found = problems(nb)
    assert not found, (f"{notebook.name} no longer replays from {cassette.relative_to(ROOT)} "
                       f"({len(found)} problem{'s' if len(found) > 1 else ''}; first: {found[0]}); {again}")
    shown = "".join(str(o.get("text", "")) for cell in nb.cells for o in cell.get("outputs", []))
    assert f"replay mode: a recording of {SHIPPED_FROM}" in shown, f"{notebook.name} never said it replays; {again}"


def test_a_changed_prompt_is_found_whether_it_fails_a_cell_or_real_model_run_reports_it(tmp_path, monkeypatch, capsys):
    """What the check above reads in a lesson's outputs: the cell error, and real_model_run's line with its command."""
    from teachagent import Message, ScriptedModel
    from teachagent.course.replay import CassetteError, Recorder, real_model_run

    cassette = tmp_path / "cassettes" / "03_lesson.jsonl"
    recorder = Recorder(ScriptedModel(["Hi."]), cassette, source=SHIPPED_FROM)
    recorder.complete("", [Message("user", "hello")])
    recorder.finish()
    with pytest.raises(CassetteError) as caught:
        Player(cassette).complete("", [Message("user", "hello, changed")])
    monkeypatch.chdir(tmp_path)
    assert real_model_run(lambda m: m.complete("", [Message("user", "changed")]), cassette) is None
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x")]
    nb.cells[0].outputs = [nbformat.v4.new_output("error", ename="CassetteError", evalue=str(caught.value), traceback=[]),
                           nbformat.v4.new_output("stream", name="stdout", text=capsys.readouterr().out)]
    found = problems(nb)
    assert len(found) == 2 and "never recorded" in found[0] and "does not hold this task" in found[1]
    assert "TEACHAGENT_LOCAL_SEED=0 python -m teachagent notebook record 03_lesson.ipynb --mode local" in found[1]

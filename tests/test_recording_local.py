"""Recording a notebook from the real small model, seeded: one pass, the same cassette every time, replayed without it.

What notebooks/cassettes/ ships is made this way (`notebook record … --mode local` with
TEACHAGENT_LOCAL_SEED=0), so this checks the three things the shipped recordings rely on:
the real_model_run cell is recorded in the same pass, a second recording with the same seed
is byte for byte the first, and the replay needs no local install (its kernel cannot
import xllamacpp). Skipped, with the reason, when the local extra or the model file is missing.
"""

from __future__ import annotations

import nbformat
import pytest

import teachagent.__main__ as cli
from teachagent.course import local
from teachagent.course.notebook_runner import run_notebook

pytestmark = [pytest.mark.local, pytest.mark.notebook]

try:
    local.check_installed()
except local.LocalModelMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)

LESSON = (
    "from teachagent import Message, real_model_run, select_model\n"
    "model = select_model(script=['Paris.'])\n"
    "print(model.complete('', [Message('user', 'The capital of France?')], [], 12).text)",
    "real = real_model_run(lambda m: m.complete('', [Message('user', 'The capital of Spain?')], [], 12), "
    "'cassettes/lesson.jsonl')",
)


def make_lesson(path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in LESSON]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def test_a_seeded_local_recording_repeats_and_replays_with_no_local_install(tmp_path, monkeypatch):
    monkeypatch.setenv("TEACHAGENT_LOCAL_SEED", "0")
    monkeypatch.setenv("TEACHAGENT_LOCAL_THREADS", "1")
    notebook = make_lesson(tmp_path / "lesson.ipynb")
    cassette = tmp_path / "cassettes" / "lesson.jsonl"
    recorded = []
    for _ in range(2):
        assert cli.main(["notebook", "record", str(notebook), "--mode", "local"]) == 0
        recorded.append(cassette.read_bytes())
    assert recorded[0] == recorded[1]  # the same seed, the same cassette
    assert recorded[0].startswith(b'{"format": "teachagent.cassette/2", "recorded_from": '
                                  b'"SmolLM2-135M-Instruct (local mode, seed 0)"}\n')

    blocked = tmp_path / "blocked" / "xllamacpp"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('no local install here')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(blocked.parent))  # the replaying kernel cannot import llama.cpp's server
    monkeypatch.delenv("TEACHAGENT_LOCAL_SEED")
    nb = run_notebook(notebook, "replay", progress=lambda line: None)
    banner, real = ("".join(o.get("text", "") for o in cell.outputs) for cell in nb.cells)
    assert banner.startswith("[teachagent] replay mode: a recording of SmolLM2-135M-Instruct (local mode, seed 0)")
    assert real.startswith(f"a real model's run, SmolLM2-135M-Instruct (local mode, seed 0), the model that plays yours "
                           f"in this mode, played from {cassette}: ")

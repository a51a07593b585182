"""Lesson 3's "you are the model", after the learner follows its own instructions.

The lesson tells the learner to change the prepared cell: drop `answers=PREPARED` and
end it with `play(you, task)`. After that edit, Kernel → Restart and Run All must still
run every cell: the record cell says "not played yet" (nobody has pressed Send), and the
exercises and the quiz below it run as before.
"""

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "03_agent_loop.ipynb"


def learners_edit(nb: nbformat.NotebookNode) -> None:
    """Make the edit the "Play it yourself" cell asks for, taking the new lines from that cell itself."""
    (told,) = [c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("**Play it yourself.**")]
    assert "remove\n`answers=PREPARED`" in told or "remove `answers=PREPARED`" in told
    (new_lines,) = re.findall(r"```python\n(.*?)```", told, flags=re.S)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("PREPARED")]
    assert "HumanModel(answers=PREPARED)" in cell.source and cell.source.endswith("yours = you.run(task)")
    cell.source = (cell.source.replace("HumanModel(answers=PREPARED)", "HumanModel()")
                   .removesuffix("yours = you.run(task)") + new_lines.strip())


@pytest.mark.notebook  # starts a Jupyter kernel
def test_restart_and_run_all_after_switching_to_play_runs_to_the_end(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.delenv("TEACHAGENT_MODE", raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    learners_edit(nb)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   store_widget_state=True).execute()  # raises CellExecutionError at the first cell that fails

    def printed(start: str) -> str:
        (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(start)]
        return "".join(o.get("text", "") for o in cell.outputs)

    assert printed("yours = you.runs[-1]").startswith("not played yet: ")
    assert printed('quiz_3_3 = ""').startswith("quiz 3.3: not yet")
    session = next(c for c in nb.cells if c.cell_type == "code" and "play(you, task)" in c.source)
    assert "Session(waiting for your reply)" in str(session.outputs)

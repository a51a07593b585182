"""scripts/execute_notebooks.py: re-executing an unchanged notebook must not change a byte."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import execute_notebooks


def stream(name: str, text: str) -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def test_pieces_of_one_stream_in_a_row_become_one_output():
    pieces = [stream("stdout", "step 1\n"), stream("stdout", "step 2\n"), stream("stdout", "done\n")]
    assert execute_notebooks.joined_streams(pieces) == [stream("stdout", "step 1\nstep 2\ndone\n")]


def test_different_streams_and_anything_between_pieces_keep_them_apart():
    picture = {"output_type": "display_data", "data": {"text/plain": "<Figure>"}, "metadata": {}}
    outputs = [stream("stdout", "a\n"), stream("stderr", "warning\n"), stream("stdout", "b\n"), picture,
               stream("stdout", "c\n")]
    assert execute_notebooks.joined_streams(outputs) == outputs
    assert execute_notebooks.joined_streams([]) == []


@pytest.mark.notebook  # starts a Jupyter kernel
def test_a_print_the_kernel_sent_in_two_messages_is_stored_as_one(tmp_path):
    """A flush and a pause make ipykernel send one cell's printing in two pieces, as chance did in lesson 3."""
    path = tmp_path / "split.ipynb"
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import time\nprint('first', flush=True)\ntime.sleep(0.5)\nprint('second')")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)

    execute_notebooks.execute(path)
    once = path.read_bytes()
    assert nbformat.reads(once, as_version=4).cells[0].outputs == [stream("stdout", "first\nsecond\n")]
    execute_notebooks.execute(path)
    assert path.read_bytes() == once

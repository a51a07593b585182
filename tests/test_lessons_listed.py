"""Every lesson in notebooks/ is where a reader looks for it: a row of the README's table, the notation page linked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_the_readmes_table_of_lessons_has_one_row_per_notebook_in_order():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.partition("\n## The lessons\n")[2].partition("\n## ")[0]
    assert re.findall(r"^\| `(\d\d_\w+\.ipynb)` \|", table, flags=re.MULTILINE) == [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("notebook", NOTEBOOKS[1:], ids=[p.name for p in NOTEBOOKS[1:]])
def test_each_lesson_links_the_notation_page_in_its_first_cell(notebook):
    first = "".join(json.loads(notebook.read_text(encoding="utf-8"))["cells"][0]["source"])
    assert "(00_notation.ipynb)" in first

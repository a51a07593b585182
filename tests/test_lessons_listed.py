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
    rows = re.findall(r"^\| \[`(\d\d_\w+\.ipynb)`\]\(notebooks/(\d\d_\w+\.ipynb)\) \|", table, flags=re.MULTILINE)
    assert rows == [(p.name, p.name) for p in NOTEBOOKS]  # each row links its own notebook


TIME = re.compile(r"\*\*Time:\*\* about (\d+) minutes, exercises included\.")


@pytest.mark.parametrize("notebook", NOTEBOOKS[1:], ids=[p.name for p in NOTEBOOKS[1:]])
def test_the_readme_gives_each_lesson_the_time_its_first_cell_gives(notebook):
    first = "".join(json.loads(notebook.read_text(encoding="utf-8"))["cells"][0]["source"])
    said = TIME.search(" ".join(first.split()))
    assert said, f"{notebook.name}'s first cell says no '**Time:** about N minutes, exercises included.'"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| \[`{notebook.name}`\]\(notebooks/{notebook.name}\) \| (\d+) min \|", readme, flags=re.MULTILINE)
    assert row and row[1] == said[1], f"the README's row for {notebook.name} gives another time than the lesson's {said[1]} min"


@pytest.mark.parametrize("notebook", NOTEBOOKS[1:], ids=[p.name for p in NOTEBOOKS[1:]])
def test_each_lesson_links_the_notation_page_in_its_first_cell(notebook):
    first = "".join(json.loads(notebook.read_text(encoding="utf-8"))["cells"][0]["source"])
    assert "(00_notation.ipynb)" in first


LINK = re.compile(r"\]\(([^)\s]+)\)")


def links_of(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [target for cell in cells if cell["cell_type"] == "markdown" for target in LINK.findall("".join(cell["source"]))]


def headings_of(target: Path) -> set[str]:
    """The anchors JupyterLab gives a file's headings: lower case, spaces as hyphens."""
    text = target.read_text(encoding="utf-8")
    if target.suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown")
    return {re.sub(r"[^\w\- ]", "", h.strip()).lower().replace(" ", "-") for h in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_every_link_in_a_lesson_opens_from_inside_the_notebooks_folder(notebook):
    # `jupyter lab notebooks/` serves that folder only: a link outside it (../README.md) goes nowhere
    folder = notebook.parent.resolve()
    for target in links_of(notebook):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        found = (notebook.parent / path).resolve() if path else notebook.resolve()
        assert found.is_relative_to(folder), f"{notebook.name} links {target}, outside notebooks/"
        assert found.is_file(), f"{notebook.name} links {target}, which does not exist"
        if anchor:
            assert anchor.lower() in headings_of(found), f"{notebook.name} links {target}: no such heading"

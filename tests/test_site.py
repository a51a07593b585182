"""The course's site, without building it: what it folds, where it links, what it would load.

The build itself, and the pages in a real browser, are tests/test_browser_site.py (`pytest -m browser`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import nbformat
import pytest

from teachagent.course import site
from teachagent.course.site import PAGES, Launch, SiteError, fold, lessons, mermaid_dist, pages, remote_assets
from teachagent.exercises.reveal import solution_source

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = Launch("https://github.com/example/teachagent", "main")


def code(source: str, outputs=(), **jupyter) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, outputs=[nbformat.v4.new_output("stream", text=t) for t in outputs])
    if jupyter:
        cell.metadata["jupyter"] = jupyter
    return cell


def lesson(*cells) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Lesson 7 — a title"), *cells])


def folded(cell) -> tuple[list[str], str]:
    return cell.metadata.get("tags", []), cell.metadata.get("mystnb", {}).get("code_prompt_show", "")


def test_a_predictions_folded_output_sits_behind_the_sites_own_button():
    notebook = lesson(code("print(q ** 20)", ["0.790\n"], outputs_hidden=True))
    (cell,) = [c for c in fold(notebook, "07_reliability.ipynb", LAUNCH, solution_source, True).cells if c.cell_type == "code"]
    assert folded(cell) == (["hide-output"], site.SHOW_OUTPUT)
    assert cell.outputs[0].text == "0.790\n"  # kept, folded: the reader clicks to see it


def test_a_solution_cell_folds_the_reference_solution_itself_and_no_output():
    source = "# A reference solution for exercise 7.1: run this cell, then click the button to see it.\nsolution(\"7.1\")"
    cell = code(source, ["Reference solution 7.1: hidden until you click the button\n"], source_hidden=True)
    cell.metadata["tags"] = ["solution"]
    (shown,) = [c for c in fold(lesson(cell), "07_reliability.ipynb", LAUNCH, solution_source, True).cells
                if c.cell_type == "code"]
    assert shown.source == solution_source("7.1").rstrip("\n") and "check_" in shown.source
    assert folded(shown) == (["solution", "hide-input", "remove-output"], "Show the reference solution 7.1")
    assert shown.outputs == []


def test_other_hidden_code_stays_folded_and_open_cells_stay_open():
    notebook = lesson(code("setup()", source_hidden=True), code("print(1)", ["1\n"]))
    hidden, shown = [c for c in fold(notebook, "01_x.ipynb", LAUNCH, solution_source, True).cells if c.cell_type == "code"]
    assert folded(hidden) == (["hide-input"], site.SHOW_SOURCE)
    assert folded(shown) == ([], "")


def test_a_widget_shows_its_static_page_and_the_notebook_itself_is_left_alone():
    view = nbformat.v4.new_output("execute_result", data={
        "text/plain": "StepViewer(5 steps)", "text/html": "<b>Step 1 of 5</b>",
        site.WIDGET_VIEW: {"model_id": "abc", "version_major": 2, "version_minor": 0}})
    notebook = lesson(nbformat.v4.new_code_cell("StepViewer(run)", outputs=[view]))
    before = copy.deepcopy(notebook)
    copied = fold(notebook, "03_agent_loop.ipynb", LAUNCH, solution_source, True)
    assert set(copied.cells[2].outputs[0].data) == {"text/plain", "text/html"}
    assert notebook == before


def test_each_lesson_starts_with_its_launch_links_after_its_title():
    copied = fold(lesson(), "03_agent_loop.ipynb", Launch("https://github.com/example/teachagent", "main",
                                                          "https://hub.example.org/"), solution_source, True)
    title, line = copied.cells[:2]
    assert title.source.startswith("# Lesson 7") and line.cell_type == "markdown"
    binder = "https://mybinder.org/v2/gh/example/teachagent/main?urlpath=lab%2Ftree%2Fnotebooks%2F03_agent_loop.ipynb"
    assert f"[on Binder]({binder})" in line.source
    assert '<a href="03_agent_loop.ipynb" download>' in line.source and "](../index.md)" in line.source
    hub = urlparse(Launch("https://github.com/example/teachagent", "main", "https://hub.example.org/").jupyterhub("03_agent_loop.ipynb"))
    assert (hub.netloc, hub.path) == ("hub.example.org", "/hub/user-redirect/git-pull")  # as docs/instructors.md builds it
    assert parse_qs(hub.query) == {"repo": ["https://github.com/example/teachagent"], "branch": ["main"],
                                   "targetpath": ["teachagent"], "urlpath": ["lab/tree/teachagent/notebooks/03_agent_loop.ipynb"]}


def test_without_the_repositorys_address_a_lesson_says_where_else_to_run_it():
    line = Launch().line("01_bare_chat.ipynb")
    assert "Binder" not in line and "JupyterHub" not in line
    assert line == ('**Run this lesson** [on your own machine](../index.md), or '
                    '<a href="01_bare_chat.ipynb" download>download the notebook</a>.')
    assert Launch("https://gitlab.com/a/b").binder("x.ipynb") is None  # Binder's gh/ links are for GitHub


def test_without_mermaid_a_diagram_is_its_source_with_a_line_saying_why():
    diagram = "Before:\n\n```mermaid\nflowchart LR\n  a --> b\n```\n"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# T"), nbformat.v4.new_markdown_cell(diagram)])
    drawn, not_drawn = (fold(notebook, "x.ipynb", LAUNCH, solution_source, m).cells[2].source for m in (True, False))
    assert drawn == diagram
    assert "```mermaid" not in not_drawn and "```text\nflowchart LR" in not_drawn and "without the npm package" in not_drawn


@pytest.mark.parametrize("notebook", lessons(ROOT), ids=lambda path: path.name)
def test_every_cell_a_lesson_folds_is_folded_on_the_site(notebook):
    original = nbformat.read(notebook, as_version=4)
    copied = fold(original, notebook.name, LAUNCH, solution_source, True)
    cells = [copied.cells[0], *copied.cells[2:]]  # without the launch line
    assert len(cells) == len(original.cells)
    for before, after in zip(original.cells, cells):
        hidden = before.metadata.get("jupyter", {})
        tags = after.metadata.get("tags", [])
        if "solution" in before.metadata.get("tags", []):
            assert "hide-input" in tags and "remove-output" in tags, before.source
        elif hidden.get("outputs_hidden"):
            assert "hide-output" in tags, before.source
        elif hidden.get("source_hidden"):
            assert "hide-input" in tags, before.source


def test_the_lessons_are_the_notebooks_folder_in_order():
    assert [p.name for p in lessons(ROOT)] == sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert lessons(ROOT)[0].name == "00_notation.ipynb"


def test_every_page_of_docs_is_on_the_site_and_every_page_of_the_site_exists():
    listed = [page for _, group in pages(ROOT) for page in group]
    assert [page for page in listed if not (ROOT / page).is_file()] == []
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= set(listed)
    assert {"notebooks/troubleshooting.md", "docs/instructors.md", "CONTRIBUTING.md"} <= {p for _, g in PAGES for p in g}


def test_a_new_page_of_docs_joins_the_site_under_more(tmp_path):
    (tmp_path / "docs").mkdir()
    for name in ("models.md", "zebra.md", "mcp.md"):
        (tmp_path / "docs" / name).write_text(f"# {name}\n", encoding="utf-8")
    assert pages(tmp_path) == [*PAGES, ("More", ["docs/mcp.md", "docs/zebra.md"])]


def test_a_page_that_would_load_anything_from_another_host_is_found(tmp_path):
    (tmp_path / "a.html").write_text('<script src="https://cdn.example.org/mathjax.js"></script>'
                                     '<link rel="stylesheet" href="//fonts.example.org/font.css">'
                                     '<a href="https://arxiv.org/abs/2210.03629">a link is fine</a>'
                                     '<script src="_static/local.js"></script>', encoding="utf-8")
    (tmp_path / "b.css").write_text("@font-face { src: url('https://fonts.example.org/x.woff2') }", encoding="utf-8")
    (tmp_path / "c.mjs").write_text('import x from "https://cdn.example.org/mermaid.mjs"; const y = "./chunk.mjs";',
                                    encoding="utf-8")
    assert remote_assets(tmp_path) == ["a.html: https://cdn.example.org/mathjax.js", "a.html: //fonts.example.org/font.css",
                                       "b.css: https://fonts.example.org/x.woff2", "c.mjs: https://cdn.example.org/mermaid.mjs"]


def test_mermaid_must_be_the_npm_packages_dist_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("TEACHAGENT_MERMAID_JS", raising=False)
    assert mermaid_dist(None) is None
    with pytest.raises(SiteError, match="not the dist folder of the npm package mermaid"):
        mermaid_dist(tmp_path)
    (tmp_path / "chunks" / "mermaid.esm.min").mkdir(parents=True)
    (tmp_path / "mermaid.esm.min.mjs").write_text("export default {}", encoding="utf-8")
    monkeypatch.setenv("TEACHAGENT_MERMAID_JS", str(tmp_path))
    assert mermaid_dist(None) == tmp_path


def test_a_missing_page_stops_the_build_with_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(site, "PAGES", [("Pages", ["docs/no_such_page.md"])])
    monkeypatch.setattr(site, "clone_root", lambda: ROOT)
    assert site.main(["--out", str(tmp_path / "out")], solution_source) == 1
    assert capsys.readouterr().err.strip() == "teachagent: the site's page docs/no_such_page.md is missing"

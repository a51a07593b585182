"""The lessons where learners read them: a real JupyterLab driven by a headless browser, and the static page.

Every lesson opened fresh, not run, in one JupyterLab on 127.0.0.1 (tests/browser.py), in
Debian's Chromium through Playwright, as a learner first opens it: no answer shows under
any exercise or quiz, each reference solution's cell is collapsed to a first line that
gives nothing away (checked on the saved files too, without a browser), and each
```mermaid block in its markdown cells has been drawn as an SVG image, with no Mermaid
error. The JupyterLab tests run as a step of their own (`pytest -m browser`).

The static page is the HTML that nbconvert's lab template makes of a notebook (what
nbviewer and `jupyter nbconvert --to html` show). That page loads Mermaid's JavaScript
from a CDN when it is opened, and no test may use the network, so what is checked is:
every block reaches the page, unchanged, in the element the page's own script draws
(`<div class="jp-Mermaid"><pre class="mermaid">`), and the page carries that script.
Whether Mermaid then draws them is checked only where the npm package mermaid, at the
version nbconvert's page asks for, has been unpacked and `TEACHAGENT_MERMAID_JS` names
its `dist` folder: the page is opened in Chromium with that one URL answered from the
folder and every other request refused.
"""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import urllib.parse
from pathlib import Path

import nbformat
import pytest
from browser import NOTEBOOKS, chromium_page, in_a_browser, jupyterlab, open_notebook, wait_until


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab serving fresh copies of every lesson, never run."""
    root = tmp_path_factory.mktemp("lab")
    for lesson in LESSONS:
        shutil.copy(lesson, root / lesson.name)
    with jupyterlab(root) as url:
        yield url


# --- No answer in sight in a fresh notebook ---------------------------------------------------

LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
ANSWER = re.compile(r"(?:exercise|quiz) \d+\.\d+: correct")  # a check's verdict on a solved exercise
SOLUTION_FIRST_LINE = re.compile(r"# A reference solution for exercise (\d+\.\d+): run this cell, then click the button")


def solution_cells(notebook: Path) -> list:
    return [cell for cell in nbformat.read(notebook, as_version=4).cells
            if cell.cell_type == "code" and "solution" in cell.metadata.get("tags", [])]


def test_the_course_has_lessons_with_exercises_to_check():
    assert len(LESSONS) >= 8 and all(solution_cells(path) for path in LESSONS if path.name[:2] in ("01", "02", "03"))


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_no_saved_output_gives_an_answer_away(notebook):
    """The saved file: no verdict "correct" anywhere, and each solution cell hidden, its first line a label only."""
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            shown = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            assert not ANSWER.search(shown), f"{notebook.name}: {cell.source.splitlines()[:1]} shows {shown[:200]!r}"
    for cell in solution_cells(notebook):
        assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, cell.source
        first, *rest = cell.source.splitlines()
        exercise = SOLUTION_FIRST_LINE.match(first)
        assert exercise and rest == [f'solution("{exercise[1]}")'], cell.source  # the code lives elsewhere


@in_a_browser
@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_a_fresh_lesson_in_jupyterlab_shows_no_answer_and_draws_its_diagrams(lab, page, notebook):
    """A lesson as a learner first opens it, not run: nothing on the page gives an exercise's answer
    away, and every diagram in its text is drawn."""
    open_notebook(page, lab, notebook.name, kernel=False)
    stored = nbformat.read(notebook, as_version=4).cells
    cells = page.locator(".jp-Notebook .jp-Cell")
    wait_until(lambda: cells.count() == len(stored))
    seen = page.evaluate("""() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map(cell => ({
        hidden: cell.querySelector('.jp-InputPlaceholder') !== null,
        preview: (cell.querySelector('.jp-InputPlaceholder') || {}).textContent || '',
        outputs: [...cell.querySelectorAll('.jp-OutputArea-output')].map(o => o.textContent).join('\\n'),
    }))""")
    assert len(seen) == len(stored)
    for cell, shown in zip(stored, seen):
        assert not ANSWER.search(shown["outputs"]), f"an answer is shown: {shown['outputs'][:200]!r}"
        if "solution" in cell.metadata.get("tags", []):
            assert shown["hidden"], f"a solution cell is open: {cell.source[:80]!r}"
            assert SOLUTION_FIRST_LINE.search(shown["preview"]), shown["preview"]
            assert "hidden until you click" in shown["outputs"] and "def " not in shown["outputs"]
    check_diagrams_drawn(page, len(DIAGRAMS.get(notebook.name, [])))


# --- Mermaid diagrams -----------------------------------------------------------------------


def mermaid_blocks(notebook: Path) -> list[str]:
    """The source of every ```mermaid block in the notebook's markdown cells, in order."""
    blocks = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "markdown":
            blocks += re.findall(r"^```mermaid[ \t]*\n(.*?)^```", cell.source, flags=re.MULTILINE | re.DOTALL)
    return blocks


DIAGRAMS = {path.name: blocks for path in LESSONS if (blocks := mermaid_blocks(path))}  # each notebook read once


def test_the_course_has_diagrams_to_check():
    assert "07_reliability.ipynb" in DIAGRAMS  # the checked step as a state machine
    assert all(block.strip() for blocks in DIAGRAMS.values() for block in blocks)


# What JupyterLab shows for a block: a div holding an <img> of the SVG Mermaid drew or, when Mermaid
# could not parse the block, the same div marked jp-mod-warning, with the block and the parse error.
DRAWN = ".jp-MarkdownOutput .jp-RenderedMermaid"


def check_diagrams_drawn(page, expected: int) -> None:
    """The open notebook shows `expected` diagrams, each an SVG image Mermaid drew without an error."""
    wait_until(lambda: page.locator(DRAWN).count() >= expected, seconds=90)
    failed = page.locator(".jp-RenderedMermaid.jp-mod-warning")
    assert failed.count() == 0, f"Mermaid could not draw a diagram: {failed.first.inner_text()}"
    assert page.locator(DRAWN).count() == expected
    images = page.locator(f"{DRAWN} img")
    wait_until(lambda: images.count() == expected and all(
        images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0") for i in range(expected)))
    for i in range(expected):
        source = images.nth(i).get_attribute("src") or ""
        assert source.startswith("data:image/svg+xml"), source[:80]
        svg = urllib.parse.unquote(source.split(",", 1)[1])
        assert "<svg" in svg and "Syntax error" not in svg


# --- Mermaid on the static page ---------------------------------------------------------------


class MermaidElements(html.parser.HTMLParser):
    """Collects the text of every <pre class="mermaid"> directly inside a <div class="jp-Mermaid">,
    the elements nbconvert's lab page hands to Mermaid (its script selects `.jp-Mermaid > pre.mermaid`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.parents: list[str] = []
        self.inside: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "pre" and "mermaid" in classes and self.parents[-1:] == ["jp-Mermaid"]:
            self.inside = []
        self.parents.append("jp-Mermaid" if tag == "div" and "jp-Mermaid" in classes else tag)

    def handle_endtag(self, tag):
        if tag == "pre" and self.inside is not None:
            self.found.append("".join(self.inside))
            self.inside = None
        if self.parents:
            self.parents.pop()

    def handle_data(self, data):
        if self.inside is not None:
            self.inside.append(data)


def static_page(name: str, **settings) -> str:
    """The notebook as nbconvert's lab template writes it to HTML (what nbviewer shows)."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab", **settings)
    return exporter.from_notebook_node(nbformat.read(NOTEBOOKS / name, as_version=4))[0]


@pytest.mark.parametrize("name", sorted(DIAGRAMS))
def test_every_diagram_reaches_the_static_page_where_its_script_draws_it(name):
    page = static_page(name)
    parser = MermaidElements()
    parser.feed(page)
    assert [found.strip() for found in parser.found] == [block.strip() for block in DIAGRAMS[name]]
    # the page's own script: finds those elements, loads Mermaid and draws each one
    assert 'document.querySelectorAll(".jp-Mermaid > pre.mermaid")' in page
    assert "mermaid.render(" in page


MERMAID_JS = os.environ.get("TEACHAGENT_MERMAID_JS")  # the dist folder of the npm package mermaid


@in_a_browser
@pytest.mark.skipif(not MERMAID_JS, reason="Mermaid's JavaScript is not here: unpack the npm package mermaid at the version "
                    "nbconvert's page asks for (`npm pack mermaid@11.10.0`) and set TEACHAGENT_MERMAID_JS to its dist folder")
@pytest.mark.parametrize("name", sorted(DIAGRAMS))
def test_every_diagram_is_drawn_on_the_static_page(name, chromium):
    from nbconvert import HTMLExporter

    url = HTMLExporter().mermaid_js_url  # e.g. https://cdnjs.cloudflare.com/ajax/libs/mermaid/11.10.0/mermaid.esm.min.mjs
    folder, dist = url.rsplit("/", 1)[0] + "/", Path(MERMAID_JS)
    assert (dist / url.rsplit("/", 1)[1]).is_file(), f"{dist} has no {url.rsplit('/', 1)[1]}"
    page_url = "http://static-page.invalid/lesson.html"
    text = static_page(name, mermaid_layout_elk_js_url="")  # no ELK layouts: the course's diagrams do not use them
    refused: list[str] = []

    def answer(route):
        """The page from memory, Mermaid from the folder; anything else (MathJax, fonts) is refused."""
        request_url = route.request.url
        if request_url == page_url:
            route.fulfill(body=text, content_type="text/html")
        elif request_url.startswith(folder) and (dist / request_url[len(folder):]).is_file():
            route.fulfill(path=dist / request_url[len(folder):], content_type="text/javascript",
                          headers={"Access-Control-Allow-Origin": "*"})
        else:
            refused.append(request_url)
            route.abort()

    with chromium_page(chromium) as page:
        page.route("**/*", answer)
        page.goto(page_url)
        expected = len(DIAGRAMS[name])
        drawn = page.locator(".jp-Mermaid.jp-RenderedMermaid")
        wait_until(lambda: drawn.count() == expected, seconds=60)
        failed = page.locator(".jp-RenderedMermaid.jp-mod-warning")
        assert failed.count() == 0, f"{name}: Mermaid could not draw a diagram: {failed.first.inner_text()}"
        images = page.locator(".jp-Mermaid.jp-RenderedMermaid img")
        wait_until(lambda: images.count() == expected and all(
            images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0") for i in range(expected)))
    assert not [u for u in refused if u.startswith(folder)], "a part of Mermaid was missing from the folder"

"""The lessons where learners read them: a real JupyterLab driven by a headless browser, and the static page.

Each browser test starts JupyterLab on 127.0.0.1 and opens a notebook in Debian's Chromium
through Playwright, as a learner would:
- lesson 3 with Run All, then the step viewer's buttons move through the run;
- lesson 7 with Run All, then the explorer's n is set and its numbers follow the formula;
- you are the model: `play()` runs the loop on a helper thread (a cell that blocked on
  `input()` would never receive a click), two replies are typed and sent; a refused reply
  stays in the box with its mistake marked, is fixed and sent, and the newest tool result
  is in view at the top of the page box;
- every lesson opened fresh, not run: no answer shows under any exercise or quiz, and
  each reference solution's cell is collapsed to a first line that gives nothing away
  (checked on the saved files too, without a browser);
- every notebook with a ```mermaid block in a markdown cell is opened (one JupyterLab for
  them all), and each block must have been drawn as an SVG image, with no Mermaid error.

They need the `chromium` package and the Python `playwright` package (no browser
download: Playwright is pointed at /usr/bin/chromium), and are skipped without them.

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

import contextlib
import html.parser
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest

from teachagent import step_success, task_success

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
try:
    import playwright.sync_api as playwright_api
except ImportError:
    playwright_api = None

BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (apt-get install chromium)"),
    pytest.mark.skipif(playwright_api is None, reason="needs the playwright package (pip install playwright)"),
]


def in_a_browser(test):
    """Mark a test as driving Chromium: skipped, with the reason, where it or playwright is missing."""
    for mark in BROWSER:
        test = mark(test)
    return test


TOKEN = "teachagent-browser-test"
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ERROR = "[data-mime-type='application/vnd.jupyter.stderr']"  # how JupyterLab marks a cell's error output
CELLS = [
    "from teachagent import Agent, HumanModel, play, tool\n\n"
    "@tool\ndef lookup(planet: str) -> str:\n    \"\"\"How many moons a planet has.\"\"\"\n"
    "    return {'mars': '2'}.get(planet.lower(), 'unknown')",
    "session = play(Agent(HumanModel(), [lookup], system='Use the tool.'), 'How many moons has Mars?')\nsession",
]
# How long JupyterLab, Chromium or a kernel may take to start: a few seconds on a quiet machine,
# far more on one busy with other tests (pytest-xdist runs notebooks beside these), which must
# not turn into a setup error.
START_SECONDS = 180
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root: Path):
    """JupyterLab on 127.0.0.1 serving `root`, stopped at the end however the test went."""
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(root / ".jupyter"), "JUPYTER_RUNTIME_DIR": str(root / ".run")}
    for _ in range(3):  # the free port can be taken by another program before JupyterLab binds it
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--allow-root",
             "--ServerApp.port_retries=0",  # exit if the port is taken, rather than serve on another one
             f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}", "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            if answers(server, url):
                break
        except BaseException:
            stop(server)
            raise
    else:
        raise AssertionError(f"JupyterLab exited three times before it answered (last exit code {server.returncode})")
    try:
        yield url
    finally:
        stop(server)


def answers(server: subprocess.Popen, url: str) -> bool:
    """True once JupyterLab answers at `url`; False if it exits first. It gets START_SECONDS."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=10)
            return True
        except OSError:
            if server.poll() is not None:
                return False
            assert time.monotonic() < deadline, f"JupyterLab did not start within {START_SECONDS} s"
            time.sleep(0.5)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for the whole module: Playwright's sync API allows one running
    instance per thread, and the diagram fixture keeps its page open across tests."""
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, timeout=START_SECONDS * 1000)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def chromium_page(browser):
    """A fresh page (its own cookies and storage) in `browser`, closed at the end."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        yield page
    finally:
        context.close()


@pytest.fixture
def lab(tmp_path):
    """JupyterLab serving tmp_path, which holds play.ipynb (the cells above) and copies of lessons 3 and 7."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "play.ipynb")
    for lesson in ("03_agent_loop.ipynb", "07_reliability.ipynb"):
        shutil.copy(NOTEBOOKS / lesson, tmp_path / lesson)
    with jupyterlab(tmp_path) as url:
        yield url


@pytest.fixture
def page(lab, chromium):
    with chromium_page(chromium) as page:
        yield page


def open_notebook(page, lab: str, name: str) -> None:
    # reset: only this notebook open, none restored
    page.goto(f"{lab}/lab/tree/{name}?reset&token={TOKEN}", timeout=START_SECONDS * 1000)
    # the kernel is up and the notebook loaded
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=START_SECONDS * 1000)


def run_all(page) -> None:
    """Run > Run All Cells, as a learner would, then wait until the kernel is idle again."""
    page.get_by_role("menuitem", name="Run").click()
    page.get_by_text("Run All Cells", exact=True).click()
    page.get_by_text("Python 3 (ipykernel) | Busy").wait_for()
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=180_000)
    assert page.locator(ERROR).count() == 0, page.locator(ERROR).first.inner_text()


@in_a_browser
def test_run_all_on_lesson_3_then_step_through_the_run(lab, page):
    open_notebook(page, lab, "03_agent_loop.ipynb")
    run_all(page)
    viewer = page.locator(".widget-vbox", has=page.get_by_role("button", name="next ▶")).first
    heading = viewer.locator("h4").first
    wait_until(lambda: (heading.text_content() or "").startswith("Step 1 of 5"))
    viewer.get_by_role("button", name="next ▶").click()
    wait_until(lambda: (heading.text_content() or "").startswith("Step 2 of 5"))
    viewer.get_by_role("button", name="◀ previous").click()
    wait_until(lambda: (heading.text_content() or "").startswith("Step 1 of 5"))


@in_a_browser
def test_run_all_on_lesson_7_then_move_the_explorers_n(lab, page):
    open_notebook(page, lab, "07_reliability.ipynb")
    run_all(page)
    summary = page.locator(".widget-html-content", has_text="task success qⁿ").first
    assert "n=20: q = 0.98829, task success qⁿ = 0.790" in (summary.text_content() or "")
    steps = page.locator(".widget-slider", has_text="n (steps)").locator(".widget-readout")
    steps.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("40")
    page.keyboard.press("Enter")
    wait_until(lambda: "n=40:" in (summary.text_content() or ""))
    expected = task_success(step_success(0.9, 0.9, 2), 40)
    assert f"task success qⁿ = {expected:.3f}" in (summary.text_content() or "")  # q⁴⁰, as the formula says


@in_a_browser
def test_a_learner_plays_the_model_in_jupyterlab(lab, page):
    open_notebook(page, lab, "play.ipynb")
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")

    page.locator(f".jp-OutputArea textarea, {ERROR}").first.wait_for()  # the widget, or a cell's error
    assert page.locator(ERROR).count() == 0, page.locator(ERROR).first.inner_text()
    shown = page.locator(".jp-OutputArea textarea").nth(0)  # what the model reads
    reply = page.locator(".jp-OutputArea textarea").nth(1)  # where the learner types
    send = page.get_by_role("button", name="Send")
    wait_until(lambda: "=== call 1" in shown.input_value())

    reply.fill('call lookup {"planet": "Mars"}')
    send.click()
    wait_until(lambda: "=== call 2" in shown.input_value())
    assert "(id toolu_you_001):\n2" in shown.input_value()

    reply.fill("Mars has 2 moons.")
    send.click()
    wait_until(lambda: "The run is over: answer" in shown.input_value())
    assert send.is_disabled() and "The answer: Mars has 2 moons." in shown.input_value()


@in_a_browser
def test_a_refused_reply_is_kept_to_fix_and_the_newest_results_are_in_view(lab, page):
    open_notebook(page, lab, "play.ipynb")
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    page.locator(f".jp-OutputArea textarea, {ERROR}").first.wait_for()
    assert page.locator(ERROR).count() == 0, page.locator(ERROR).first.inner_text()
    shown = page.locator(".jp-OutputArea textarea").nth(0)
    reply = page.locator(".jp-OutputArea textarea").nth(1)
    send = page.get_by_role("button", name="Send")
    wait_until(lambda: "=== call 1" in shown.input_value())

    reply.fill('call lookup {"planet": Mars}')  # a missing pair of quotes
    send.click()
    refusal = page.locator(".jp-OutputArea .widget-html-content", has_text="not sent")
    wait_until(lambda: refusal.count() == 1 and refusal.is_visible())
    assert reply.input_value() == 'call lookup {"planet": Mars}'  # kept, not erased
    assert "^" in refusal.inner_text() and '{"planet": Mars}' in refusal.inner_text()  # the mistake marked

    reply.fill('call lookup {"planet": "Mars"}')
    send.click()
    wait_until(lambda: shown.input_value().startswith("=== call 2"))
    assert refusal.count() == 0 or not (refusal.text_content() or "").strip()  # the old refusal is gone
    result = "(id toolu_you_001):\n2"
    assert result in shown.input_value() and "[system]" not in shown.input_value()  # only what is new
    # the result's line lies inside the box's visible rows, and the box inside the window
    lines_before = shown.input_value()[: shown.input_value().index(result)].count("\n") + 2
    in_view = shown.evaluate("(box, lines) => { const style = getComputedStyle(box);"
                             " const line = parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize);"
                             " return box.scrollTop === 0 && lines * line <= box.clientHeight; }", lines_before)
    assert in_view
    shown.scroll_into_view_if_needed()
    box = shown.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + 40 <= page.viewport_size["height"]


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
def test_a_fresh_lesson_in_jupyterlab_shows_no_answer(tmp_path, chromium):
    """Each lesson opened as a learner first opens it, not run: nothing on the page gives an exercise's answer away.

    One JupyterLab serves every lesson, opened one after another, as a learner goes through the course."""
    for notebook in LESSONS:
        shutil.copy(notebook, tmp_path / notebook.name)
    with jupyterlab(tmp_path) as lab, chromium_page(chromium) as page:
        for notebook in LESSONS:
            open_notebook(page, lab, notebook.name)
            stored = nbformat.read(notebook, as_version=4).cells
            cells, total = page.locator(".jp-Notebook .jp-Cell"), len(stored)
            wait_until(lambda cells=cells, total=total: cells.count() == total)
            seen = page.evaluate("""() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map(cell => ({
                hidden: cell.querySelector('.jp-InputPlaceholder') !== null,
                preview: (cell.querySelector('.jp-InputPlaceholder') || {}).textContent || '',
                outputs: [...cell.querySelectorAll('.jp-OutputArea-output')].map(o => o.textContent).join('\\n'),
            }))""")
            assert len(seen) == len(stored), notebook.name
            for cell, shown in zip(stored, seen):
                assert not ANSWER.search(shown["outputs"]), f"{notebook.name} shows an answer: {shown['outputs'][:200]!r}"
                if "solution" in cell.metadata.get("tags", []):
                    assert shown["hidden"], f"{notebook.name}: a solution cell is open: {cell.source[:80]!r}"
                    assert SOLUTION_FIRST_LINE.search(shown["preview"]), shown["preview"]
                    assert "hidden until you click" in shown["outputs"] and "def " not in shown["outputs"]


def wait_until(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the widget did not get there in time"
        time.sleep(0.2)


# --- Mermaid diagrams -----------------------------------------------------------------------


def mermaid_blocks(notebook: Path) -> list[str]:
    """The source of every ```mermaid block in the notebook's markdown cells, in order."""
    blocks = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "markdown":
            blocks += re.findall(r"^```mermaid[ \t]*\n(.*?)^```", cell.source, flags=re.MULTILINE | re.DOTALL)
    return blocks


DIAGRAMS = {path.name: mermaid_blocks(path) for path in sorted(NOTEBOOKS.glob("*.ipynb")) if mermaid_blocks(path)}


def test_the_course_has_diagrams_to_check():
    assert "07_reliability.ipynb" in DIAGRAMS  # the checked step as a state machine
    assert all(block.strip() for blocks in DIAGRAMS.values() for block in blocks)


@pytest.fixture(scope="module")
def diagram_page(tmp_path_factory, chromium):
    """One JupyterLab serving copies of every notebook with a diagram, and one Chromium page on it."""
    root = tmp_path_factory.mktemp("diagrams")
    for name in DIAGRAMS:
        shutil.copy(NOTEBOOKS / name, root / name)
    with jupyterlab(root) as url, chromium_page(chromium) as page:
        yield url, page


# What JupyterLab shows for a block: a div holding an <img> of the SVG Mermaid drew or, when Mermaid
# could not parse the block, the same div marked jp-mod-warning, with the block and the parse error.
DRAWN = ".jp-MarkdownOutput .jp-RenderedMermaid"


@in_a_browser
@pytest.mark.parametrize("name", sorted(DIAGRAMS))
def test_every_diagram_is_drawn_in_jupyterlab(diagram_page, name):
    lab, page = diagram_page
    expected = len(DIAGRAMS[name])
    open_notebook(page, lab, name)
    wait_until(lambda: page.locator(DRAWN).count() >= expected, seconds=90)
    failed = page.locator(".jp-RenderedMermaid.jp-mod-warning")
    assert failed.count() == 0, f"{name}: Mermaid could not draw a diagram: {failed.first.inner_text()}"
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

"""The widgets where learners use them: a real JupyterLab driven by a headless browser.

Each test starts JupyterLab on 127.0.0.1 and opens a notebook in Debian's Chromium
through Playwright, as a learner would:
- lesson 3 with Run All, then the step viewer's buttons move through the run;
- lesson 7 with Run All, then the explorer's n is set and its numbers follow the formula;
- you are the model: `play()` runs the loop on a helper thread (a cell that blocked on
  `input()` would never receive a click), two replies are typed and sent.

It needs the `chromium` package and the Python `playwright` package (no browser
download: Playwright is pointed at /usr/bin/chromium), and is skipped without them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
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

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (apt-get install chromium)"),
    pytest.mark.skipif(playwright_api is None, reason="needs the playwright package (pip install playwright)"),
]

TOKEN = "teachagent-browser-test"
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ERROR = "[data-mime-type='application/vnd.jupyter.stderr']"  # how JupyterLab marks a cell's error output
CELLS = [
    "from teachagent import Agent, HumanModel, play, tool\n\n"
    "@tool\ndef lookup(planet: str) -> str:\n    \"\"\"How many moons a planet has.\"\"\"\n"
    "    return {'mars': '2'}.get(planet.lower(), 'unknown')",
    "session = play(Agent(HumanModel(), [lookup], system='Use the tool.'), 'How many moons has Mars?')\nsession",
]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on 127.0.0.1 serving tmp_path, stopped at the end however the test went.

    tmp_path holds play.ipynb (the cells above) and copies of lessons 3 and 7.
    """
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "play.ipynb")
    for lesson in ("03_agent_loop.ipynb", "07_reliability.ipynb"):
        shutil.copy(NOTEBOOKS / lesson, tmp_path / lesson)
    port = free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / ".jupyter"), "JUPYTER_RUNTIME_DIR": str(tmp_path / ".run")}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--allow-root",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={tmp_path}", "--LabApp.news_url=",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not start within 60 s"
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture
def page(lab):
    """A headless Chromium page, closed at the end."""
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_default_timeout(60_000)
            yield page
        finally:
            browser.close()


def open_notebook(page, lab: str, name: str) -> None:
    page.goto(f"{lab}/lab/tree/{name}?token={TOKEN}")
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()  # the kernel is up and the notebook loaded


def run_all(page) -> None:
    """Run > Run All Cells, as a learner would, then wait until the kernel is idle again."""
    page.get_by_role("menuitem", name="Run").click()
    page.get_by_text("Run All Cells", exact=True).click()
    page.get_by_text("Python 3 (ipykernel) | Busy").wait_for()
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=180_000)
    assert page.locator(ERROR).count() == 0, page.locator(ERROR).first.inner_text()


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
    assert "result for toolu_you_001:\n2" in shown.input_value()

    reply.fill("Mars has 2 moons.")
    send.click()
    wait_until(lambda: "The run is over: answer" in shown.input_value())
    assert send.is_disabled()


def wait_until(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the widget did not get there in time"
        time.sleep(0.2)

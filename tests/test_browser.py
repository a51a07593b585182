"""You are the model, in a real JupyterLab driven by a headless browser.

The widget must work where a learner uses it: a cell that blocked on `input()` or in a
busy loop would never receive the Send button's clicks, so `play()` runs the loop on a
helper thread. This test starts JupyterLab on 127.0.0.1, opens a notebook in Debian's
Chromium through Playwright, runs it, types two replies into the widget and clicks Send.

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

import nbformat
import pytest

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
    """JupyterLab on 127.0.0.1 serving tmp_path, stopped at the end however the test went."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "play.ipynb")
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


def test_a_learner_plays_the_model_in_jupyterlab(lab):
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{lab}/lab/tree/play.ipynb?token={TOKEN}")
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()  # the kernel is up and the notebook loaded
            page.locator(".jp-Notebook .jp-Cell").first.click()
            page.keyboard.press("Shift+Enter")
            page.keyboard.press("Shift+Enter")

            error = "[data-mime-type='application/vnd.jupyter.stderr']"
            page.locator(f".jp-OutputArea textarea, {error}").first.wait_for()  # the widget, or a cell's error
            assert page.locator(error).count() == 0, page.locator(error).first.inner_text()
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
        finally:
            browser.close()


def wait_until(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the widget did not get there in time"
        time.sleep(0.2)

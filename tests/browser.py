"""What the browser tests share: JupyterLab on 127.0.0.1, headless Chromium through Playwright,
and the moves a learner makes in a notebook (open it, Run All, wait for a widget).

Used by tests/test_browser.py (the widgets, run in JupyterLab) and tests/test_browser_lessons.py
(every lesson opened fresh, and the diagrams). Both need Debian's `chromium` package and the
Python `playwright` package (no browser download: Playwright is pointed at /usr/bin/chromium),
and are skipped without them. Two files, so that the browser step (`pytest -m browser`) gives
each its own worker.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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
# How long JupyterLab, Chromium or a kernel may take to start: a few seconds on a quiet machine,
# far more on a busy one (the two browser files run side by side), which must not turn into a
# setup error.
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



@contextlib.contextmanager
def launch_chromium():
    """One headless Chromium, closed at the end: Playwright's sync API allows one running instance per thread."""
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


def end_sessions(lab: str) -> None:
    """Shut down every kernel the test's notebooks started, as closing them in JupyterLab would."""
    headers = {"Authorization": f"token {TOKEN}"}
    with urllib.request.urlopen(urllib.request.Request(f"{lab}/api/sessions", headers=headers), timeout=30) as answer:
        sessions = json.load(answer)
    for session in sessions:
        request = urllib.request.Request(f"{lab}/api/sessions/{session['id']}", method="DELETE", headers=headers)
        urllib.request.urlopen(request, timeout=30).close()


def open_notebook(page, lab: str, name: str, kernel: bool = True) -> None:
    """Open `name` alone (`reset`: no other notebook restored) and wait until its cells are on the page
    and, unless `kernel` is False (nothing will run), its kernel is up."""
    page.goto(f"{lab}/lab/tree/{name}?reset&token={TOKEN}", timeout=START_SECONDS * 1000)
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=START_SECONDS * 1000)
    if kernel:
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=START_SECONDS * 1000)


def run_all(page) -> None:
    """Run > Run All Cells, as a learner would, then wait until the kernel is idle again."""
    page.get_by_role("menuitem", name="Run").click()
    page.get_by_text("Run All Cells", exact=True).click()
    page.get_by_text("Python 3 (ipykernel) | Busy").wait_for()
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=180_000)
    assert page.locator(ERROR).count() == 0, page.locator(ERROR).first.inner_text()


def wait_until(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the widget did not get there in time"
        time.sleep(0.2)

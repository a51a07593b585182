"""The course's widgets where learners use them: a real JupyterLab driven by a headless browser.

One JupyterLab on 127.0.0.1 (tests/browser.py) serves copies of lessons 3 and 7 and one
notebook per `play()` test, each opened in Debian's Chromium through Playwright, as a
learner would:
- lesson 3 with Run All, then the step viewer's buttons move through the run;
- lesson 7 with Run All, then the explorer's n is set and its numbers follow the formula;
- you are the model: `play()` runs the loop on a helper thread (a cell that blocked on
  `input()` would never receive a click), two replies are typed and sent; a refused reply
  stays in the box with its mistake marked, is fixed and sent, and the newest tool result
  is in view at the top of the page box.

Each test's page is closed and its kernels shut down when it ends. These run as a step of
their own (`pytest -m browser`, docs/tests.md): a JupyterLab and a Chromium beside the
other tests would double the whole suite's time on two cores.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from browser import (
    ERROR,
    NOTEBOOKS,
    in_a_browser,
    jupyterlab,
    open_notebook,
    run_all,
    wait_until,
)

from teachagent import step_success, task_success

CELLS = [
    "from teachagent import Agent, HumanModel, play, tool\n\n"
    "@tool\ndef lookup(planet: str) -> str:\n    \"\"\"How many moons a planet has.\"\"\"\n"
    "    return {'mars': '2'}.get(planet.lower(), 'unknown')",
    "session = play(Agent(HumanModel(), [lookup], system='Use the tool.'), 'How many moons has Mars?')\nsession",
]
PLAYS = ("play_sent.ipynb", "play_refused.ipynb")  # one each, so no test opens a notebook another has run


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab serving copies of lessons 3 and 7 and the play notebooks (the cells above)."""
    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for name in PLAYS:
        nbformat.write(nb, root / name)
    for lesson in ("03_agent_loop.ipynb", "07_reliability.ipynb"):
        shutil.copy(NOTEBOOKS / lesson, root / lesson)
    with jupyterlab(root) as url:
        yield url


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
    open_notebook(page, lab, "play_sent.ipynb")
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
    open_notebook(page, lab, "play_refused.ipynb")
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

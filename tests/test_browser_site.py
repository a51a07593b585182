"""The course's site in a real browser: built offline, served on 127.0.0.1, read in headless Chromium.

The site is what `python -m teachagent site` builds (docs/site.md): CI builds it in a step of
its own and names it in TEACHAGENT_SITE; without that, the test builds it here, with the
Mermaid of TEACHAGENT_MERMAID_JS if there is one. Each page is opened with every request to
another host refused, and must load with no error in the console; its maths must be typeset
by MathJax; each lesson's diagrams must be drawn (skipped, with the reason, on a site built
without Mermaid); nothing a lesson folds (the output that answers a prediction, a reference
solution) may be visible before its button is clicked, and each must show after the click.
Every link between the site's pages, anchors included, must resolve, and each lesson's plots
must be images on its page. Marked `browser`: the
browser step (`pytest -m browser`) runs it, never the README's `pytest`.
"""

from __future__ import annotations

import html.parser
import os
import re
import threading
import urllib.parse
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nbformat
import pytest
from browser import BROWSER, NOTEBOOKS, chromium_page, wait_until

from teachagent.course.site import lessons, pages

pytestmark = BROWSER

ROOT = NOTEBOOKS.parent
LESSONS = lessons(ROOT)
LESSON_PAGES = [f"notebooks/{path.stem}.html" for path in LESSONS]
OTHER_PAGES = ["index.html"] + [str(Path(page).with_suffix(".html")) for _, group in pages(ROOT) for page in group]
ANSWER = re.compile(r"(?:exercise|quiz) \d+\.\d+: correct")  # a check's verdict on a solved exercise


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The built site: the one TEACHAGENT_SITE names, or one built here."""
    if os.environ.get("TEACHAGENT_SITE"):
        site = Path(os.environ["TEACHAGENT_SITE"])
        assert (site / "index.html").is_file(), f"TEACHAGENT_SITE={site} holds no built site"
        return site
    from teachagent.course.site import Launch, build, mermaid_dist
    from teachagent.exercises.reveal import solution_source

    site = tmp_path_factory.mktemp("site") / "site"
    build(ROOT, site, Launch(), solution_source, mermaid_dist(None), progress=lambda _: None)
    return site


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the test's output is the test's
        pass


@pytest.fixture(scope="module")
def served(built):
    """The site over HTTP on 127.0.0.1 (Mermaid's module cannot load from file://), stopped at the end."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(built)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def read(page, served: str, name: str) -> dict[str, list[str]]:
    """Open `name` with every request to another host refused; what went wrong on the way, by kind."""
    problems: dict[str, list[str]] = {"console errors": [], "other hosts": [], "failed requests": []}

    def only_here(route) -> None:
        if route.request.url.startswith(served + "/"):
            route.continue_()
        else:
            problems["other hosts"].append(route.request.url)
            route.abort()

    page.context.route("**/*", only_here)
    page.on("console", lambda message: problems["console errors"].append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems["console errors"].append(str(error)))
    page.on("response", lambda answer: problems["failed requests"].append(f"{answer.status} {answer.url}")
            if answer.status >= 400 else None)
    page.goto(f"{served}/{name}", wait_until="load")
    return problems


@pytest.mark.parametrize("name", LESSON_PAGES + OTHER_PAGES + ["search.html", "genindex.html"])
def test_every_page_loads_with_no_error_nothing_from_another_host_and_its_maths_typeset(served, chromium, name):
    with chromium_page(chromium) as page:
        problems = read(page, served, name)
        maths = page.locator(".math")
        if maths.count():
            page.wait_for_function("() => [...document.querySelectorAll('.math')].every(m => m.querySelector('mjx-container'))",
                                   timeout=60_000)
            assert page.locator(".math mjx-merror, mjx-container [data-mjx-error]").count() == 0
        page.wait_for_timeout(300)  # a script that fails after the load event still reports
        assert problems == {"console errors": [], "other hosts": [], "failed requests": []}


def test_the_lessons_have_maths_to_typeset(built):
    assert (built / "notebooks" / "07_reliability.html").read_text(encoding="utf-8").count('class="math') > 20


def diagrams(notebook: Path) -> int:
    return sum(len(re.findall(r"^```mermaid[ \t]*$", cell.source, flags=re.MULTILINE))
               for cell in nbformat.read(notebook, as_version=4).cells if cell.cell_type == "markdown")


@pytest.mark.parametrize("notebook", [path for path in LESSONS if diagrams(path)], ids=lambda path: path.name)
def test_every_diagram_of_a_lesson_is_drawn(built, served, chromium, notebook):
    if not (built / "_static" / "mermaid").is_dir():
        pytest.skip("the site was built without the npm package mermaid (TEACHAGENT_MERMAID_JS): its diagrams are "
                    "shown as their source")
    expected = diagrams(notebook)
    with chromium_page(chromium) as page:
        read(page, served, f"notebooks/{notebook.stem}.html")
        drawn = page.locator(".mermaid > svg")
        wait_until(lambda: drawn.count() >= expected)
        assert page.locator(".mermaid").count() == drawn.count() == expected
        for i in range(expected):
            svg = drawn.nth(i)
            assert "Syntax error" not in svg.inner_html() and svg.evaluate("s => s.getBBox().width") > 50


def folds(notebook: Path) -> list[str]:
    """What the site must fold in this lesson, in order: the button of each cell it marks."""
    shown = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        hidden = cell.metadata.get("jupyter", {})
        if cell.cell_type != "code":
            continue
        if "solution" in cell.metadata.get("tags", []):
            shown.append("Show the reference solution")
        elif hidden.get("outputs_hidden"):
            shown.append("Show the output")
        elif hidden.get("source_hidden"):
            shown.append("Show the code")
    return shown


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_nothing_a_lesson_folds_is_in_sight_before_its_button_is_clicked(served, chromium, notebook):
    with chromium_page(chromium) as page:
        read(page, served, f"notebooks/{notebook.stem}.html")
        folded = page.locator("div.cell details.hide")
        buttons = [text.strip() for text in folded.locator("summary p.collapsed").all_inner_texts()]
        assert len(buttons) == len(folds(notebook))
        assert all(button.startswith(expected) for button, expected in zip(buttons, folds(notebook))), buttons
        assert not ANSWER.search(page.inner_text("body"))
        for i in range(folded.count()):
            fold, inside = folded.nth(i), folded.nth(i).locator(":scope > :not(summary)")
            assert fold.get_attribute("open") is None and inside.count() >= 1
            assert not any(inside.nth(j).is_visible() for j in range(inside.count())), buttons[i]
            fold.locator("summary").click()
            inside.first.wait_for(state="visible", timeout=10_000)
            assert inside.first.inner_text().strip(), buttons[i]  # the click shows what was folded


class Links(html.parser.HTMLParser):
    """The links (a href, link href, script src, img src) and the ids of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"])
        if tag in ("a", "link") and found.get("href"):
            self.links.append(found["href"])
        if tag in ("script", "img") and found.get("src"):
            self.links.append(found["src"])


def parsed(path: Path) -> Links:
    page = Links()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_every_link_between_the_sites_pages_resolves_anchors_included(built):
    pages = {path: parsed(path) for path in sorted(built.rglob("*.html"))
             if "_static" not in path.parts}  # the theme's templates there are no pages
    assert {built / name for name in LESSON_PAGES + OTHER_PAGES} <= set(pages)
    broken = []
    for path, page in pages.items():
        for link in page.links:
            target = urllib.parse.urlsplit(link)
            if target.scheme or target.netloc or not (target.path or target.fragment):
                continue  # another site (the lessons' further reading, Binder), or a button's "#"
            file = (path.parent / urllib.parse.unquote(target.path)).resolve() if target.path else path
            if file.is_dir():
                file = file / "index.html"
            if not file.is_file():
                broken.append(f"{path.relative_to(built)}: {link}")
            elif target.fragment and file.suffix == ".html" and target.fragment not in pages[file].ids:
                broken.append(f"{path.relative_to(built)}: {link} (no such anchor)")
    assert broken == []


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_each_lesson_links_a_way_to_run_it_and_its_notebook_to_download(built, notebook):
    page = parsed(built / "notebooks" / f"{notebook.stem}.html")
    assert notebook.name in page.links  # the notebook as committed, beside its page
    assert (built / "notebooks" / notebook.name).read_bytes() == notebook.read_bytes()
    assert "../index.html" in page.links  # the README's first commands


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_each_plot_of_a_lesson_is_an_image_on_its_page(built, notebook):
    plots = sum("image/png" in output.get("data", {}) for cell in nbformat.read(notebook, as_version=4).cells
                for output in cell.get("outputs", []))
    images = [link for link in parsed(built / "notebooks" / f"{notebook.stem}.html").links if link.startswith("../_images/")]
    assert len(images) == plots and all((built / "notebooks" / image).resolve().is_file() for image in images)

"""The README is read in two minutes: short, its links alive, and no answer a lesson asks the learner to guess.

What it used to hold in full lives on the site's pages (docs/) and in CONTRIBUTING.md; the
README links each of them. tests/test_ci_and_environment.py checks its first commands, and
tests/test_lessons_listed.py its table of lessons.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_at_most_150_lines():
    assert len(README.splitlines()) <= 150


def test_the_readme_links_every_page_its_old_sections_moved_to():
    pages = ["docs/instructors.md", "docs/models.md", "docs/installing.md", "notebooks/troubleshooting.md",
             "docs/errors.md", "docs/tests.md", "docs/benchmarks.md", "docs/layout.md", "docs/site.md",
             "docs/exercises.md", "CONTRIBUTING.md"]
    assert [page for page in pages if f"]({page})" not in README] == []


@pytest.mark.parametrize("page", [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))],
                         ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_link_to_a_file_of_the_repository_finds_it(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)  # code is not a link
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.partition("#")[0]
        assert (page.parent / path).is_file(), f"{page.name} links {target}, which does not exist"


# A figure: a number with a decimal point or a thousands comma, or a whole number of three digits or more
# that is not a round hundred (K = 100, 1000 steps are settings, not results).
FIGURE = re.compile(r"(?<![\w.])(?:\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+|\d{3,})(?![\w])")


def figures(text: str) -> set[str]:
    return {f for f in FIGURE.findall(text) if "." in f or "," in f or int(f) % 100}


def guarded_figures(notebook: Path) -> set[str]:
    """The figures a lesson keeps out of sight (a prediction's answer): first printed by the code cell just below a
    comparison whose stored output is "no guess yet", or by a cell whose outputs it folds."""
    seen, guarded = set(), set()
    below_a_guess = False
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "markdown":
            seen |= figures(cell.source)
            continue
        shown = "".join(output.get("text", "") + output.get("data", {}).get("text/plain", "")
                        for output in cell.get("outputs", []))
        if below_a_guess or cell.metadata.get("jupyter", {}).get("outputs_hidden"):
            guarded |= figures(shown) - seen
        else:
            seen |= figures(shown)
        below_a_guess = shown.startswith("no guess yet")
    return guarded


def test_the_lessons_guard_figures_for_this_test_to_find():
    assert {"0.790", "58.8"} <= guarded_figures(ROOT / "notebooks" / "07_reliability.ipynb")  # q²⁰ and n₅₀, lesson 7's guesses


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_the_readme_prints_no_figure_a_lesson_asks_the_learner_to_predict(notebook):
    printed = figures(README)
    assert sorted(guarded_figures(notebook) & printed) == []

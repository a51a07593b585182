"""The course as a website (course machinery; docs/site.md, and CONTRIBUTING.md for what folds).

`python -m teachagent site` builds, in a clone, a static site of the course into
`build/site/`: every lesson of `notebooks/` in order (the folder is the table of contents,
so a new lesson joins by being there), the README as its first page, and the pages of
`docs/`, `notebooks/troubleshooting.md` and `CONTRIBUTING.md`. It runs no cell: each lesson
is rendered from its stored outputs by Sphinx with MyST-NB and the book theme.

Nothing is fetched while the site is built or read. MathJax comes from the
`sphinx-mathjax-offline` package and is copied into the site; Mermaid comes from the npm
package `mermaid`, unpacked where `--mermaid` or TEACHAGENT_MERMAID_JS says (.ci/run and the
Pages workflow fetch it from the npm registry); without it each diagram is shown as its
source, with a line saying so. After the build every page is read back, and a script,
style sheet, image or font loaded from another host fails it.

The notebooks are never changed: each is copied, and the copy is marked with the theme's own
folding, from what the lesson marks (the rule, for lesson authors, is in CONTRIBUTING.md):
- a code cell whose outputs the notebook folds (`jupyter.outputs_hidden`), as a lesson does
  with every figure it asks the learner to predict, keeps its outputs behind a button;
- a cell tagged `solution` shows, behind a button, the reference solution a learner gets by
  clicking in JupyterLab (the notebook itself holds only the call `solution("N.M")`);
- any other cell whose source the notebook folds (`jupyter.source_hidden`) keeps it folded;
- an interactive widget, which needs a kernel, is shown by the static HTML stored beside it
  (the step viewer's page of the run).
Each lesson's page starts with its launch links: Binder and, given `--hub`, a JupyterHub
through nbgitpuller (docs/instructors.md), and the notebook itself to download.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from ..base.errors import CourseError

if TYPE_CHECKING:  # nbformat is imported only when the site is built
    from nbformat import NotebookNode

# The words of the buttons that fold and unfold.
SHOW_OUTPUT = "Show the output (make your guess first)"
HIDE_OUTPUT = "Hide the output"
SHOW_SOLUTION = "Show the reference solution {exercise}"
HIDE_SOLUTION = "Hide the reference solution"
SHOW_SOURCE = "Show the code"
HIDE_SOURCE = "Hide the code"

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # needs a kernel; the text/html beside it does not
SOLUTION_CALL = re.compile(r"""^solution\(["'](\d+\.\d+)["']\)\s*$""", re.MULTILINE)
README_LINK = re.compile(r"(\]\((?:\.\./)*)README\.md(?=[)#])")  # the README is the site's first page, index.md
MERMAID_FENCE = re.compile(r"^```mermaid[ \t]*$", re.MULTILINE)
NO_MERMAID = ("*A diagram, shown as its Mermaid source: this site was built without the npm package `mermaid` "
              "that draws it (docs/site.md).*\n\n```text")
MERMAID_MODULE = "mermaid.esm.min.mjs"  # the module the page imports; it imports its chunks from chunks/mermaid.esm.min/
# The site's pages after the lessons, in the sidebar's order: (caption, [files relative to the clone]).
# A page of docs/ not named here is on the site too, under "More" (`pages`).
PAGES = [
    ("Taking the course", ["docs/exercises.md", "docs/models.md", "notebooks/troubleshooting.md", "docs/errors.md"]),
    ("Teaching it", ["docs/instructors.md", "docs/installing.md", "docs/site.md"]),
    ("Changing it", ["CONTRIBUTING.md", "docs/tests.md", "docs/benchmarks.md", "docs/layout.md"]),
]


class SiteError(CourseError):
    """The site could not be built: a missing builder, a page that does not render, a remote asset."""


def lessons(root: Path) -> list[Path]:
    """Every lesson of the clone at `root`, in order: the notebooks named NN_topic.ipynb."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def pages(root: Path) -> list[tuple[str, list[str]]]:
    """The site's other pages, grouped as the sidebar shows them: PAGES, then any other page of docs/."""
    named = {page for _, group in PAGES for page in group}
    more = [f"docs/{path.name}" for path in sorted((root / "docs").glob("*.md")) if f"docs/{path.name}" not in named]
    return PAGES + [("More", more)] if more else list(PAGES)


@dataclass
class Launch:
    """Where a lesson can be run: the repository on GitHub (Binder needs it) and, optionally, a JupyterHub."""

    repository: str | None = None  # https://github.com/OWNER/NAME
    branch: str = "main"
    hub: str | None = None  # https://HUB, a JupyterHub with nbgitpuller in its image

    def binder(self, notebook: str) -> str | None:
        found = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?", self.repository or "")
        if not found:
            return None
        return f"https://mybinder.org/v2/gh/{found[1]}/{self.branch}?{urlencode({'urlpath': f'lab/tree/notebooks/{notebook}'})}"

    def jupyterhub(self, notebook: str) -> str | None:
        """An nbgitpuller link, as docs/instructors.md builds it: the repository into the learner's home, then the lesson."""
        if not (self.hub and self.repository):
            return None
        query = {"repo": self.repository, "branch": self.branch, "targetpath": "teachagent",
                 "urlpath": f"lab/tree/teachagent/notebooks/{notebook}"}
        return f"{self.hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(query)}"

    def line(self, notebook: str) -> str:
        """The first thing a lesson's page says: where to run it, and the notebook to download."""
        places = [f"[on {where}]({url})" for where, url in (("Binder", self.binder(notebook)),
                                                             ("your JupyterHub", self.jupyterhub(notebook))) if url]
        places.append("[on your own machine](../index.md)")  # the README's first commands
        download = f'<a href="{notebook}" download>download the notebook</a>'
        return f"**Run this lesson** {' or '.join(places)}, or {download}."


def fold(notebook: NotebookNode, name: str, launch: Launch, solution: Callable[[str], str],
         mermaid: bool) -> NotebookNode:
    """The site's copy of a lesson: folded where the lesson folds, with its launch line after its title cell."""
    import nbformat

    copy = deepcopy(notebook)
    for cell in copy.cells:
        tags = list(cell.metadata.get("tags", []))
        folded = cell.metadata.get("jupyter", {})
        if cell.cell_type == "markdown" and not mermaid:
            cell.source = MERMAID_FENCE.sub(NO_MERMAID, cell.source)
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
        called = SOLUTION_CALL.search(cell.source)
        if "solution" in tags and called:
            cell.source = solution(called[1]).rstrip("\n")
            cell.outputs = []
            cell.execution_count = None
            tags += ["hide-input", "remove-output"]
            prompts = (SHOW_SOLUTION.format(exercise=called[1]), HIDE_SOLUTION)
        elif folded.get("outputs_hidden"):
            tags.append("hide-output")
            prompts = (SHOW_OUTPUT, HIDE_OUTPUT)
        elif folded.get("source_hidden"):
            tags.append("hide-input")
            prompts = (SHOW_SOURCE, HIDE_SOURCE)
        else:
            continue
        cell.metadata["tags"] = tags
        cell.metadata["mystnb"] = {"code_prompt_show": prompts[0], "code_prompt_hide": prompts[1]}
    copy.cells.insert(1, nbformat.v4.new_markdown_cell(launch.line(name)))
    return copy


def mermaid_dist(given: str | Path | None) -> Path | None:
    """The `dist` folder of the npm package mermaid, if one was given (or TEACHAGENT_MERMAID_JS names it)."""
    folder = given or os.environ.get("TEACHAGENT_MERMAID_JS")
    if not folder:
        return None
    dist = Path(folder)
    if not (dist / MERMAID_MODULE).is_file() or not (dist / "chunks" / "mermaid.esm.min").is_dir():
        raise SiteError(f"{dist} is not the dist folder of the npm package mermaid: it has no {MERMAID_MODULE} "
                        "beside chunks/mermaid.esm.min/")
    return dist


# The tab's icon: a browser asks for /favicon.ico, and a 404 in its console, unless the page names one.
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" '
           'fill="#4c72b0"/><path d="M4 5h8M8 5v8" stroke="white" stroke-width="2"/></svg>')

CONF = '''\
# Written by `python -m teachagent site` (teachagent/course/site.py) for this build only.
project = "teachagent"
author = "the teachagent authors"
copyright = "the teachagent authors"
root_doc = "index"
extensions = {extensions!r}
exclude_patterns = ["_build", "_static"]
html_theme = "sphinx_book_theme"
html_title = "teachagent"
html_static_path = ["_static"]
html_extra_path = ["_downloads"]
html_show_sourcelink = False
html_copy_source = False
html_favicon = "_static/favicon.svg"
html_context = {{"default_mode": "light"}}  # the step viewer's page of a run is drawn in light colours
html_theme_options = {{
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "home_page_in_toc": True,
}}
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 4
myst_fence_as_directive = {fences!r}
nb_execution_mode = "off"
nb_merge_streams = True
nb_output_stderr = "show"
mermaid_use_local = "mermaid/{mermaid}"
mermaid_version = ""
mermaid_height = "auto"
mermaid_fullscreen = False
suppress_warnings = ["mystnb.unknown_mime_type"]
'''


def write_sources(root: Path, source: Path, launch: Launch, solution: Callable[[str], str],
                  mermaid: Path | None) -> None:
    """The Sphinx project of one build, in `source`: copies only, the clone left as it is."""
    import nbformat

    if source.exists():
        shutil.rmtree(source)
    (source / "_static").mkdir(parents=True)
    downloads = source / "_downloads" / "notebooks"
    downloads.mkdir(parents=True)
    found = lessons(root)
    if not found:
        raise SiteError(f"{root / 'notebooks'} holds no lesson (NN_topic.ipynb): run the command in a clone of teachagent")
    for path in found:
        notebook = nbformat.read(path, as_version=4)
        nbformat.write(fold(notebook, path.name, launch, solution, mermaid is not None),
                       _mkdir(source / "notebooks") / path.name)
        shutil.copy(path, downloads / path.name)  # the download link gives the lesson as committed
    groups = pages(root)
    for page in [page for _, group in groups for page in group]:
        if not (root / page).is_file():
            raise SiteError(f"the site's page {page} is missing")
        text = (root / page).read_text(encoding="utf-8")
        (_mkdir((source / page).parent) / Path(page).name).write_text(README_LINK.sub(r"\1index.md", text), encoding="utf-8")
    if (root / "docs" / "images").is_dir():
        shutil.copytree(root / "docs" / "images", source / "docs" / "images")
    toctrees = [toctree("Lessons", [f"notebooks/{p.stem}" for p in found])]
    toctrees += [toctree(caption, [page.removesuffix(".md") for page in group]) for caption, group in groups]
    readme = (root / "README.md").read_text(encoding="utf-8")
    (source / "index.md").write_text(readme + "\n" + "\n".join(toctrees), encoding="utf-8")
    extensions = ["myst_nb", "sphinx-mathjax-offline"]
    if mermaid:
        extensions.append("sphinxcontrib.mermaid")
        target = _mkdir(source / "_static" / "mermaid")
        shutil.copy(mermaid / MERMAID_MODULE, target / MERMAID_MODULE)
        chunks = _mkdir(target / "chunks" / "mermaid.esm.min")
        for chunk in (mermaid / "chunks" / "mermaid.esm.min").glob("*.mjs"):
            shutil.copy(chunk, chunks / chunk.name)
    (source / "_static" / "favicon.svg").write_text(FAVICON, encoding="utf-8")
    conf = CONF.format(extensions=extensions, fences=["mermaid"] if mermaid else [], mermaid=MERMAID_MODULE)
    (source / "conf.py").write_text(conf, encoding="utf-8")


def _mkdir(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def toctree(caption: str, documents: list[str]) -> str:
    lines = "\n".join(documents)
    return f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n:caption: {caption}\n\n{lines}\n```\n"


# What loads from another host: an element's src or href (<a> only links), a style sheet's @import or url(),
# a module's import.
REMOTE = re.compile(r"""(?:<script|<link|<img|<iframe|<source)[^>]*?\b(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)"""
                    r"""|@import\s+(?:url\()?["']?((?:https?:)?//[^"')\s]+)|url\(\s*["']?((?:https?:)?//[^"')\s]+)"""
                    r"""|(?:\bimport\s*\(?|\bfrom)\s*["']((?:https?:)?//[^"']+)""", re.IGNORECASE)


def remote_assets(site: Path) -> list[str]:
    """Every script, style sheet, image, font or module a page of `site` would load from another host."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix in (".html", ".css", ".js", ".mjs") and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [f"{path.relative_to(site)}: {next(u for u in match.groups() if u)}" for match in REMOTE.finditer(text)]
    return found


def build(root: Path, out: Path, launch: Launch, solution: Callable[[str], str],
          mermaid: Path | None = None, progress: Callable[[str], object] = print) -> Path:
    """Build the site of the clone at `root` into `out`; return the path of its first page."""
    try:
        from sphinx.cmd.build import build_main
    except ImportError:
        raise SiteError('building the site needs its extra: pip install -e ".[site]"') from None
    source = out.parent / f"{out.name}-source"
    write_sources(root, source, launch, solution, mermaid)
    if out.exists():
        shutil.rmtree(out)
    progress(f"building {len(lessons(root))} lessons and {sum(len(g) for _, g in pages(root)) + 1} pages into {out} ...")
    warnings = source / "warnings.txt"
    code = build_main(["-b", "html", "-Q", "-W", "--keep-going", "-w", str(warnings),
                       "-d", str(source / "_doctrees"), str(source), str(out)])
    if code:
        said = warnings.read_text(encoding="utf-8").strip() if warnings.is_file() else ""
        raise SiteError(f"Sphinx could not build the site (exit code {code}):\n{said}")
    remote = remote_assets(out)
    if remote:
        raise SiteError("the site would load from the network: " + "; ".join(remote[:10]))
    return out / "index.html"


def main(argv: list[str], solution: Callable[[str], str]) -> int:
    """`python -m teachagent site [--out DIR] [--repository URL] [--branch NAME] [--hub URL] [--mermaid DIR]`."""
    parser = argparse.ArgumentParser(prog="teachagent site", description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="DIR", help="where the site goes (default: build/site in the clone)")
    parser.add_argument("--repository", default=default_repository(), metavar="URL",
                        help="the repository on GitHub, for the Binder links (default: GitHub Actions' own, else none)")
    parser.add_argument("--branch", default=os.environ.get("GITHUB_REF_NAME") or "main",
                        help="the branch the launch links open (default: main)")
    parser.add_argument("--hub", default=os.environ.get("TEACHAGENT_HUB_URL") or None, metavar="URL",
                        help="a JupyterHub with nbgitpuller, for a launch link there (default: TEACHAGENT_HUB_URL)")
    parser.add_argument("--mermaid", metavar="DIR", help="the dist folder of the npm package mermaid, which draws "
                        "the diagrams (default: TEACHAGENT_MERMAID_JS; none: diagrams shown as their source)")
    args = parser.parse_args(argv)
    root = clone_root()
    out = Path(args.out).resolve() if args.out else root / "build" / "site"
    started = time.monotonic()
    try:
        mermaid = mermaid_dist(args.mermaid)
        page = build(root, out, Launch(args.repository, args.branch, args.hub), solution, mermaid)
    except CourseError as error:  # no builder, a missing page or solution, a warning, a remote asset
        print(f"teachagent: {error}", file=sys.stderr)
        return 1
    drawn = "drawn by Mermaid" if mermaid else "shown as their source (no --mermaid)"
    print(f"site built in {time.monotonic() - started:.0f} s, diagrams {drawn}: {page}")
    return 0


def default_repository() -> str | None:
    """The repository GitHub Actions runs in (GITHUB_SERVER_URL and GITHUB_REPOSITORY), else none."""
    server, name = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    return f"{server}/{name}" if server and name else None


def clone_root() -> Path:
    """The clone to build: the one this package was installed from (`pip install -e .`), else the current folder."""
    for folder in (Path(__file__).resolve().parents[2], Path.cwd()):
        if (folder / "notebooks").is_dir() and (folder / "README.md").is_file():
            return folder
    return Path.cwd()

"""A small library of articles, and the search and read tools over it (notebooks/05_research_kl.ipynb).

The articles are markdown files shipped with the package (`research/corpus/*.md`), each
with `## ` sections. Search ranks sections with BM25, using the full-text index built
into SQLite (FTS5) rather than a ranking of our own, and returns short snippets with
ids. Read returns a whole article, one section, or an exact range of lines.

The two tools give an agent two ways to work: search and read a short excerpt, or read
everything. Lessons 5 and 6 measure what each costs.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from dataclasses import dataclass, field
from importlib import resources

from ..tools import Tool, tool

MAX_QUERY_WORDS = 32  # FTS5 slows down quadratically with the number of OR terms


@dataclass
class Article:
    """One article: its id (the file name without .md), its title and its text."""

    id: str
    title: str
    text: str
    sections: dict[str, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return f"Article(id={self.id!r}, title={self.title!r}, sections={len(self.sections)}, lines={len(self.lines)})"

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


def parse(doc_id: str, text: str) -> Article:
    """Split an article into its title (the `# ` line) and its `## ` sections."""
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), doc_id)
    parts = re.split(r"^## ", text, flags=re.MULTILINE)
    sections = {"Summary": parts[0].strip()}  # the text before the first section
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        sections[heading.strip()] = f"## {heading.strip()}\n{body.strip()}"
    return Article(doc_id, title, text, sections)


@functools.cache
def load_corpus() -> dict[str, Article]:
    """Every article shipped with the package, by id, in alphabetical order."""
    folder = resources.files("teachagent.research") / "corpus"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".md")), key=lambda f: f.name)
    return {f.name[:-3]: parse(f.name[:-3], f.read_text(encoding="utf-8")) for f in files}


def _line_number(name: str, value: object) -> int | None:
    """A line number as an int: JSON may send 3 as 3.0, which the schema counts as an integer."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(f"{name} must be a whole number, got {value!r}")


class Library:
    """The articles with a BM25 index over their sections."""

    def __init__(self, articles: dict[str, Article] | None = None) -> None:
        self.articles = articles if articles is not None else load_corpus()
        # check_same_thread=False: tools run in worker threads, and this index is read-only after building
        self._index = sqlite3.connect(":memory:", check_same_thread=False)
        self._index.execute("CREATE VIRTUAL TABLE passages USING fts5(doc_id UNINDEXED, section, body, tokenize='porter')")
        self._index.executemany(
            "INSERT INTO passages VALUES (?, ?, ?)",
            [(a.id, heading, body) for a in self.articles.values() for heading, body in a.sections.items()],
        )

    def __repr__(self) -> str:
        return f"Library({len(self.articles)} articles: {', '.join(self.articles)})"

    def search(self, query: str, limit: int = 3) -> list[tuple[str, str, str]]:
        """The best `limit` sections for `query` as (doc_id, section, snippet), best first.

        BM25 over each section, counting a match in the heading three times as much as one in the body.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        words = list(dict.fromkeys(re.findall(r"\w+", query.lower())))[:MAX_QUERY_WORDS]  # each word once
        if not words:
            raise ValueError("the query has no words to search for")
        match = " OR ".join(f'"{w}"' for w in words)  # quoted, so no word is read as FTS5 syntax
        rows = self._index.execute(
            "SELECT doc_id, section, snippet(passages, 2, '', '', ' … ', 16) FROM passages "
            "WHERE passages MATCH ? ORDER BY bm25(passages, 0, 3.0, 1.0), doc_id, section LIMIT ?",
            (match, limit),
        ).fetchall()
        return [(doc_id, section, " ".join(snippet.split())) for doc_id, section, snippet in rows]

    def read(
        self, doc_id: str, section: str | None = None, start_line: int | None = None, end_line: int | None = None
    ) -> str:
        """A whole article, one of its sections, or lines start_line to end_line (1-based, inclusive)."""
        article = self.articles.get(doc_id)
        if article is None:
            raise ValueError(f"there is no article {doc_id!r}; the articles are: {', '.join(self.articles)}")
        if section is not None and (start_line is not None or end_line is not None):
            raise ValueError("give either a section or a line range, not both")
        if section is not None:
            return article.sections[self._find_section(article, section)]
        if start_line is None and end_line is None:
            return article.text
        start_line, end_line = _line_number("start_line", start_line), _line_number("end_line", end_line)
        lines = article.lines
        start = 1 if start_line is None else start_line
        end = len(lines) if end_line is None else end_line
        if not 1 <= start <= end <= len(lines):
            raise ValueError(
                f"lines {start} to {end} are not a range in {doc_id!r}, which has lines 1 to {len(lines)}"
            )
        return "\n".join(lines[start - 1 : end])

    @staticmethod
    def _find_section(article: Article, wanted: str) -> str:
        """The heading that `wanted` names: exactly, or as the only heading containing it."""
        headings = list(article.sections)
        exact = [h for h in headings if h.lower() == wanted.strip().lower()]
        partial = [h for h in headings if wanted.strip().lower() in h.lower()]
        found = exact or partial
        if len(found) == 1:
            return found[0]
        listing = "; ".join(repr(h) for h in (found if found else headings))
        problem = "matches several sections of" if found else "is not a section of"
        raise ValueError(f"{wanted!r} {problem} {article.id!r}; its sections are: {listing}")

    def tools(self) -> list[Tool]:
        """`search` and `read` as tools for an agent."""
        library = self

        @tool
        def search(query: str) -> str:
            """Search the library. Returns the best sections: article id, section, snippet.

            Args:
                query: words to look for.
            """
            hits = library.search(query)
            if not hits:
                return f"nothing in the library matches {query[:100]!r}"
            return "\n".join(f'{i}. {doc} § "{section}": {snippet}' for i, (doc, section, snippet) in enumerate(hits, 1))

        @tool
        def read(doc_id: str, section: str | None = None, start_line: int | None = None, end_line: int | None = None) -> str:
            """Read a whole article, one section of it, or lines start_line to end_line.

            Args:
                doc_id: the article id, e.g. 'kl-divergence'.
                section: a section heading.
                start_line: first line (from 1).
                end_line: last line.
            """
            return library.read(doc_id, section, start_line, end_line)

        return [search, read]

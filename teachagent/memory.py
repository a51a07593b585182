"""Memory: the plan, and long-term notes on SQLite (introduced in notebooks/04_memory.ipynb).

What lesson 4 calls memory is four places text can live, none of them inside the model:

- the **plan**: checklist lines in the model's own replies, read back on later calls
  and checked by no one (plan.py reads and writes them);
- **working memory**: the context c_k of one session (one run, from c_1 until it stops),
  gone when the run ends and bounded by the model's window (and by
  `Agent(max_context_tokens=...)` if you set one);
- **long-term memory**: this module, a SQLite file that is still there next session.
  A model reaches it only by calling `memory_tools`, unless our code pastes notes into
  c_1 (`MemoryStore.as_context`);
- a **sub-agent**: a second agent behind a tool (`Agent.as_tool`), whose session the
  caller never sees; the tool result is its answer.
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base.errors import A_DAY, CourseError, check_number, shown_value
from .base.sqlite import OwnedFile
from .tools import Tool, tool


class MemoryStoreError(CourseError, RuntimeError):
    """The memory file cannot be used (corrupt, not a database, someone else's, or locked); it was left as it was."""


APPLICATION_ID = int.from_bytes(b"tAmN", "big")  # written into the file's header: "teachagent memory notes"
TABLE = ("notes", ["id", "text", "created"])
SCHEMA = [
    """CREATE TABLE IF NOT EXISTS notes (
        id INTEGER PRIMARY KEY,
        text TEXT NOT NULL,
        created TEXT NOT NULL DEFAULT (datetime('now'))
    )""",
    "CREATE INDEX IF NOT EXISTS notes_by_text ON notes (text)",  # a save looks for the same text first
]
MAX_SEARCH_WORDS = 20  # every word is one LIKE test; thousands would hit SQLite's limits, and find nothing
MAX_QUERY_CHARS = 1000


@dataclass
class Note:
    id: int
    text: str

    def __str__(self) -> str:
        return f"[{self.id}] {self.text}"


class MemoryStore:
    """Notes kept in a SQLite file that outlives any session.

    Every operation opens its own connection and its own transaction: tools run in their
    own threads, several processes may share the file, and a failed write leaves nothing
    half-done. Only a file this class made (or an empty one) is used: one that is not a
    SQLite database, is damaged, or holds another program's tables is refused and left
    untouched. Saving the same text twice keeps one note, so a model that retries a save
    that timed out does not leave two.
    """

    def __init__(self, path: str | Path, timeout: float = 5.0) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise MemoryStoreError(f"a memory file's path is text or a Path, such as Path('notes.sqlite'); got "
                                   f"{shown_value(path)}")
        self.path = Path(str.__str__(path) if isinstance(path, str) else path)  # a str subclass: the text it holds
        # seconds to wait for another writer before giving up
        self.timeout = check_number("MemoryStore timeout", timeout, at_least=0, at_most=A_DAY, unit="seconds")
        self._file = OwnedFile(self.path, APPLICATION_ID, TABLE, SCHEMA, self.timeout, MemoryStoreError,
                               what="memory file", holds="the notes")
        self._file.claim()  # refuses a damaged file or another program's, leaving it as it was

    def __repr__(self) -> str:
        return f"MemoryStore({str(self.path)!r})"

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._file.transaction(lambda db: db.execute(sql, params).fetchall())

    def save(self, text: str) -> Note:
        """Keep `text` as a note and return it; text saved before gives back the note it made then."""
        text = _checked_text(text, "a note").strip()
        if not text:
            raise ValueError("a note needs some text")

        def save_once(db: sqlite3.Connection) -> Note:
            found = db.execute("SELECT id, text FROM notes WHERE text = ? ORDER BY id LIMIT 1", (text,)).fetchone()
            return Note(*(found or db.execute("INSERT INTO notes (text) VALUES (?) RETURNING id, text", (text,)).fetchone()))

        return self._file.transaction(save_once, write=True)

    def search(self, query: str, limit: int = 5) -> list[Note]:
        """Notes that contain every word of `query`, newest first.

        Matching ignores the case of ASCII letters only (SQLite's LIKE): 'École' does not find 'école'.
        Every character of the query is matched literally (%, _, quotes and brackets too).
        """
        check_number("limit", limit, whole=True, at_least=1, at_most=1000)
        words = _checked_text(query, "a search").split()
        if not words:
            raise ValueError("search needs at least one word")
        if len(words) > MAX_SEARCH_WORDS or len(query) > MAX_QUERY_CHARS:
            raise ValueError(
                f"a search takes at most {MAX_SEARCH_WORDS} words and {MAX_QUERY_CHARS:,} characters, got "
                f"{len(words):,} words and {len(query):,} characters; search for the few words that matter most"
            )
        where = " AND ".join("text LIKE ? ESCAPE '\\'" for _ in words)
        patterns = tuple("%" + re.sub(r"([%_\\])", r"\\\1", w) + "%" for w in words)
        rows = self._rows(f"SELECT id, text FROM notes WHERE {where} ORDER BY id DESC LIMIT ?", (*patterns, limit))
        return [Note(*row) for row in rows]

    def all(self) -> list[Note]:
        """Every note, oldest first."""
        return [Note(*row) for row in self._rows("SELECT id, text FROM notes ORDER BY id")]

    def as_context(self, limit: int = 20) -> str:
        """The newest notes as text for a system prompt: long-term memory put into c_1 by our code."""
        check_number("limit", limit, whole=True, at_least=0, at_most=10_000)
        rows = self._rows("SELECT id, text FROM notes ORDER BY id DESC LIMIT ?", (limit,))
        notes = [Note(*row) for row in reversed(rows)]
        if not notes:
            return "Notes from earlier sessions: none yet."
        return "Notes from earlier sessions:\n" + "\n".join(f"- {n.text}" for n in notes)


def _checked_text(text: str, what: str) -> str:
    """`text` if SQLite can store and search it: a str of valid Unicode (no lone surrogate halves), no NUL."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be text (a str), got {type(text).__name__}")
    if "\0" in text:  # SQLite's LIKE stops reading at a NUL, so the rest could never be found
        raise ValueError(f"{what} holds a NUL character ('\\x00' at position {text.index(chr(0)):,}); write it without")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{what} holds a character that is not valid Unicode text ({text[error.start]!r} at position "
            f"{error.start:,}, half of a surrogate pair); write it without that character"
        ) from None
    return text


def memory_tools(store: MemoryStore) -> list[Tool]:
    """Tools that let an agent save, search and list notes in `store`."""

    @tool
    def save_note(text: str) -> str:
        """Save a note to long-term memory, where later sessions can find it.

        Args:
            text: the note, written so that it makes sense without this conversation.
        """
        note = store.save(text)
        return f"saved as note {note.id}"

    @tool
    def search_notes(query: str) -> str:
        """Search long-term memory for notes containing every word of the query.

        Args:
            query: one or more words to look for.
        """
        found = store.search(query)
        return "\n".join(map(str, found)) if found else f"no notes contain all of: {query}"

    @tool
    def list_notes() -> str:
        """List every note in long-term memory, oldest first."""
        notes = store.all()
        return "\n".join(map(str, notes)) if notes else "long-term memory is empty"

    return [save_note, search_notes, list_notes]

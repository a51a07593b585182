"""Memory: the plan, and long-term notes on SQLite (introduced in notebooks/04_memory.ipynb).

Four parts of a run are called memory, and none of them is inside the model:

- the **plan** is text: a numbered list the agent writes as one of its steps and rewrites
  as it goes, ticking off what is done. Nothing enforces it; the model reads it like any
  other part of the context. plan.py reads and writes it.
- **working memory** is the context c_k of one session. It ends with the session and is
  bounded by what the model can read (see `Agent(max_context_tokens=...)`).
- **long-term memory** is data kept outside the model and the context, here a SQLite
  file. The agent reaches it only through tools (`memory_tools`), or when our code puts
  some of it into c_1 (`MemoryStore.as_context`).
- a **sub-agent** is another run started as a tool (`Agent.as_tool`): only its answer
  enters the caller's context.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .base.errors import CourseError, check_number
from .tools import Tool, tool

T = TypeVar("T")


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
    f"PRAGMA application_id = {APPLICATION_ID}",
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
        self.path = Path(path)
        # seconds to wait for another writer before giving up
        self.timeout = check_number("MemoryStore timeout", timeout, at_least=0, at_most=24 * 3600, unit="seconds")
        self._transaction(self._open, write=True)

    def __repr__(self) -> str:
        return f"MemoryStore({str(self.path)!r})"

    def _open(self, db: sqlite3.Connection) -> None:
        """Check that the file is an undamaged notes file of ours, or empty; then make sure it has our table."""
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]  # reads every page, writes none
        if problems != ["ok"]:
            raise MemoryStoreError(
                f"cannot use the memory file {str(self.path)!r}: it is damaged ({problems[0]}). "
                "It was left as it was; choose another file, or move this one away."
            )
        (app_id,) = db.execute("PRAGMA application_id").fetchone()
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        name, columns = TABLE
        ours = tables == {name} and [row[1] for row in db.execute(f"PRAGMA table_info({name})")] == columns
        # id 0 is a new file's, and that of memory files made before the id was written
        if app_id not in (0, APPLICATION_ID) or not (ours or not tables):
            holds = f"tables {', '.join(sorted(tables))}" if tables else "no tables"
            raise MemoryStoreError(
                f"the file {str(self.path)!r} is a SQLite database of something else ({holds}; application id "
                f"{app_id}), not a memory file. It was left as it was; choose another file for the notes."
            )
        for statement in SCHEMA:
            db.execute(statement)

    def _transaction(self, work: Callable[[sqlite3.Connection], T], write: bool = False) -> T:
        """`work(db)` inside one transaction, all of it or none of it; SQLite's errors as MemoryStoreError."""
        try:
            with closing(sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)) as db:
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")  # IMMEDIATE: no other writer in between
                try:
                    result = work(db)
                except BaseException:
                    db.rollback()
                    raise
                db.execute("COMMIT")
                return result
        except sqlite3.OperationalError as error:
            if "locked" not in str(error):
                raise MemoryStoreError(f"cannot use the memory file {str(self.path)!r}: {error}") from None
            raise MemoryStoreError(
                f"the memory file {str(self.path)!r} is locked: another connection held it for more than "
                f"{self.timeout:g} s. Nothing was written; try again, or give MemoryStore a longer timeout."
            ) from None
        except sqlite3.DatabaseError as error:
            raise MemoryStoreError(
                f"cannot use the memory file {str(self.path)!r}: {error}. It was left as it was; "
                "choose another file, or move this one away if it is damaged."
            ) from None

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self._transaction(lambda db: db.execute(sql, params).fetchall())

    def save(self, text: str) -> Note:
        """Keep `text` as a note and return it; text saved before gives back the note it made then."""
        text = _checked_text(text, "a note").strip()
        if not text:
            raise ValueError("a note needs some text")

        def save_once(db: sqlite3.Connection) -> Note:
            found = db.execute("SELECT id, text FROM notes WHERE text = ? ORDER BY id LIMIT 1", (text,)).fetchone()
            return Note(*(found or db.execute("INSERT INTO notes (text) VALUES (?) RETURNING id, text", (text,)).fetchone()))

        return self._transaction(save_once, write=True)

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

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
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from .tools import Tool, tool


class MemoryStoreError(RuntimeError):
    """The memory file cannot be used (corrupt, not a database, or locked); it was left as it was."""


SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL,
    created TEXT NOT NULL DEFAULT (datetime('now'))
)
"""


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
    half-done. A file that is not a SQLite database is refused and left untouched.
    """

    def __init__(self, path: str | Path, timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.timeout = timeout  # seconds to wait for another writer before giving up
        problems = [row[0] for row in self._execute("PRAGMA quick_check")]  # reads every page, writes none
        if problems != ["ok"]:
            raise MemoryStoreError(
                f"cannot use the memory file {str(self.path)!r}: it is damaged ({problems[0]}). "
                "It was left as it was; choose another file, or move this one away."
            )
        self._execute(SCHEMA)

    def __repr__(self) -> str:
        return f"MemoryStore({str(self.path)!r})"

    def _execute(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            with closing(sqlite3.connect(self.path, timeout=self.timeout)) as db, db:
                return db.execute(sql, params).fetchall()
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

    def save(self, text: str) -> Note:
        """Keep `text` as a new note and return it."""
        text = text.strip()
        if not text:
            raise ValueError("a note needs some text")
        (row,) = self._execute("INSERT INTO notes (text) VALUES (?) RETURNING id, text", (text,))
        return Note(*row)

    def search(self, query: str, limit: int = 5) -> list[Note]:
        """Notes that contain every word of `query`, newest first.

        Matching ignores the case of ASCII letters only (SQLite's LIKE): 'École' does not find 'école'.
        """
        words = query.split()
        if not words:
            raise ValueError("search needs at least one word")
        where = " AND ".join("text LIKE ? ESCAPE '\\'" for _ in words)
        patterns = tuple("%" + re.sub(r"([%_\\])", r"\\\1", w) + "%" for w in words)
        rows = self._execute(f"SELECT id, text FROM notes WHERE {where} ORDER BY id DESC LIMIT ?", (*patterns, limit))
        return [Note(*row) for row in rows]

    def all(self) -> list[Note]:
        """Every note, oldest first."""
        return [Note(*row) for row in self._execute("SELECT id, text FROM notes ORDER BY id")]

    def as_context(self, limit: int = 20) -> str:
        """The newest notes as text for a system prompt: long-term memory put into c_1 by our code."""
        rows = self._execute("SELECT id, text FROM notes ORDER BY id DESC LIMIT ?", (max(limit, 0),))
        notes = [Note(*row) for row in reversed(rows)]
        if not notes:
            return "Notes from earlier sessions: none yet."
        return "Notes from earlier sessions:\n" + "\n".join(f"- {n.text}" for n in notes)


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

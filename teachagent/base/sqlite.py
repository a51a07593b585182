"""A SQLite file that is ours: what long-term memory (notes in notebooks/04_memory.ipynb) stands on.

`OwnedFile` opens a SQLite file only when it is undamaged and ours (our application id
in its header and our one table) or empty, and refuses anything else, leaving it as it
was: a learner who points the notes at the wrong file loses nothing. Every piece of
work runs in its own connection and its own transaction, all of it or none of it, and
SQLite's errors become one-line course errors of the caller's kind.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class OwnedFile:
    """A SQLite file at `path` that holds only `table` (name, columns) and carries `application_id`.

    `what` names the file in messages ("memory file"), `holds` what it is for ("the notes"),
    and `error` is the exception class every refusal is raised as.
    """

    path: Path
    application_id: int
    table: tuple[str, list[str]]
    schema: list[str]  # statements that make the table in a new file; run again on every claim
    timeout: float  # seconds to wait for another writer before giving up
    error: type[Exception]
    what: str
    holds: str

    def claim(self) -> None:
        """Check that the file is ours and undamaged, or empty; then make sure it has our table and id."""
        self.transaction(self._claim, write=True)

    def _claim(self, db: sqlite3.Connection) -> None:
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]  # reads every page, writes none
        if problems != ["ok"]:
            raise self.error(
                f"cannot use the {self.what} {str(self.path)!r}: it is damaged ({problems[0]}). "
                "It was left as it was; choose another file, or move this one away."
            )
        (app_id,) = db.execute("PRAGMA application_id").fetchone()
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        name, columns = self.table
        ours = tables == {name} and [row[1] for row in db.execute(f"PRAGMA table_info({name})")] == columns
        # id 0 is a new file's, and that of files made before the id was written
        if app_id not in (0, self.application_id) or not (ours or not tables):
            found = f"tables {', '.join(sorted(tables))}" if tables else "no tables"
            raise self.error(
                f"the file {str(self.path)!r} is a SQLite database of something else ({found}; application id "
                f"{app_id}), not a {self.what}. It was left as it was; choose another file for {self.holds}."
            )
        for statement in [*self.schema, f"PRAGMA application_id = {self.application_id}"]:
            db.execute(statement)

    def transaction(self, work: Callable[[sqlite3.Connection], T], write: bool = False) -> T:
        """`work(db)` inside one transaction, all of it or none of it; SQLite's errors as `self.error`."""
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
                raise self.error(f"cannot use the {self.what} {str(self.path)!r}: {error}") from None
            raise self.error(
                f"the {self.what} {str(self.path)!r} is locked: another connection held it for more than "
                f"{self.timeout:g} s. Nothing was written; try again, or pass a longer timeout."
            ) from None
        except sqlite3.DatabaseError as error:
            raise self.error(
                f"cannot use the {self.what} {str(self.path)!r}: {error}. It was left as it was; "
                "choose another file, or move this one away if it is damaged."
            ) from None

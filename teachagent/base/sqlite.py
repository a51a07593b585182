"""A SQLite file that is ours: what long-term memory (notes in notebooks/04_memory.ipynb) stands on.

`OwnedFile` opens a SQLite file only when it is undamaged and ours (our application id
in its header and our one table) or empty, and refuses anything else, leaving it as it
was: a learner who points the notes at the wrong file loses nothing. Every piece of
work runs in its own connection and its own transaction, all of it or none of it, and
SQLite's errors become one-line course errors of the caller's kind. Each transaction
checks again, inside itself, that the file is still ours: another program's database
moved in under the same path after the claim is refused, and nothing is written to it.
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

    def __post_init__(self) -> None:
        if "\x00" in str(self.path):  # SQLite, like the system, takes no path with a NUL in it
            raise self.error(f"{str(self.path)!r} is not a path a file can have (it holds a NUL character); "
                             f"choose another file for {self.holds}")

    def claim(self) -> None:
        """Check that the file is ours and undamaged, or empty; then make sure it has our table and id."""
        self.transaction(self._claim, write=True, claimed=False)

    def _claim(self, db: sqlite3.Connection) -> None:
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]  # reads every page, writes none
        if problems != ["ok"]:
            raise self.error(
                f"cannot use the {self.what} {str(self.path)!r}: it is damaged ({problems[0]}). "
                "It was left as it was; choose another file, or move this one away."
            )
        self._ours_or_empty(db)

    def _ours_or_empty(self, db: sqlite3.Connection) -> None:
        """Refuse a file that is not ours (another id, other tables, a view or trigger) nor empty; make an empty one ours."""
        (app_id,) = db.execute("PRAGMA application_id").fetchone()
        (version,) = db.execute("PRAGMA user_version").fetchone()
        objects = db.execute("SELECT type, name FROM sqlite_master").fetchall()
        tables = {name for kind, name in objects if kind == "table"}
        name, columns = self.table
        ours = tables == {name} and [row[1] for row in db.execute(f"PRAGMA table_info({name})")] == columns
        # Empty: nothing at all in it, not even a view, a trigger or a user_version another program set.
        # Id 0 is a new file's, and that of files made before the id was written.
        empty = not objects and version == 0
        if app_id not in (0, self.application_id) or not (ours or empty):
            kinds = sorted({kind for kind, _ in objects if kind != "index"})
            found = f"{', '.join(kinds)} {', '.join(sorted(n for k, n in objects if k != 'index'))}" if objects else "no tables"
            raise self.error(
                f"the file {str(self.path)!r} is a SQLite database of something else ({found}; application id "
                f"{app_id}, user_version {version}), not a {self.what}. It was left as it was; choose another file "
                f"for {self.holds}."
            )
        for statement in [*self.schema, f"PRAGMA application_id = {self.application_id}"]:
            db.execute(statement)

    def _refuse_views_and_triggers(self, db: sqlite3.Connection) -> None:
        """Our schema makes no view and no trigger, and a trigger would run on our writes: a file with one is not ours."""
        if db.execute("SELECT 1 FROM sqlite_master WHERE type IN ('view', 'trigger') LIMIT 1").fetchone():
            raise self.error(
                f"the file {str(self.path)!r} is a SQLite database of something else (it holds a trigger or a view, "
                f"which no {self.what} has), not a {self.what}. Nothing was written and it was left as it was; "
                f"choose another file for {self.holds}."
            )

    def _still_ours(self, db: sqlite3.Connection) -> None:
        """The file claimed at the start is still ours (or was replaced by an empty one, made ours again): checked
        in every transaction, as cheaply as reading the header and the list of tables."""
        (app_id,) = db.execute("PRAGMA application_id").fetchone()
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app_id != self.application_id or tables != {self.table[0]}:
            self._ours_or_empty(db)  # another program's file is refused here, with what it holds

    def transaction(self, work: Callable[[sqlite3.Connection], T], write: bool = False, claimed: bool = True) -> T:
        """`work(db)` inside one transaction, all of it or none of it; SQLite's errors as `self.error`.

        Once `claim` has run (`claimed`), the file is checked to be ours still, in the same transaction as the work.
        """
        try:
            with closing(sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)) as db:
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")  # IMMEDIATE: no other writer in between
                try:
                    # checked in the transaction that does the work, so nothing can be swapped or planted in between
                    self._refuse_views_and_triggers(db)
                    if claimed:
                        self._still_ours(db)
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

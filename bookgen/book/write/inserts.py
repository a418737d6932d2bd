"""Rows into a book's ``positions`` table: many a statement, one transaction a write.

Bulk writes go through the driver's own SQL: plain tuples in, no ORM object
or dict per row on the hot path.  psycopg 3 writes rows by binary COPY
(``pgcopy``), other drivers by INSERT of many rows a statement.  A write that
meets another process's lock waits it out (``retry_locked``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import numpy as np
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from solver.bitboard import Board

from ..format.database import key_offset
from ..format.errors import BookError, cursor_error
from ..format.names import COLUMNS, SEARCH_SECONDS
from ..format.rows import Rows
from . import pgcopy
from .meta import write_meta

# Rows per INSERT statement: each statement executed costs the driver about
# as much as the rows it inserts, so many rows share one (100 rows: 2.2 times
# the rows per second of one a statement).  At most 6 values a row are bound,
# and one blob: 601 parameters, under the 999 that SQLite before 3.32 allows.
ROWS_PER_STATEMENT = 100
BIND_CHUNK = 50_000  # rows bound at a time within one write's transaction
# A stored key's row replaced whole: its checksum covers every column.
_REPLACE = "DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "key")


class RowInserter:
    """Writes rows into the book at ``engine`` (named ``db`` in errors) of ``board``."""

    def __init__(self, engine: Engine, db: str, board: Board):
        self.engine, self.db = engine, db
        self._offset = key_offset(board)
        # A server's writes are waited out behind the build's loop (``writer``), SQLite's
        # are the driver's own CPU; psycopg 3 writes rows by COPY (keys past 64 bits too:
        # 16-byte bytea fields), others by INSERT.
        self.writes_behind = engine.dialect.name != "sqlite"
        self.copies = engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg"

    def sql(self, text: str) -> str:
        """``text`` with ``?`` placeholders, in this driver's parameter style (where ``%``
        starts a placeholder, a literal one, as in a ``LIKE`` pattern, is doubled)."""
        if self.engine.dialect.paramstyle == "qmark":
            return text
        return text.replace("%", "%%").replace("?", "%s")

    def write(self, rows: Rows, *, replace: bool, search_seconds: float = 0.0) -> int:
        """Insert ``rows`` in one transaction, replacing stored keys or leaving them alone;
        ``search_seconds`` is added to the book's running total in the same transaction."""
        if not len(rows):
            return 0
        if self._offset:  # as SQL stores them (``key_offset``)
            rows = rows.with_keys((rows.keys ^ np.uint64(self._offset)).view(np.int64))

        def add_seconds(meta: Mapping[str, str]) -> dict[str, str]:
            return {SEARCH_SECONDS: repr(float(meta.get(SEARCH_SECONDS, 0)) + search_seconds)}

        return self.retry_locked(
            lambda: self._execute(rows, replace, add_seconds if search_seconds else None)
        )

    def _insert_sql(self, rows: Rows, count: int, replace: bool) -> str:
        """An insert of ``count`` rows; a stored key is replaced or left alone."""
        return self.sql(
            f"{rows.insert(count)} ON CONFLICT (key) {_REPLACE if replace else 'DO NOTHING'}"
        )

    def _execute(
        self,
        rows: Rows,
        replace: bool,
        meta: Callable[[Mapping[str, str]], dict[str, str]] | None = None,
    ) -> int:
        # One transaction for all the rows, so an interrupted write leaves
        # none of them; bound a slice at a time, so memory stays small.
        # Through SQLAlchemy, not the driver's cursor: its cost is per call (a
        # few a write), and it turns the driver's errors into the ones that
        # ``retry_locked`` and the callers know (a locked or full disk); only
        # COPY needs psycopg's cursor, and ``_copy`` names its errors itself.
        with self.engine.begin() as conn:
            if self.copies:
                self._copy(conn, rows, replace)
            else:
                for start in range(0, len(rows), BIND_CHUNK):
                    for count, params in rows[start : start + BIND_CHUNK].statements(
                        ROWS_PER_STATEMENT
                    ):
                        conn.exec_driver_sql(self._insert_sql(rows, count, replace), params)
            if meta is not None:
                write_meta(conn, self.db, meta)
        return len(rows)

    def _copy(self, conn, rows: Rows, replace: bool) -> None:
        """PostgreSQL's way (``pgcopy``): binary ``COPY`` straight into ``positions`` in a
        savepoint; where a key is already stored that copy fails whole, and the rows go
        through the staging table and ``ON CONFLICT`` instead."""
        dbapi = conn.dialect.loaded_dbapi
        try:
            try:
                with conn.begin_nested():
                    self._copy_into(conn, "positions", rows)
            except dbapi.errors.UniqueViolation:
                conn.exec_driver_sql(pgcopy.staging_sql())
                self._copy_into(conn, pgcopy.STAGING, rows)
                conn.exec_driver_sql(pgcopy.move_sql(_REPLACE if replace else "DO NOTHING"))
        except dbapi.Error as error:  # the driver's own, from its cursor: named here
            named = cursor_error(self.db, conn, error, "COPY")
            raise named or BookError(f"cannot write to {self.db!r}: {error}") from None

    @staticmethod
    def _copy_into(conn, table: str, rows: Rows) -> None:
        with conn.connection.cursor() as cursor, cursor.copy(pgcopy.copy_sql(table)) as copy:
            for part in pgcopy.copy_stream(rows, BIND_CHUNK):
                copy.write(part)

    def retry_locked(self, write, attempts: int = 10):
        """Wait out another process's lock (each try already waits LOCK_WAIT_SECONDS)."""
        for attempt in range(attempts):
            if attempt:
                time.sleep(1.0)
            try:
                return write()
            except OperationalError as error:
                if "locked" not in str(error) and "busy" not in str(error):
                    raise BookError(f"cannot write to {self.db!r}: {error.orig}") from None
        raise BookError(
            f"{self.db!r} stayed locked by another process; "
            "every batch written so far is kept, rerun to resume"
        )

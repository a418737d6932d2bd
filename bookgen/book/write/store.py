"""The writer's book: created if absent, checked if present, written one transaction at a time.

The build's driver is the only writer while it runs (``pack`` and ``upgrade``
wait for the book's write lock, ``lock``); every write is one transaction, so
a crash never leaves half a batch.  Rows go in through ``inserts``; a
complete ply is sealed into one segment (``seal``), and every write of meta
rewrites its checksum in the same transaction (``meta``).  What the book
holds is read back checked (``format.stored``).
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import delete, insert
from sqlalchemy.exc import OperationalError

from solver.bitboard import STANDARD, Board

from ..format.database import existing_meta, make_engine, sqlite_path
from ..format.errors import BookError, CorruptBookError, IncompatibleBookError, damaged_ply
from ..format.location import book_location, check_lasting
from ..format.names import FORMAT, SCHEMA_VERSION
from ..format.rows import Rows
from ..format.schema import SegmentRow, positions_of, tables_of
from ..format.segment import Segment, pack
from ..format.stored import StoredBook
from .inserts import RowInserter
from .meta import write_meta
from .sealed import write_sealed
from .sqlite_file import fold_wal, remove_book_files

if TYPE_CHECKING:
    from solver.parent_bounds import Parents


class BookStore(StoredBook):
    """The writer's view of a book: created if absent, checked if present.

    ``readonly`` opens an existing book to read only (``build --dry-run``);
    ``exists`` then says whether there was one.  ``board`` is the board of the
    positions the caller writes (7x6 by default): an existing book of another is
    refused, and a new book records it.
    """

    def __init__(
        self,
        db: str,
        root_moves: str,
        root_key: int,
        *,
        readonly: bool = False,
        board: Board = STANDARD,
    ):
        self.db = db = book_location(db) if readonly else check_lasting(book_location(db))
        path = sqlite_path(db)
        meta = existing_meta(db, board)
        if meta is not None and int(meta["root_key"]) != root_key:
            if meta["root"] == root_moves:  # the same moves, another key: not another root
                raise CorruptBookError(
                    f"{db!r} is damaged: its meta's root key "
                    f"{meta['root_key']!r} is not the key of its root "
                    f"{root_moves!r} ({root_key})"
                )
            raise IncompatibleBookError(
                f"{db!r} is a book from root {meta['root']!r}, not {root_moves!r}: "
                "use another --db for another root"
            )
        self.exists = meta is not None
        self.created = meta is None and not readonly  # this store made the book (or its tables)
        self.readonly = readonly
        super().__init__(make_engine(db, readonly=readonly and path is not None), db, board)
        self.wrote = False  # whether this store has committed entries (rows or segments)
        self._rows = RowInserter(self.engine, db, board)
        self.writes_behind = self._rows.writes_behind  # (``writer`` waits for a server's)
        self.copies = self._rows.copies
        if meta is None and not readonly:
            new_file = path is not None and not os.path.exists(path)
            try:
                self._create(root_moves, root_key)
            except BaseException:
                # Nothing half made is left behind: a rerun finds no book, and makes it.
                self.engine.dispose()
                if new_file:
                    remove_book_files(db)
                raise

    def _create(self, root_moves: str, root_key: int) -> None:
        """The tables and the meta, in one transaction: all of the book, or nothing."""
        try:
            with self.engine.begin() as conn:
                tables_of(self.board).create_all(conn)
                write_meta(
                    conn,
                    self.db,
                    {
                        "format": FORMAT,
                        "schema_version": str(SCHEMA_VERSION),
                        "width": str(self.board.width),
                        "height": str(self.board.height),
                        "root": root_moves,
                        "root_key": str(root_key),
                        "ply": str(len(root_moves)),
                        "complete_plies": "[]",
                    },
                    first=True,
                )
        except OperationalError as error:
            raise BookError(f"cannot write a book at {self.db!r}: {error.orig}") from None

    # -- metadata ----------------------------------------------------------
    def set_meta(self, **values: str) -> None:
        with self.engine.begin() as conn:
            write_meta(conn, self.db, values)

    def mark_complete(self, ply: int) -> None:
        plies = sorted(set(self.complete_plies()) | {ply})
        self.set_meta(complete_plies=json.dumps(plies))

    # -- entries -----------------------------------------------------------
    def entries_above(self, ply: int) -> Parents | None:
        """The entries at ``ply - 1``, if the book holds any: they bound ``ply``'s scores
        (past 64 bits too: ``solver.wide.parent_bounds``)."""
        from solver.parent_bounds import Parents  # numba: only for a build

        keys, scores, best = self.entries_at(ply - 1)
        if not len(keys):
            return None
        # Without best moves the bounds are only lower bounds, never exact: still true.
        return Parents(
            keys, scores, np.zeros(len(keys), np.uint8) if best is None else best, self.board
        )

    # -- packing -----------------------------------------------------------
    def seal(self, ply: int, entries: Segment) -> None:
        """Make ``entries`` the whole of ``ply``, complete and in blocks, in one transaction:
        its rows and segments go.  The ply above, sealed with best moves, keeps only its
        scores: its best moves now follow from this ply's."""
        plies = sorted(set(self.complete_plies()) | {ply})
        above = self.segment_at(ply - 1) if ply - 1 in plies else None
        above = None if above is None or above.best is None else above._replace(best=None)

        positions = positions_of(self.board)

        def write():
            with self.engine.begin() as conn, self._sealing(ply):
                conn.execute(delete(positions).where(positions.c.ply == ply))
                conn.execute(delete(SegmentRow).where(SegmentRow.ply == ply))
                write_sealed(conn, ply, entries, self.board)
                if above is not None:
                    conn.execute(delete(positions).where(positions.c.ply == ply - 1))
                    conn.execute(delete(SegmentRow).where(SegmentRow.ply == ply - 1))
                    write_sealed(conn, ply - 1, above, self.board)
                write_meta(conn, self.db, {"complete_plies": json.dumps(plies)})

        self._rows.retry_locked(write)
        self.wrote = True
        self._segments.pop(ply, None)
        self._segments.pop(ply - 1, None)

    @contextmanager
    def _sealing(self, ply: int):
        """A ply the codec refuses (an entry that its position's stones contradict: a wrong
        book, ``format.implied``) is a ``CorruptBookError`` naming it, and nothing is written."""
        try:
            yield
        except ValueError as error:
            why = f"it cannot be sealed ({error}); 'c4book verify' finds such entries"
            raise damaged_ply(ply, why, self.db) from None

    def pack_rows(self, ply: int) -> int:
        """Pack the rows of ``ply``: the whole ply sealed if it is complete, else one more
        segment beside the ply's others (older segments stay byte for byte, so a book
        kept in git grows by the new part only).  The number of rows packed."""
        complete = self.complete_plies()
        if ply in complete:
            count = self.row_counts().get(ply, 0)
            # A ply in blocks already may still need sealing again: that drops the best
            # moves of the ply above, which it now gives; and blocks of an older codec
            # are sealed in this one.
            above = self.segment_at(ply - 1) if ply - 1 in complete else None
            if (
                count
                or not self.is_sealed(ply)
                or (above is not None and above.best is not None)
                or ply in self.in_old_codec()
            ):
                self.seal(ply, self.entries_at(ply))
            return count
        rows = self._row_entries(ply)
        if not len(rows.keys):
            return 0
        keys, blob = rows.keys, pack(rows)
        positions = positions_of(self.board)

        def write():
            with self.engine.begin() as conn:
                conn.execute(insert(SegmentRow).values(ply=ply, count=len(keys), data=blob))
                conn.execute(delete(positions).where(positions.c.ply == ply))

        self._rows.retry_locked(write)
        self.wrote = True
        self._segments.pop(ply, None)
        return len(keys)

    def insert_new(self, rows: Rows, search_seconds: float = 0.0) -> int:
        """Insert searched rows in one transaction; keys already stored are left alone.

        ``search_seconds`` is added, in the same transaction, to the book's
        running total of worker search time across runs.
        """
        return self._write(rows, replace=False, search_seconds=search_seconds)

    def _write(self, rows: Rows, *, replace: bool, search_seconds: float = 0.0) -> int:
        written = self._rows.write(rows, replace=replace, search_seconds=search_seconds)
        self.wrote = self.wrote or written > 0
        return written

    def upsert(self, rows: Rows) -> int:
        """Insert or replace rows in one transaction (for entries derived from children)."""
        return self._write(rows, replace=True)

    def close(self) -> None:
        """Fold the write-ahead log back into the file, so the book is one file."""
        if not self.readonly:
            fold_wal(self.engine)
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"BookStore({self.db!r}, readonly={self.readonly})"

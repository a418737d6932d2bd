"""Opening, checking and writing book databases.

A ``--db`` value is a SQLite file path or any SQLAlchemy URL.  Opening
checks, in order: the file exists, is SQLite, is not damaged, is a c4book
book, of this schema version and board size.  The build's driver is the only
writer while it runs (``pack`` and ``upgrade`` wait for the book's write lock,
``lock``); every write is one transaction, so a crash never leaves half a batch.

A ply's entries are rows while it is built and a packed segment once sealed
(``segment``); the reads here (``keys_at``, ``scores_at``, ``best_at``)
join the two, so the builder need not know which a ply is.  Every read of
rows checks them (``rows.read_rows``), and every write of meta rewrites its
checksum in the same transaction (``write_meta``): a damaged book raises
``CorruptBookError``, and is never answered from or sealed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

import numpy as np
from sqlalchemy import Engine, create_engine, delete, event, func, insert, select
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError

from solver.bitboard import STANDARD, Board
from solver.errors import BoardSizeError

from . import pgcopy
from .checksum import META_CHECKSUM, check_meta, meta_checksum
from .location import book_location, check_lasting
from .rows import Rows, read_rows
from .schema import (
    COLUMNS,
    FORMAT,
    SCHEMA_VERSION,
    UPGRADABLE_VERSIONS,
    Base,
    BookError,
    BookNotFoundError,
    CorruptBookError,
    Entry,
    IncompatibleBookError,
    Meta,
    NotABookError,
    SchemaMismatchError,
    SegmentRow,
    board_of_meta,
    corrupt_database,
    cursor_error,
    server_error,
)
from .segment import Segment, check_row, merge, pack, unpack

if TYPE_CHECKING:
    from solver.parent_bounds import Parents

SQLITE_HEADER = b"SQLite format 3\x00"
SEARCH_SECONDS = "search_core_seconds"  # meta: worker search time over every run
LOCK_WAIT_SECONDS = 30.0
FOLD_ATTEMPTS = 20  # tries, a quarter of a second apart, to leave WAL mode
# Rows per INSERT statement: each statement executed costs the driver about
# as much as the rows it inserts, so many rows share one (100 rows: 2.2 times
# the rows per second of one a statement).  At most 6 values a row are bound,
# and one blob: 601 parameters, under the 999 that SQLite before 3.32 allows.
ROWS_PER_STATEMENT = 100
BIND_CHUNK = 50_000  # rows bound at a time within one write's transaction
KEY_LIMIT = (1 << 64) - 1  # above every key of every board
# A stored key's row replaced whole: its checksum covers every column.
_REPLACE = "DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "key")


class BookSizeError(IncompatibleBookError, BoardSizeError):
    """A book made for another board than the one asked for."""


class BookReadError(BookError, OSError):
    """A book's file that the system refuses to read."""


def key_offset(board: Board) -> int:
    """What a key loses on its way into SQL, whose integers are signed 64-bit: nothing for
    keys of up to 63 bits, else 2**63, which keeps their order (8x7's keys reach 2**64)."""
    return 1 << 63 if board.key_bits > 63 else 0


def is_url(db: str) -> bool:
    return "://" in db


def sqlite_path(db: str) -> str | None:
    """The file behind ``db``, or ``None`` for a non-SQLite URL."""
    if not is_url(db):
        return db
    if db.startswith("sqlite:///"):
        return db[len("sqlite:///") :]
    return None


def check_sqlite_file(path: str, *, must_exist: bool) -> bool:
    """Whether ``path`` holds a SQLite database; raise if it holds anything else."""
    if not os.path.exists(path):
        if must_exist:
            raise BookNotFoundError(f"no book at {path!r}")
        return False
    if os.path.isdir(path):
        raise NotABookError(f"{path!r} is a directory, not a book")
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as error:  # unreadable: no permission, or a file like /proc/self/mem
        raise BookReadError(f"cannot read {path!r}: {error.strerror or error}") from None
    if not header:
        if must_exist:
            raise NotABookError(f"{path!r} is an empty file, not a book")
        return False
    if header != SQLITE_HEADER:
        raise NotABookError(f"{path!r} is not a SQLite file, so not a c4book book")
    return True


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the builder
    cursor.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint, never corrupt
    cursor.close()


def make_engine(db: str, *, readonly: bool = False) -> Engine:
    path = sqlite_path(db)
    if path is None:
        try:
            engine = create_engine(db)
        except (ArgumentError, NoSuchModuleError, ValueError) as error:  # (ValueError: a port)
            raise BookError(f"{db!r} is not a database URL c4book can open: {error}") from None
        except ImportError as error:  # a dialect whose driver is not installed
            raise BookError(
                f"{db!r} needs the database driver {error.name!r}, which is not installed"
            ) from None

        def named(context) -> None:
            """A server's refusal or absence (``server_error``) as one line naming the book,
            wherever c4book meets it."""
            error = server_error(
                db, engine, context.original_exception, statement=context.statement
            )
            if error is not None:
                raise error

        event.listen(engine, "handle_error", named)
        return engine
    if readonly:
        # Quoted: '#', '?' or '%' in a file name would otherwise end the path.
        uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
        engine = create_engine(
            "sqlite://",
            creator=lambda: sqlite3.connect(
                uri, uri=True, timeout=LOCK_WAIT_SECONDS, check_same_thread=False
            ),
        )
    else:
        engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": LOCK_WAIT_SECONDS})
        event.listen(engine, "connect", _sqlite_pragmas)

    def damaged(context) -> None:
        """SQLite's word for a damaged file, as one line naming the book."""
        corrupt = corrupt_database(db, context.original_exception)
        if corrupt is not None:
            raise corrupt

    event.listen(engine, "handle_error", damaged)
    return engine


def fold_wal(engine: Engine) -> None:
    """Fold a SQLite book's write-ahead log back into its file and leave WAL mode, so the
    book is one file that readers open without making any other.  A reader that holds
    the file (another process's query) is waited for a few seconds."""
    if engine.dialect.name != "sqlite":
        return
    engine.dispose()  # this engine's own idle connections hold the file too
    for attempt in range(FOLD_ATTEMPTS):
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                if conn.exec_driver_sql("PRAGMA journal_mode=DELETE").scalar() == "delete":
                    return
        except OperationalError:
            pass
        # A reader keeps WAL mode on; the checkpoint has still moved every committed
        # row into the main file.
        if attempt < FOLD_ATTEMPTS - 1:
            time.sleep(0.25)


def remove_book_files(db: str) -> None:
    """Remove a SQLite book and the files SQLite keeps beside it (none for a URL)."""
    path = sqlite_path(db)
    if path is not None:
        for name in (path, path + "-wal", path + "-shm", path + "-journal"):
            if os.path.exists(name):
                os.remove(name)


def free_bytes(engine: Engine) -> int:
    """The bytes of a SQLite book's pages that no row uses (0 on other databases)."""
    if engine.dialect.name != "sqlite":
        return 0
    with engine.connect() as conn:
        return (
            conn.exec_driver_sql("PRAGMA page_size").scalar_one()
            * conn.exec_driver_sql("PRAGMA freelist_count").scalar_one()
        )


def reclaim_space(engine: Engine) -> int:
    """Give a SQLite book's free pages back (VACUUM): rows dropped by a seal or a pack
    leave their pages in the file otherwise.  The bytes given back."""
    try:
        free = free_bytes(engine)
        if free:
            with engine.connect() as conn:
                conn.exec_driver_sql("VACUUM")
    except OperationalError:
        return 0  # a reader holds the file: the pages stay free, and nothing is lost
    return free


def read_meta(
    engine: Engine, db: str, *, any_version: bool = False, board: Board | None = None
) -> dict[str, str]:
    """The checked metadata of an existing book; raises a BookError if unusable.

    ``any_version`` skips the schema version check (for ``c4book upgrade``);
    ``board``, if given, is the board the book must be of.
    """
    try:
        conn = engine.connect()
    except DatabaseError as error:  # a file SQLite cannot open (a server's: ``make_engine``)
        raise BookError(f"cannot connect to {db!r}: {' '.join(str(error.orig).split())}") from None
    try:
        with conn:
            if engine.dialect.name == "sqlite":
                check = conn.exec_driver_sql("PRAGMA quick_check").scalar()
                if check != "ok":  # SQLite's report may take several lines: one here
                    raise CorruptBookError(
                        f"{db!r} is a damaged SQLite file: {' '.join(str(check).split())}"
                    )
            tables = set(engine.dialect.get_table_names(conn))
            if Meta.__tablename__ not in tables or Entry.__tablename__ not in tables:
                raise NotABookError(f"{db!r} is a database but not a c4book book (no book tables)")
            meta = dict(conn.execute(select(Meta.name, Meta.value)).all())
    except DatabaseError as error:
        if isinstance(error, OperationalError) and "locked" in str(error):
            raise BookError(f"{db!r} is locked by another process") from None
        raise CorruptBookError(
            f"{db!r} is damaged or not a database: {' '.join(str(error.orig).split())}"
        ) from None
    if META_CHECKSUM in meta:  # a damaged value is named before anything reads it
        check_meta(meta, db)
    if meta.get("format") != FORMAT:
        raise NotABookError(f"{db!r} is a database but not a c4book book")
    version = meta.get("schema_version")
    if version in {str(v) for v in UPGRADABLE_VERSIONS} and not any_version:
        raise SchemaMismatchError(
            f"{db!r} has book schema version {version}; this c4book reads version "
            f"{SCHEMA_VERSION}: convert it in place with 'c4book upgrade --db {db}'"
        )
    if version != str(SCHEMA_VERSION) and not any_version:
        raise SchemaMismatchError(
            f"{db!r} has book schema version {meta.get('schema_version')!r}; "
            f"this c4book reads version {SCHEMA_VERSION}"
        )
    if version == str(SCHEMA_VERSION):
        check_meta(meta, db)  # a book of this version without its checksum is damaged too
    found = board_of_meta(meta, db)
    if board is not None and found is not board:
        raise BookSizeError(
            f"{db!r} is a book of the {found} board, not {board}: "
            f"leave out --board, or give {found}"
        )
    _check_root(meta, db, found)
    _check_values(meta, db)
    return meta


def _check_values(meta: dict[str, str], db: str) -> None:
    """Every recorded number and list must read as one: what a reader takes from the meta."""

    def readable(name: str, read) -> bool:
        try:
            read(meta[name])
        except KeyError:
            return True  # older books may lack one; a checksum names a missing one
        except (TypeError, ValueError):
            return False
        return True

    def plies(text: str) -> None:
        value = json.loads(text)
        if type(value) is not list or not all(type(p) is int for p in value):
            raise ValueError(text)

    for name, read in (("ply", int), ("complete_plies", plies), (SEARCH_SECONDS, float)):
        if not readable(name, read):
            raise CorruptBookError(
                f"{db!r} is damaged: its meta {name!r} is "
                f"{meta.get(name)!r}, which c4book cannot read"
            )


def _check_root(meta: dict[str, str], db: str, board: Board) -> None:
    """The recorded root must be a position of the recorded board, with the recorded key:
    a board size or root changed by damage would make every key mean another position."""
    from solver import Position

    try:
        key = Position.from_moves(meta["root"], board).canonical_key
        same = key == int(meta["root_key"])
    except (KeyError, ValueError):
        same = False
    if not same:
        raise CorruptBookError(
            f"{db!r} is damaged: its meta's root {meta.get('root')!r} and root "
            f"key {meta.get('root_key')!r} do not agree on its {board} board"
        )


def _is_empty(engine: Engine) -> bool:
    with engine.connect() as conn:
        return not engine.dialect.get_table_names(conn)


class BookStore:
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
        self.board = board
        self._offset = key_offset(self.board)
        self.engine = make_engine(db, readonly=readonly and path is not None)
        self._segments: dict[int, Segment | None] = {}  # merged segments by ply, as read
        self.wrote = False  # whether this store has committed entries (rows or segments)
        # A server's writes are waited out behind the build's loop (``writer``), SQLite's
        # are the driver's own CPU; psycopg 3 writes rows by COPY (``pgcopy``), others by INSERT.
        self.writes_behind = self.engine.dialect.name != "sqlite"
        self.copies = (
            self.engine.dialect.name == "postgresql" and self.engine.dialect.driver == "psycopg"
        )
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
                Base.metadata.create_all(conn)
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
    def meta(self) -> dict[str, str]:
        """The book's metadata, checked against its checksum."""
        with self.engine.connect() as conn:
            meta = dict(conn.execute(select(Meta.name, Meta.value)).all())
        check_meta(meta, self.db)
        return meta

    def set_meta(self, **values: str) -> None:
        with self.engine.begin() as conn:
            write_meta(conn, self.db, values)

    def complete_plies(self) -> list[int]:
        return json.loads(self.meta().get("complete_plies", "[]"))

    def mark_complete(self, ply: int) -> None:
        plies = sorted(set(self.complete_plies()) | {ply})
        self.set_meta(complete_plies=json.dumps(plies))

    # -- entries -----------------------------------------------------------
    # Bulk reads and writes go through the driver's own SQL: plain tuples in,
    # numpy arrays out, no ORM object or dict per row on the hot path.
    def _sql(self, text: str) -> str:
        """``text`` with ``?`` placeholders, in this driver's parameter style (where ``%``
        starts a placeholder, a literal one, as in a ``LIKE`` pattern, is doubled)."""
        if self.engine.dialect.paramstyle == "qmark":
            return text
        return text.replace("%", "%%").replace("?", "%s")

    def _read_rows(self, where: str) -> tuple[np.ndarray, Segment]:
        """``rows.read_rows`` on this book: ``(plies, entries)``, every row checked."""
        with self.engine.connect() as conn:
            return read_rows(
                conn, where, self.db, self.board.width, self._offset, self.board.column_set_type
            )

    def segment_at(self, ply: int) -> Segment | None:
        """The packed part of ``ply`` (its segments merged), or ``None``; read once."""
        if ply not in self._segments:
            with self.engine.connect() as conn:
                parts = [
                    check_row(
                        unpack(data, ply, self.board, self.db), ply, count, self.board, self.db
                    )
                    for count, data in conn.execute(
                        select(SegmentRow.count, SegmentRow.data)
                        .where(SegmentRow.ply == ply)
                        .order_by(SegmentRow.id)
                    )
                ]
            self._segments[ply] = merge(parts, ply, self.db) if parts else None
        return self._segments[ply]

    def keys_at(self, ply: int, low: int = 0, high: int = KEY_LIMIT) -> np.ndarray:
        """Sorted keys stored at ``ply`` within ``[low, high)``: packed, and rows by a
        range scan of the key.  Every row in the range is checked, whatever its ply:
        a row whose ply was damaged is found here too."""
        offset = self._offset
        high = min(int(high), KEY_LIMIT)
        if low >= high:
            return np.empty(0, dtype=np.uint64)
        plies, found = self._read_rows(
            f"WHERE key >= {int(low) - offset} AND key < {min(high - offset, (1 << 63) - 1)}"
        )
        rows = found.keys[plies == ply]
        segment = self.segment_at(ply)
        if segment is None:
            return rows
        packed = segment.keys[
            segment.keys.searchsorted(np.uint64(low)) : segment.keys.searchsorted(
                np.uint64(min(int(high), KEY_LIMIT))
            )
        ]
        return np.union1d(packed, rows) if len(rows) else packed

    def _row_entries(self, ply: int) -> Segment:
        """The rows of ``ply``, checked, with their best-move bits."""
        return self._read_rows(f"WHERE ply = {int(ply)}")[1]

    def entries_at(self, ply: int) -> Segment:
        """Every entry at ``ply``, packed and rows together, in key order; best-move
        bits only if every entry has them (a ply sealed below the last has none)."""
        rows, segment = self._row_entries(ply), self.segment_at(ply)
        if segment is None:
            return rows
        return merge([segment, rows], ply, self.db) if len(rows.keys) else segment

    def scores_at(self, ply: int) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, scores)`` of every entry at ``ply``, sorted by key."""
        entries = self.entries_at(ply)
        return entries.keys, entries.scores

    def best_at(self, ply: int) -> np.ndarray | None:
        """Best-move bits (bit c: column c + 1) of every entry at ``ply``, in key order
        (the order of ``scores_at``), or ``None`` where a sealed ply keeps none."""
        return self.entries_at(ply).best

    def entries_above(self, ply: int) -> Parents | None:
        """The entries at ``ply - 1``, if the book holds any: they bound ``ply``'s scores."""
        from solver.parent_bounds import Parents  # numba: only for a build

        keys, scores, best = self.entries_at(ply - 1)
        if not len(keys):
            return None
        # Without best moves the bounds are only lower bounds, never exact: still true.
        return Parents(
            keys, scores, np.zeros(len(keys), np.uint8) if best is None else best, self.board
        )

    def count_by_ply(self) -> dict[int, int]:
        return {ply: packed + rows for ply, (packed, _, rows) in self.storage_by_ply().items()}

    def storage_by_ply(self) -> dict[int, tuple[int, int, int]]:
        """Per ply: ``(positions packed, bytes of their segments, rows not packed)``."""
        with self.engine.connect() as conn:
            packed = {
                ply: (int(n), int(size))
                for ply, n, size in conn.execute(
                    select(
                        SegmentRow.ply,
                        func.sum(SegmentRow.count),
                        func.sum(func.length(SegmentRow.data)),
                    ).group_by(SegmentRow.ply)
                )
            }
        rows = self.row_counts()
        return {
            ply: (*packed.get(ply, (0, 0)), rows.get(ply, 0))
            for ply in sorted(set(packed) | set(rows))
        }

    def row_counts(self) -> dict[int, int]:
        """Rows not yet packed, by ply."""
        with self.engine.connect() as conn:
            return dict(
                sorted(conn.execute(select(Entry.ply, func.count()).group_by(Entry.ply)).all())
            )

    def is_sealed(self, ply: int) -> bool:
        """Complete, and all of it packed: one segment and no rows."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(func.count()).select_from(Entry).where(Entry.ply == ply)
            ).scalar_one()
            segments = conn.execute(
                select(func.count()).select_from(SegmentRow).where(SegmentRow.ply == ply)
            ).scalar_one()
        return ply in self.complete_plies() and rows == 0 and segments == 1

    # -- packing -----------------------------------------------------------
    def seal(self, ply: int, entries: Segment) -> None:
        """Make ``entries`` the whole of ``ply``, complete, in one transaction: its rows and
        older segments go.  The ply above, sealed with best moves, keeps only its scores:
        its best moves now follow from this ply's."""
        blob = pack(entries)
        plies = sorted(set(self.complete_plies()) | {ply})
        above = self.segment_at(ply - 1) if ply - 1 in plies else None
        above = None if above is None or above.best is None else above._replace(best=None)
        above_blob = None if above is None else pack(above)

        def write():
            with self.engine.begin() as conn:
                conn.execute(delete(Entry).where(Entry.ply == ply))
                conn.execute(delete(SegmentRow).where(SegmentRow.ply == ply))
                conn.execute(insert(SegmentRow).values(ply=ply, count=len(entries.keys), data=blob))
                if above is not None:
                    conn.execute(delete(SegmentRow).where(SegmentRow.ply == ply - 1))
                    conn.execute(
                        insert(SegmentRow).values(
                            ply=ply - 1, count=len(above.keys), data=above_blob
                        )
                    )
                write_meta(conn, self.db, {"complete_plies": json.dumps(plies)})

        self._retry_locked(write)
        self.wrote = True
        self._segments.pop(ply, None)
        self._segments.pop(ply - 1, None)

    def pack_rows(self, ply: int) -> int:
        """Pack the rows of ``ply``: the whole ply sealed if it is complete, else one more
        segment beside the ply's others (older segments stay byte for byte, so a book
        kept in git grows by the new part only).  The number of rows packed."""
        complete = self.complete_plies()
        if ply in complete:
            count = self.row_counts().get(ply, 0)
            # A ply packed whole while still being built is one segment already, but
            # sealing it also drops the best moves of the ply above, which it now gives.
            above = self.segment_at(ply - 1) if ply - 1 in complete else None
            if count or not self.is_sealed(ply) or (above is not None and above.best is not None):
                self.seal(ply, self.entries_at(ply))
            return count
        rows = self._row_entries(ply)
        if not len(rows.keys):
            return 0
        keys, blob = rows.keys, pack(rows)

        def write():
            with self.engine.begin() as conn:
                conn.execute(insert(SegmentRow).values(ply=ply, count=len(keys), data=blob))
                conn.execute(delete(Entry).where(Entry.ply == ply))

        self._retry_locked(write)
        self.wrote = True
        self._segments.pop(ply, None)
        return len(keys)

    def insert_new(self, rows: Rows, search_seconds: float = 0.0) -> int:
        """Insert searched rows in one transaction; keys already stored are left alone.

        ``search_seconds`` is added, in the same transaction, to the book's
        running total of worker search time across runs.
        """
        return self._write(rows, replace=False, search_seconds=search_seconds)

    def upsert(self, rows: Rows) -> int:
        """Insert or replace rows in one transaction (for entries derived from children)."""
        return self._write(rows, replace=True)

    def _write(self, rows: Rows, *, replace: bool, search_seconds: float = 0.0) -> int:
        if not len(rows):
            return 0
        if self._offset:  # as SQL stores them (``key_offset``)
            rows = rows.with_keys((rows.keys ^ np.uint64(self._offset)).view(np.int64))

        def add_seconds(meta: Mapping[str, str]) -> dict[str, str]:
            return {SEARCH_SECONDS: repr(float(meta.get(SEARCH_SECONDS, 0)) + search_seconds)}

        return self._retry_locked(
            lambda: self._execute(rows, replace, add_seconds if search_seconds else None)
        )

    def _insert_sql(self, rows: Rows, count: int, replace: bool) -> str:
        """An insert of ``count`` rows; a stored key is replaced or left alone."""
        return self._sql(
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
        # ``_retry_locked`` and the callers know (a locked or full disk); only
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
        self.wrote = True
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

    def _retry_locked(self, write, attempts: int = 10):
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

    def close(self) -> None:
        """Fold the write-ahead log back into the file, so the book is one file."""
        if not self.readonly:
            fold_wal(self.engine)
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"BookStore({self.db!r}, readonly={self.readonly})"


def write_meta(
    conn,
    db: str,
    change: Mapping[str, str] | Callable[[Mapping[str, str]], Mapping[str, str]],
    *,
    first: bool = False,
) -> None:
    """Set meta values in ``conn``'s transaction, and the meta's checksum with them.

    ``change`` is the values, or makes them from the meta as stored.  The stored meta is
    checked first, so that a damaged value is never taken into the new checksum; with
    ``first``, there is no checksum yet to check (a new book, an upgrade to this version).
    """
    meta = dict(conn.execute(select(Meta.name, Meta.value)).all())
    if not first:
        check_meta(meta, db)
    values = dict(change(meta) if callable(change) else change)
    values[META_CHECKSUM] = meta_checksum({**meta, **values})
    # Loaded here: PostgreSQL's dialect is a third of SQLAlchemy's import, and a reader
    # never writes (c4book query or move would load it for nothing).
    from sqlalchemy.dialects import postgresql, sqlite

    insert = (postgresql if conn.dialect.name == "postgresql" else sqlite).insert
    for name, value in values.items():
        conn.execute(
            insert(Meta)
            .values(name=name, value=value)
            .on_conflict_do_update(index_elements=["name"], set_={"value": value})
        )


def existing_meta(db: str, board: Board | None = None) -> dict[str, str] | None:
    """The checked metadata of the book at ``db`` (of ``board``, if given), or ``None``
    where there is no book yet: no file, or an empty database.  Anything else wrong
    with ``db`` raises its ``BookError``.

    Read-only: a writer's engine would switch the file to WAL mode, which must not
    happen to a file that is then refused.
    """
    path = sqlite_path(db)
    if path is not None and not check_sqlite_file(path, must_exist=False):
        return None
    engine = make_engine(db, readonly=path is not None)
    try:
        return read_meta(engine, db, board=board)
    except NotABookError:
        if path is not None or not _is_empty(engine):
            raise
        return None  # an empty database, where a build makes the book
    finally:
        engine.dispose()


def recorded_board(db: str, board: Board | None = None) -> Board | None:
    """The board the book at ``db`` records, as ``existing_meta`` finds it."""
    meta = existing_meta(db, board)
    return None if meta is None else board_of_meta(meta, db)

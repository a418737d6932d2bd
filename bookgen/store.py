"""Opening, checking and writing book databases.

A ``--db`` value is a SQLite file path or any SQLAlchemy URL.  Opening
checks, in order: the file exists, is SQLite, is not damaged, is a c4book
book, of this schema version and board size.  The build's driver is the only
writer; every write is one transaction, so a crash never leaves half a batch.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from urllib.parse import quote

from sqlalchemy import Engine, Float, String, cast, create_engine, event, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DatabaseError, OperationalError

from solver.bitboard import HEIGHT, WIDTH
from solver.errors import BoardSizeError

from .schema import (
    FORMAT,
    SCHEMA_VERSION,
    Base,
    BookError,
    BookNotFoundError,
    CorruptBookError,
    Entry,
    IncompatibleBookError,
    Meta,
    NotABookError,
    SchemaMismatchError,
)

SQLITE_HEADER = b"SQLite format 3\x00"
SEARCH_SECONDS = "search_core_seconds"  # meta: worker search time over every run
LOCK_WAIT_SECONDS = 30.0


class BookSizeError(IncompatibleBookError, BoardSizeError):
    """A book made for another board than 7x6."""


def is_url(db: str) -> bool:
    return "://" in db


def sqlite_path(db: str) -> str | None:
    """The file behind ``db``, or ``None`` for a non-SQLite URL."""
    if not is_url(db):
        return db
    if db.startswith("sqlite:///"):
        return db[len("sqlite:///"):]
    return None


def check_sqlite_file(path: str, *, must_exist: bool) -> bool:
    """Whether ``path`` holds a SQLite database; raise if it holds anything else."""
    if not os.path.exists(path):
        if must_exist:
            raise BookNotFoundError(f"no book at {path!r}")
        return False
    if os.path.isdir(path):
        raise NotABookError(f"{path!r} is a directory, not a book")
    with open(path, "rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
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
        return create_engine(db)
    if readonly:
        # Quoted: '#', '?' or '%' in a file name would otherwise end the path.
        uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
        return create_engine("sqlite://", creator=lambda: sqlite3.connect(
            uri, uri=True, timeout=LOCK_WAIT_SECONDS, check_same_thread=False))
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": LOCK_WAIT_SECONDS})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def read_meta(engine: Engine, db: str) -> dict[str, str]:
    """The checked metadata of an existing book; raises a BookError if unusable."""
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                check = conn.exec_driver_sql("PRAGMA quick_check").scalar()
                if check != "ok":
                    raise CorruptBookError(f"{db!r} is a damaged SQLite file: {check}")
            tables = set(engine.dialect.get_table_names(conn))
            if Meta.__tablename__ not in tables or Entry.__tablename__ not in tables:
                raise NotABookError(f"{db!r} is a database but not a c4book book (no book tables)")
            meta = dict(conn.execute(select(Meta.name, Meta.value)).all())
    except DatabaseError as error:
        if isinstance(error, OperationalError) and "locked" in str(error):
            raise BookError(f"{db!r} is locked by another process") from None
        raise CorruptBookError(f"{db!r} is damaged or not a database: {error.orig}") from None
    if meta.get("format") != FORMAT:
        raise NotABookError(f"{db!r} is a database but not a c4book book")
    if meta.get("schema_version") != str(SCHEMA_VERSION):
        raise SchemaMismatchError(
            f"{db!r} has book schema version {meta.get('schema_version')!r}; "
            f"this c4book reads version {SCHEMA_VERSION}")
    if (meta.get("width"), meta.get("height")) != (str(WIDTH), str(HEIGHT)):
        raise BookSizeError(
            f"{db!r} is a book for a {meta.get('width')}x{meta.get('height')} board, "
            f"not {WIDTH}x{HEIGHT}")
    return meta


def _is_empty(engine: Engine) -> bool:
    with engine.connect() as conn:
        return not engine.dialect.get_table_names(conn)


class BookStore:
    """The writer's view of a book: created if absent, checked if present."""

    def __init__(self, db: str, root_moves: str, root_key: int):
        self.db = db
        path = sqlite_path(db)
        exists = check_sqlite_file(path, must_exist=False) if path is not None else True
        # Check an existing file read-only first: the writer's engine switches
        # it to WAL mode, which must not happen to a file we then refuse.
        probe = make_engine(db, readonly=path is not None)
        try:
            meta = read_meta(probe, db) if exists else None
        except NotABookError:
            if path is not None or not _is_empty(probe):
                raise
            meta = None
        finally:
            probe.dispose()
        if meta is not None and int(meta["root_key"]) != root_key:
            raise IncompatibleBookError(
                f"{db!r} is a book from root {meta['root']!r}, not {root_moves!r}: "
                "use another --db for another root")
        self.engine = make_engine(db)
        self.created = meta is None  # this store made the book (or its tables)
        if meta is None:
            try:
                self._create(root_moves, root_key)
            except BookError:
                self.engine.dispose()
                raise

    def _create(self, root_moves: str, root_key: int) -> None:
        try:
            Base.metadata.create_all(self.engine)
            with self.engine.begin() as conn:
                for name, value in {"format": FORMAT, "schema_version": str(SCHEMA_VERSION),
                                    "width": str(WIDTH), "height": str(HEIGHT),
                                    "root": root_moves, "root_key": str(root_key),
                                    "ply": str(len(root_moves)), "complete_plies": "[]"}.items():
                    conn.execute(self._insert(Meta).values(name=name, value=value)
                                 .on_conflict_do_nothing(index_elements=["name"]))
        except OperationalError as error:
            raise BookError(f"cannot write a book at {self.db!r}: {error.orig}") from None

    def _insert(self, table):
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(table)

    # -- metadata ----------------------------------------------------------
    def meta(self) -> dict[str, str]:
        with self.engine.connect() as conn:
            return dict(conn.execute(select(Meta.name, Meta.value)).all())

    def set_meta(self, **values: str) -> None:
        with self.engine.begin() as conn:
            for name, value in values.items():
                stmt = self._insert(Meta).values(name=name, value=value)
                conn.execute(stmt.on_conflict_do_update(index_elements=["name"],
                                                        set_={"value": value}))

    def complete_plies(self) -> list[int]:
        return json.loads(self.meta().get("complete_plies", "[]"))

    def mark_complete(self, ply: int) -> None:
        plies = sorted(set(self.complete_plies()) | {ply})
        self.set_meta(complete_plies=json.dumps(plies))

    # -- entries -----------------------------------------------------------
    def keys_at(self, ply: int) -> set[int]:
        with self.engine.connect() as conn:
            return set(conn.execute(select(Entry.key).where(Entry.ply == ply)).scalars())

    def scores_at(self, ply: int) -> dict[int, int]:
        with self.engine.connect() as conn:
            return dict(conn.execute(select(Entry.key, Entry.score).where(Entry.ply == ply)).all())

    def finished_keys_at(self, ply: int) -> set[int]:
        """Keys at ``ply`` whose move scores are known (not frontier-only rows)."""
        with self.engine.connect() as conn:
            stmt = select(Entry.key).where(Entry.ply == ply, Entry.move_scores.is_not(None))
            return set(conn.execute(stmt).scalars())

    def count_by_ply(self) -> dict[int, int]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(Entry.ply, func.count()).group_by(Entry.ply)).all()
        return dict(sorted(rows))

    def insert_new(self, rows: Sequence[dict], search_seconds: float = 0.0) -> int:
        """Insert searched rows in one transaction; keys already stored are left alone.

        ``search_seconds`` is added, in the same transaction, to the book's
        running total of worker search time across runs.
        """
        return self._write(rows, replace=False, search_seconds=search_seconds)

    def upsert(self, rows: Sequence[dict]) -> int:
        """Insert or replace rows in one transaction (for entries derived from children)."""
        return self._write(rows, replace=True)

    def _write(self, rows: Sequence[dict], *, replace: bool, search_seconds: float = 0.0) -> int:
        if not rows:
            return 0
        extra = []
        if search_seconds:
            add = self._insert(Meta).values(name=SEARCH_SECONDS, value=repr(float(search_seconds)))
            total = cast(cast(Meta.value, Float) + search_seconds, String)
            extra.append(add.on_conflict_do_update(index_elements=["name"], set_={"value": total}))
        stmt = self._insert(Entry)
        if replace:
            stmt = stmt.on_conflict_do_update(
                index_elements=["key"],
                set_={c: stmt.excluded[c] for c in ("score", "wdl", "best_moves", "move_scores")})
        else:
            stmt = stmt.on_conflict_do_nothing(index_elements=["key"])
        return self._retry_locked(lambda: self._execute(stmt, rows, extra))

    def _execute(self, stmt, rows: Sequence[dict], extra: Sequence = ()) -> int:
        with self.engine.begin() as conn:
            conn.execute(stmt, list(rows))
            for statement in extra:
                conn.execute(statement)
        return len(rows)

    def _retry_locked(self, write, attempts: int = 10):
        """Wait out another process's lock (each try already waits LOCK_WAIT_SECONDS)."""
        for attempt in range(attempts):
            try:
                return write()
            except OperationalError as error:
                if "locked" not in str(error) and "busy" not in str(error):
                    raise BookError(f"cannot write to {self.db!r}: {error.orig}") from None
                if attempt == attempts - 1:
                    raise BookError(f"{self.db!r} stayed locked by another process; "
                                    "every batch written so far is kept, rerun to resume") from None
                time.sleep(1.0)

    def close(self) -> None:
        """Fold the write-ahead log back into the file, so the book is one file."""
        if self.engine.dialect.name == "sqlite":
            try:
                with self.engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                    conn.exec_driver_sql("PRAGMA journal_mode=DELETE")
            except OperationalError:
                # An open reader keeps WAL mode on; the checkpoint has still
                # moved every committed row into the main file.
                pass
        self.engine.dispose()


def iter_chunks(items: Sequence, size: int) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start:start + size]

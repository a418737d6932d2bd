"""Opening a book's database and reading its checked meta: what reading and writing share.

A ``--db`` value is a SQLite file path or any SQLAlchemy URL.  Opening
checks, in order: the file exists, is SQLite, is not damaged, is a c4book
book, of this schema version and board size.  Any of these wrong is a
``BookError`` naming the book.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import TYPE_CHECKING, Any

from solver.bitboard import Board

from .checksum import META_CHECKSUM, check_meta
from .errors import (
    BookError,
    BookNotFoundError,
    BookReadError,
    BookSizeError,
    CorruptBookError,
    NotABookError,
    SchemaMismatchError,
    board_of_meta,
    corrupt_database,
    server_error,
)
from .names import (
    FORMAT,
    META_TABLE,
    POSITIONS_TABLE,
    SCHEMA_VERSION,
    SEARCH_SECONDS,
    UPGRADABLE_VERSIONS,
)
from .sql import LOCK_WAIT_SECONDS, dialect, fetch, is_database_error, open_readonly, table_names

if TYPE_CHECKING:
    from sqlalchemy import Engine

SQLITE_HEADER = b"SQLite format 3\x00"


def key_offset(board: Board) -> int:
    """What a key loses on its way into SQL, whose integers are signed 64-bit: nothing for
    keys of up to 63 bits, else 2**63, which keeps their order (8x7's keys reach 2**64).
    Keys past 64 bits are blobs (``wide_keys``): nothing."""
    return 1 << 63 if board.key_bits == 64 else 0


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
    """A SQLAlchemy engine on ``db`` (a SQLite file read-only if ``readonly``); every error
    it meets that says the book cannot be used is one ``BookError`` naming it."""
    from sqlalchemy import create_engine, event  # (a SQLite reader never loads SQLAlchemy)
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

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
        engine = create_engine("sqlite://", creator=lambda: open_readonly(path))
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


def read_meta(
    source: Engine | sqlite3.Connection,
    db: str,
    *,
    any_version: bool = False,
    board: Board | None = None,
) -> dict[str, str]:
    """The checked metadata of an existing book, read through ``source`` (an engine, or a
    ``sql.open_readonly`` connection); raises a BookError if unusable.

    ``any_version`` skips the schema version check (for ``c4book upgrade``);
    ``board``, if given, is the board the book must be of.
    """
    try:
        if isinstance(source, sqlite3.Connection):
            meta = _meta_rows(source, db)
        else:
            with source.connect() as conn:
                meta = _meta_rows(conn, db)
    except Exception as error:
        if not is_database_error(error):
            raise
        raise _unreadable(db, error) from None
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


def _unreadable(db: str, error: BaseException) -> BookError:
    """The ``BookError`` of a database's refusal to read a book's meta."""
    named = corrupt_database(db, error)
    if named is not None:
        return named
    why = " ".join(str(getattr(error, "orig", error)).split())
    if "locked" in why:
        return BookError(f"{db!r} is locked by another process")
    if "unable to open" in why:  # a file SQLite cannot open (a server's: ``make_engine``)
        return BookError(f"cannot connect to {db!r}: {why}")
    return CorruptBookError(f"{db!r} is damaged or not a database: {why}")


def _meta_rows(conn: Any, db: str) -> dict[str, str]:
    """The meta table's rows, once the file is found whole and holding a book's tables."""
    if dialect(conn) == "sqlite":
        check = fetch(conn, "PRAGMA quick_check")[0][0]
        if check != "ok":  # SQLite's report may take several lines: one here
            raise CorruptBookError(
                f"{db!r} is a damaged SQLite file: {' '.join(str(check).split())}"
            )
    tables = table_names(conn)
    if META_TABLE not in tables or POSITIONS_TABLE not in tables:
        raise NotABookError(f"{db!r} is a database but not a c4book book (no book tables)")
    return dict(fetch(conn, f"SELECT name, value FROM {META_TABLE}"))


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

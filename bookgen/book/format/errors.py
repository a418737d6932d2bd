"""The errors about books, and the words of SQLite and database servers turned into them."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from solver.bitboard import Board
from solver.errors import BoardSizeError, C4Error

if TYPE_CHECKING:
    from sqlalchemy import Engine


class BookError(C4Error):
    """A book file or database that cannot be used as asked."""


class BookNotFoundError(BookError, FileNotFoundError):
    """No book at the given path."""


class NotABookError(BookError, ValueError):
    """The file exists but is not a c4book book (or not SQLite at all)."""


class CorruptBookError(BookError, ValueError):
    """The SQLite file, or a packed ply in it, is damaged."""


class SchemaMismatchError(BookError, ValueError):
    """A book written by another schema version."""


class IncompatibleBookError(BookError, ValueError):
    """A book for another board size or another root than asked."""


class BookConnectionError(BookError, ConnectionError):
    """A book's database server that cannot be reached, or that went away."""


class BookPermissionError(BookError, PermissionError):
    """A database role without a right that the command needs on the book's tables."""


class BookSizeError(IncompatibleBookError, BoardSizeError):
    """A book made for another board than the one asked for."""


class BookReadError(BookError, OSError):
    """A book's file that the system refuses to read."""


def board_of_meta(meta: dict[str, str], db: str) -> Board:
    """The board a book records; ``CorruptBookError`` if its record is not a board."""
    try:
        return Board(int(meta["width"]), int(meta["height"]))
    except (KeyError, ValueError) as error:
        raise CorruptBookError(
            f"{db!r} records no usable board size "
            f"({meta.get('width')!r} x {meta.get('height')!r}): {error}"
        ) from None


def damaged_ply(ply: int, why: str, db: str | None = None) -> CorruptBookError:
    """The error of a damaged part of ``ply`` (a segment, a row) of the book ``db``: a damaged
    book never answers."""
    where = f"{db!r}:" if db else "the book's"
    return CorruptBookError(
        f"{where} ply {ply!r} is damaged: {why}; rebuild it or take the book from a good copy"
    )


def corrupt_database(db: str, error: BaseException) -> CorruptBookError | None:
    """The ``CorruptBookError`` of a SQLite driver error that says the file is damaged
    ("database disk image is malformed", "file is not a database", a text that is not
    UTF-8), else ``None`` (locked, full, read-only: not damage)."""
    error = getattr(error, "orig", error)  # SQLAlchemy's wrapper: the driver's own
    if type(error) is sqlite3.DatabaseError:
        why = " ".join(str(error).split())
    elif isinstance(error, sqlite3.OperationalError) and str(error).startswith(_NOT_UTF8):
        # The damaged text itself, quoted in the driver's message, could hold anything.
        why = str(error).split(" with text ")[0].lower()
    else:
        return None
    return CorruptBookError(f"{db!r} is damaged or not a database: {why}")


def read_failed(db: str, error: BaseException) -> BookError:
    """The error of a SQLite driver error met while reading ``db``: ``corrupt_database``'s
    where it says the file is damaged, else a ``BookReadError``."""
    return corrupt_database(db, error) or BookReadError(f"cannot read {db!r}: {error}")


_NOT_UTF8 = "Could not decode to UTF-8"  # the sqlite3 module's word for it

# SQLSTATEs: a server gone or refusing connections (class 08, shutting down, starting),
# and a role without a right (on PostgreSQL, and in the SQL standard).
SERVER_GONE = ("08", "57P01", "57P02", "57P03")
INSUFFICIENT_PRIVILEGE = "42501"


def server_error(
    db: str, engine: Engine, error: BaseException, *, statement: str | None
) -> BookError | None:
    """The error of a database server (``error``, its driver's own) that says the book
    cannot be used as it is named, as one line naming it: no such database, no connection
    (``statement`` is ``None`` while connecting), a role without a right; else ``None``
    (and always on SQLite, a file: ``corrupt_database``)."""
    if engine.dialect.name == "sqlite":
        return None
    state = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None) or ""
    why = " ".join(str(error).split())
    name = engine.url.database
    if f'database "{name}" does not exist' in why:  # at connect; c4book makes no database
        return BookNotFoundError(
            f"PostgreSQL has no database {name!r} at {db!r}: create it first with "
            f"`createdb {name}` (with the URL's host, port and user); c4book makes the "
            "tables, not the database"
        )
    if state == INSUFFICIENT_PRIVILEGE:
        reads = statement is not None and statement.lstrip()[:6].upper() == "SELECT"
        return BookPermissionError(
            f"no {'read' if reads else 'write'} permission on {db!r} for its role "
            f"{engine.url.username!r}: {why}"
        )
    if isinstance(error, engine.dialect.loaded_dbapi.OperationalError) and (
        not state or state.startswith(SERVER_GONE)
    ):
        if statement is None:
            return BookConnectionError(f"cannot connect to {db!r}: {why}")
        return BookConnectionError(f"lost the connection to {db!r}: {why}")
    return None


def cursor_error(db: str, conn, error: BaseException, statement: str) -> BookError | None:
    """``server_error`` of an error from the driver's own cursor, which SQLAlchemy never
    sees: a connection it found gone is dropped from the pool here (``invalidate``), as
    SQLAlchemy would, rather than rolled back on its way back (which fails, and logs).
    ``None`` on SQLite's own connection: a file has no server."""
    if isinstance(conn, sqlite3.Connection):
        return None
    named = server_error(db, conn.engine, error, statement=statement)
    if isinstance(named, BookConnectionError):
        conn.invalidate()
    return named

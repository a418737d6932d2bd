"""Reading a book's tables on either kind of connection: SQLite's own, or SQLAlchemy's.

A reader of a SQLite book (``Book``, the CLI's queries, the web server) talks
to the file through the ``sqlite3`` module alone, on one read-only
connection in autocommit (no lock outlives a query), and never imports
SQLAlchemy: that import alone is 0.2-0.3 s of a one-off query's time.
Everything else (a server's book, the writer) goes through SQLAlchemy, as
before.  The read queries are written once, as SQL text with ``:name``
parameters, which both take.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

LOCK_WAIT_SECONDS = 30.0  # a connection waits this long for another process's write lock


def open_readonly(path: str) -> sqlite3.Connection:
    """A read-only connection to the SQLite file ``path``, in autocommit, for any thread
    (its users hold a lock of their own around it)."""
    # Quoted: '#', '?' or '%' in a file name would otherwise end the path.
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    return sqlite3.connect(
        uri, uri=True, timeout=LOCK_WAIT_SECONDS, check_same_thread=False, isolation_level=None
    )


def is_sqlite3(conn: Any) -> bool:
    """Whether ``conn`` is the ``sqlite3`` module's own connection (else SQLAlchemy's)."""
    return isinstance(conn, sqlite3.Connection)


def dialect(conn: Any) -> str:
    """``"sqlite"``, ``"postgresql"``, ...: the database behind ``conn``."""
    return "sqlite" if is_sqlite3(conn) else conn.engine.dialect.name


def fetch(conn: Any, query: str, parameters: Mapping[str, Any] | None = None) -> list[tuple]:
    """Every row of ``query`` (``:name`` parameters) on ``conn``, as tuples."""
    if is_sqlite3(conn):
        return conn.execute(query, parameters or {}).fetchall()
    from sqlalchemy import text  # (loaded already: ``conn`` is SQLAlchemy's)

    rows = conn.execute(text(query), parameters or {})
    # Bytes as SQLite gives them, whatever the driver (a server's may give memoryviews).
    return [tuple(bytes(v) if type(v) is memoryview else v for v in row) for row in rows]


def table_names(conn: Any) -> set[str]:
    """The tables of the database behind ``conn``."""
    if is_sqlite3(conn):
        return {
            name for (name,) in fetch(conn, "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    return set(conn.engine.dialect.get_table_names(conn))


def driver_connection(conn: Any) -> Any:
    """The database driver's own connection behind ``conn`` (for its cursors)."""
    return conn if is_sqlite3(conn) else conn.connection


def is_database_error(error: BaseException) -> bool:
    """Whether ``error`` is a database's refusal (a driver's error, or SQLAlchemy's wrapping
    of one), not a bug of ours."""
    if isinstance(error, sqlite3.Error):
        return True
    wrapped = sys.modules.get("sqlalchemy.exc")  # (only SQLAlchemy's connections raise it)
    return wrapped is not None and isinstance(error, wrapped.DBAPIError)

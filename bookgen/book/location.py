"""Where a book is when none is named: ``./book.db``, else the book installed with c4book."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

from solver.errors import ArgumentError, ArgumentTypeError

BOOK_NAME = "book.db"
SHARE = Path("share") / "c4book"  # where a wheel puts the book, under the environment's prefix


def installed_books() -> list[Path]:
    """Where c4book's own book may be: beside the source tree (a checkout or an
    editable install), then in the environment's data directory (a wheel)."""
    beside = Path(__file__).resolve().parents[2] / BOOK_NAME
    prefixes = dict.fromkeys([sysconfig.get_path("data"), sys.prefix])
    return [beside, *(Path(prefix) / SHARE / BOOK_NAME for prefix in prefixes)]


def book_location(db: str | os.PathLike) -> str:
    """``db``, a book's path (a string or a ``Path``) or SQLAlchemy URL, as a string;
    an ``ArgumentTypeError`` naming it if it is neither."""
    if isinstance(db, os.PathLike):
        db = os.fspath(db)
    if not isinstance(db, str):
        raise ArgumentTypeError(f"db must be a book's path or a SQLAlchemy URL, got {db!r}")
    return db


def find_book(db: str | os.PathLike | None) -> str:
    """``db`` itself (``book_location``) when given; else ``./book.db`` if it exists, else
    the installed book.

    With nothing found, ``book.db``: opening it then says there is no book there.
    """
    if db is not None:
        return book_location(db)
    if os.path.exists(BOOK_NAME):
        return BOOK_NAME
    for place in installed_books():
        if place.is_file():
            return str(place)
    return BOOK_NAME


def in_memory(db: str) -> bool:
    """Whether ``db`` names a SQLite database in memory (``''``, ``:memory:``, ``sqlite://``),
    which keeps nothing once closed."""
    if "://" not in db:
        return db in ("", ":memory:")
    scheme, _, rest = db.partition("://")
    return scheme.split("+")[0].lower() == "sqlite" and rest.lstrip("/").split("?")[0] in (
        "",
        ":memory:",
    )


def check_lasting(db: str) -> str:
    """``db``, a book to write, unless it is a database in memory: an ``ArgumentError``
    then, as a book built there is lost when it is closed."""
    if in_memory(db):
        raise ArgumentError(
            f"{db!r} is a database in memory: a book built there is lost "
            "when the command ends; give a file"
        )
    return db

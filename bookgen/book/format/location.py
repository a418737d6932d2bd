"""Where a book is when none is named: ``./book.db``, else the book installed with c4book."""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

from solver.errors import ArgumentError, ArgumentTypeError

if TYPE_CHECKING:
    from typing_extensions import Self  # typing's own from Python 3.11

BOOK_NAME = "book.db"
SHARE = Path("share") / "c4book"  # where a wheel puts the book, under the environment's prefix


def installed_books() -> list[Path]:
    """Where c4book's own book may be: beside the source tree (a checkout or an
    editable install), then in the environment's data directory (a wheel)."""
    beside = Path(__file__).resolve().parents[3] / BOOK_NAME  # bookgen/book/format/ -> top
    prefixes = dict.fromkeys([sysconfig.get_path("data"), sys.prefix])
    return [beside, *(Path(prefix) / SHARE / BOOK_NAME for prefix in prefixes)]


def shown(db: str) -> str:
    """``db`` as c4book prints it: a URL's password masked as ``***`` (SQLAlchemy's
    ``render_as_string(hide_password=True)``, and a ``password`` query parameter too);
    anything without one, as it is."""
    if "://" not in db:
        return db
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError as UrlError

    try:
        url = make_url(str.__str__(db))  # its value, not a ``SecretUrl``'s masked text
    except (UrlError, ValueError):  # no URL SQLAlchemy opens: mask what looks like one
        return re.sub(r"(://[^/:@]*:)[^@]*@", r"\1***@", db)
    if url.password is None and "password" not in url.query:
        return db
    if "password" in url.query:
        url = url.update_query_dict({"password": "***"})
    return url.render_as_string(hide_password=True)


class SecretUrl(str):
    """A database URL that holds a password: its value connects, and it prints masked
    (``shown``) however it is printed (``str``, ``repr``, an f-string, ``%s``), as
    SQLAlchemy's own ``URL`` does, so that no message, report or log can give the password
    away.  ``json`` writes a string's value: give it ``shown(url)``."""

    __slots__ = ()

    def __new__(cls, url: str) -> Self:
        return super().__new__(cls, str.__str__(url))  # its value, were it one already

    def __str__(self) -> str:
        return shown(self)

    def __repr__(self) -> str:
        return repr(shown(self))

    def __format__(self, spec: str) -> str:
        return format(shown(self), spec)


def book_location(db: str | os.PathLike) -> str:
    """``db``, a book's path (a string or a ``Path``) or SQLAlchemy URL, as a string (a
    ``SecretUrl`` if it holds a password); an ``ArgumentTypeError`` naming it if it is
    neither."""
    if isinstance(db, os.PathLike):
        db = os.fspath(db)
    if not isinstance(db, str):
        raise ArgumentTypeError(f"db must be a book's path or a SQLAlchemy URL, got {db!r}")
    return SecretUrl(db) if shown(db) != db else db


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

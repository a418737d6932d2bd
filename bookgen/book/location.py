"""Where a book is when none is named: ``./book.db``, else the book installed with c4book."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

BOOK_NAME = "book.db"
SHARE = Path("share") / "c4book"   # where a wheel puts the book, under the environment's prefix


def installed_books() -> list[Path]:
    """Where c4book's own book may be: beside the source tree (a checkout or an
    editable install), then in the environment's data directory (a wheel)."""
    places = [Path(__file__).resolve().parents[2] / BOOK_NAME]
    for prefix in dict.fromkeys([sysconfig.get_path("data"), sys.prefix]):
        places.append(Path(prefix) / SHARE / BOOK_NAME)
    return places


def find_book(db: str | None) -> str:
    """``db`` itself when given; else ``./book.db`` if it exists, else the installed book.

    With nothing found, ``book.db``: opening it then says there is no book there.
    """
    if db is not None:
        return db
    if os.path.exists(BOOK_NAME):
        return BOOK_NAME
    for place in installed_books():
        if place.is_file():
            return str(place)
    return BOOK_NAME

"""Opening books for Connect 4: building them on Ray, reading them, playing from them.

``build`` (``bookgen.builder.driver.build``) is loaded on first use: reading a book never
imports Ray.
"""

from typing import TYPE_CHECKING, Any

from .book.format.errors import (
    BookError,
    BookNotFoundError,
    CorruptBookError,
    IncompatibleBookError,
    NotABookError,
    SchemaMismatchError,
)
from .book.read.entry import BookEntry, BookInfo
from .book.read.reader import Book, BookClosedError
from .play.player import Decision, Player
from .play.review import PlayerSummary, Review, ReviewedMove, review

if TYPE_CHECKING:  # type checkers see build's types; Python loads it on first use
    from .builder.driver import build

__all__ = [
    "Book",
    "BookClosedError",
    "BookEntry",
    "BookError",
    "BookInfo",
    "BookNotFoundError",
    "CorruptBookError",
    "Decision",
    "IncompatibleBookError",
    "NotABookError",
    "Player",
    "PlayerSummary",
    "Review",
    "ReviewedMove",
    "SchemaMismatchError",
    "build",
    "review",
]


def __getattr__(name: str) -> Any:
    if name != "build":
        raise AttributeError(f"module 'bookgen' has no attribute {name!r}")
    from .builder.driver import build  # on first use: importing bookgen never loads Ray

    return build

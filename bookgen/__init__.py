"""Opening books for Connect 4: building them on Ray, reading them, playing from them."""

from .book.reader import Book, BookClosedError, BookEntry, BookInfo
from .book.schema import (
    BookError,
    BookNotFoundError,
    CorruptBookError,
    IncompatibleBookError,
    NotABookError,
    SchemaMismatchError,
)
from .play.player import Decision, Player

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
    "SchemaMismatchError",
]

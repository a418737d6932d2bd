"""What ``query``, ``move`` and ``review`` share: their arguments, the book they read,
and a score as they print it."""

from __future__ import annotations

import argparse
from typing import Any

from solver import Board, Position

from ..book.read.entry import as_position
from ..book.read.reader import Book
from .arguments import add_book_options


def add_position_command(
    commands, name: str, moves_help: str = 'moves played so far, e.g. 4453 or ""', **about: str
) -> argparse.ArgumentParser:
    """A command about one position or game: MOVES, the book options, --json."""
    parser = commands.add_parser(name, **about)
    parser.add_argument("moves", metavar="MOVES", help=moves_help)
    add_book_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    return parser


def open_book(db: str | None, board: Board | None = None) -> Book | None:
    """``None`` for no book (``--no-book``), else the checked book (of ``board``, if given),
    read in Python: loading the compiled lookups costs more than one position saves."""
    return None if db is None else Book.open(db, board=board, compiled=False)


def examined(moves: str, db: str | None, board: Board | None, examine) -> tuple[Position, Any]:
    """``moves`` read on the book's board (or ``board``, or 7x6 with no book), and what
    ``examine(position, book)`` makes of it; a search that takes a while says so."""
    from ..progress import SEARCH_NOTICE, notice_if_slow

    book = open_book(db, board)
    try:
        position = as_position(moves, book.board if book is not None else board or Board())
        with notice_if_slow(SEARCH_NOTICE):
            return position, examine(position, book)
    finally:
        if book is not None:
            book.close()


def signed(score: int) -> str:
    return f"{score:+d}" if score else "0"

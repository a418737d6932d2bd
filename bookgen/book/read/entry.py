"""What a lookup answers, ``BookEntry`` and ``BookInfo``, and the tables that make it fast.

Every kind of score and best moves is decoded once, at import, in either
orientation (``codes``): a lookup indexes that table, and builds its entry
with ``new_entry``, without a Python-level ``__new__`` per entry.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

import numpy as np

from solver import Position
from solver.bitboard import STANDARD, Board
from solver.position import position_on

from ..format.scores import FULL_COLUMN, SCORE_OFFSET, entry_code


class BookEntry(NamedTuple):
    """What the book knows of one position, in the asker's orientation.

    ``move_scores`` is ``None`` at the book's last ply, where only the
    position itself was searched.  In a notebook it shows as an SVG board
    with each move's score under its column (``solver.svg.board_svg``).
    """

    moves: str
    ply: int
    score: int
    wdl: int
    best_moves: tuple[int, ...]
    move_scores: tuple[int | None, ...] | None
    board: Board = STANDARD  # the book's

    @property
    def position(self) -> Position:
        return Position.from_moves(self.moves, self.board)

    def _repr_svg_(self) -> str:
        from solver.svg import board_svg

        return board_svg(self.position, self.move_scores, self.best_moves)

    def _repr_html_(self) -> str:
        return f"<div>{self._repr_svg_()}</div>"


class BookMove(NamedTuple):
    """A best move from the book (``Book.best_move``): its column (from 1, the asker's
    orientation) and the position's score."""

    column: int
    score: int


def preference(prefer: object, board: Board) -> tuple[int, ...]:
    """``prefer`` (``Book.best_move``'s order of columns) as a tuple of ints, every column
    of ``board`` once (from 1); ``None``: the centre first.  ``ValueError`` naming it if it
    is not one."""
    if prefer is None:
        return tuple(col + 1 for col in board.column_order)
    width = board.width
    order: tuple[int, ...] = ()
    if isinstance(prefer, Iterable) and not isinstance(prefer, (str, bytes)):
        items = tuple(prefer)
        if all(hasattr(c, "__index__") and not isinstance(c, bool) for c in items):
            order = tuple(c.__index__() for c in items)  # (numpy's integers too)
    if sorted(order) != list(range(1, width + 1)):
        raise ValueError(f"prefer={prefer!r}: give every column 1-{width} once, as integers")
    return order


@dataclass(frozen=True)
class BookInfo:
    width: int  # the book's board: ``Book.board``
    height: int
    root: str
    plies_complete: tuple[int, ...]
    schema_version: int
    max_ply: int
    # Worker time spent searching the frontier, over every run of the build.
    search_core_seconds: float = field(default=0.0, compare=False)


new_entry = tuple.__new__  # BookEntry(...) without a Python-level __new__ per entry


def as_position(moves: str | Position, board: Board = STANDARD) -> Position:
    """``moves`` as a Position of a book of ``board``; an error naming it if it is not one."""
    return position_on(moves, board, "this book is of")


# A packed move score -> the score (board-free).
SCORE_OF_BYTE = tuple(None if b == FULL_COLUMN else b - SCORE_OFFSET for b in range(256))
SCORE_OBJECTS = np.array(SCORE_OF_BYTE, dtype=object)  # the same, for numpy to index
SIGNED = bytes((b - SCORE_OFFSET) & 255 for b in range(256))  # and as a signed byte


class _Codes:
    """One board's entry codes decoded: every code made once (about 10 ms on 7x6), in
    either orientation, so that a lookup never decodes one; ``codes(board)`` makes it."""

    def __init__(self, board: Board):
        width = self.width = board.width
        self.all_best = (1 << width) - 1  # an entry code's best-move bits
        # Best-move bits -> columns, as stored and mirrored.
        columns = tuple(
            tuple(c + 1 for c in range(width) if bits >> c & 1) for bits in range(1 << width)
        )
        mirrored = tuple(tuple(sorted(width - c + 1 for c in cols)) for cols in columns)
        self.best_of = columns + mirrored  # bits + (1 << width) if mirrored -> asker's columns
        self.unpack_scores = struct.Struct(f"{width}b").unpack
        # An entry code -> (score, wdl, best moves) in the asker's orientation, by
        # orientation.  (Segments refuse a score outside the board's: no code indexes
        # outside the table.)
        self.heads = tuple(
            tuple(
                (score, (score > 0) - (score < 0), cols[code & self.all_best])
                for code in range(entry_code(board.cells, self.all_best, width) + 1)
                for score in ((code >> width) - SCORE_OFFSET,)
            )
            for cols in (columns, mirrored)
        )


@cache
def codes(board: Board) -> _Codes:
    """The board's decoded entry codes, made once."""
    return _Codes(board)


codes(STANDARD)  # made at import, as before: a first lookup never waits for them

"""A book's stored positions, a slice of a ply at a time, as arrays: what ``Book.entries``
and ``bookgen.export`` read.

A slice is up to ``SLICE`` positions of one ply in key order, as the book
stores them: one of each mirror pair, the one with the smaller key.  Each
comes with a move string: the smallest in lexicographic order that reaches
it from the empty board (through the book's root or the root's mirror image,
when the book has a root), found by ``solver.packed``'s compiled replay in
about 0.2 us a position.  Memory holds one slice at a time, whatever the
book's size; a sealed parent ply's move scores are derived a slice at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from itertools import repeat
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from solver.bitboard import Board
from solver.errors import C4Error

from ..format import wide_cells
from ..format.errors import CorruptBookError
from ..format.keys import walker
from ..format.scores import FULL_COLUMN, SCORE_OFFSET
from .entry import SCORE_OBJECTS, BookEntry, codes, new_entry

if TYPE_CHECKING:
    from .reader import Book

SLICE = 1 << 18  # positions a slice: about 60 MB of arrays while a slice is written out
DIGIT = ord("0")


class PlyError(C4Error, ValueError):
    """Plies asked of a book that it does not hold, or not written as plies."""


class Slice(NamedTuple):
    """Consecutive positions of one ply, in the book's orientation and key order."""

    ply: int
    keys: np.ndarray  # uint64: the book's keys (``current + mask``)
    digits: np.ndarray  # (n, ply) uint8: each move string's columns, from 1
    scores: np.ndarray  # int8, Pons' convention, for the player to move
    best: np.ndarray  # best-move bits: bit c when column c + 1 is best
    move_scores: np.ndarray | None  # (n, width) uint8: score + SCORE_OFFSET, FULL_COLUMN if
    #                                 full; None at a ply without them (the book's deepest)

    @property
    def size(self) -> int:
        return len(self.keys)


def stored_plies(book: Book) -> dict[int, int]:
    """``{ply: positions}`` of every ply holding any position."""
    return {ply: count for ply, count in book.count_by_ply().items() if count}


def plies_of(book: Book, plies: int | str | Iterable[int] | None) -> list[int]:
    """The plies asked for, checked against the book: ``None`` for every stored ply, a ply,
    ``"LO-HI"`` or ``"N"``, or any iterable of plies (a ``range``).  A ``PlyError``
    naming what the book lacks."""
    held = stored_plies(book)
    span = f"plies {min(held)}-{max(held)}" if held else "no positions"
    if plies is None:
        return sorted(held)
    if isinstance(plies, str):
        plies = _ply_range(plies)
    elif isinstance(plies, (int, np.integer)) and not isinstance(plies, bool):
        plies = [int(plies)]
    elif isinstance(plies, bool) or not isinstance(plies, Iterable):
        raise PlyError(f"plies are a ply, 'LO-HI' or a range, got {plies!r}")
    wanted = sorted(set(plies))
    missing = [p for p in wanted if p not in held]
    if missing:
        raise PlyError(f"ply {missing[0]} is not in the book {book.db!r} ({span})")
    if not wanted:
        raise PlyError(f"no plies asked of the book {book.db!r} ({span})")
    return wanted


def _ply_range(text: str) -> range:
    """``"10"`` or ``"8-12"`` as a range of plies; a ``PlyError`` naming the text."""
    low, dash, high = text.strip().partition("-")
    if not (text.isascii() and low.isdigit() and (high.isdigit() or not dash)):
        raise PlyError(f"plies {text!r} are not a ply or a range LO-HI, like 8 or 8-12")
    first, last = int(low), int(high or low)
    if first > last:
        raise PlyError(f"plies {text!r}: the range's first ply is above its last")
    return range(first, last + 1)


def slices(book: Book, plies: Iterable[int], size: int = SLICE) -> Iterator[Slice]:
    """The book's positions at ``plies`` (checked, ``plies_of``), a slice at a time."""
    board, root = book.board, book.info.root
    if board.is_wide:
        from solver.wide.packed import move_digits_of_keys
    else:
        from solver.packed import move_digits_of_keys

    for ply in plies:
        for keys, scores, best, move_scores in _stored(book, ply, size):
            digits, _ = move_digits_of_keys(keys, root, board)
            yield Slice(ply, keys, digits[:, :ply], scores, best, move_scores)


def _stored(book: Book, ply: int, size: int):
    """``(keys, scores, best, move scores)`` of each slice of ``ply``: from the ply's arrays
    (a book reads its rows into them at open), else, where neither best moves nor the
    children are there to derive them, each position looked up as ``Book.get`` does."""
    for start in range(0, book.count_by_ply().get(ply, 0), size):
        keys, scores, best, move_scores = book.slice_of(ply, start, start + size)
        yield (keys, scores, best, move_scores) if best is not None else _looked_up(book, keys)


def _looked_up(book: Book, keys: np.ndarray):
    """A slice's arrays from ``Book.get`` of each key's move string (the slow path)."""
    board = book.board
    if board.is_wide:
        from solver.wide.packed import moves_of_keys
    else:
        from solver.packed import moves_of_keys

    looked = [book.get(moves) for moves in moves_of_keys(keys, book.info.root, board)]
    found = [e for e in looked if e is not None]
    if len(found) < len(looked):
        raise CorruptBookError(f"the book {book.db!r} lacks a position that it stores")
    scores = np.array([e.score for e in found], dtype=np.int8)
    best = np.array(
        [sum(1 << (c - 1) for c in e.best_moves) for e in found], dtype=board.column_set_type
    )
    rows = [e.move_scores for e in found if e.move_scores is not None]
    if len(rows) < len(found):
        return keys, scores, best, None
    move_scores = np.array(
        [[FULL_COLUMN if s is None else s + SCORE_OFFSET for s in row] for row in rows],
        dtype=np.uint8,
    )
    return keys, scores, best, move_scores.reshape(-1, board.width)


def mirrored(part: Slice, board: Board) -> Slice:
    """The mirror images of ``part``'s positions that differ from their own: what the book
    leaves out.  Each move string is its pair's, mirrored."""
    if board.is_wide:  # (n, 2) rows of two words
        keys = wide_cells.mirror(board, wide_cells.of_rows(part.keys)).T
        other = (keys != part.keys).any(axis=1)
    else:
        keys = board.mirror_bits(part.keys)
        other = keys != part.keys
    digits = part.digits[other]
    return Slice(
        part.ply,
        keys[other],
        np.where(digits > 0, board.width + 1 - digits, 0).astype(np.uint8),
        part.scores[other],
        _reversed_bits(board)[part.best[other]],
        None if part.move_scores is None else part.move_scores[other, ::-1],
    )


@cache
def _reversed_bits(board: Board) -> np.ndarray:
    """Best-move bits -> the same columns mirrored."""
    width = board.width
    return np.array(
        [
            sum(1 << (width - 1 - c) for c in range(width) if bits >> c & 1)
            for bits in range(1 << width)
        ],
        dtype=board.column_set_type,
    )


def cells(part: Slice, board: Board, blank: bytes = b".") -> np.ndarray:
    """``(n, cells)`` ASCII: each position's cells column by column from the bottom
    (a1..a6, b1..b6, ... on 7x6), ``x`` for the first player, ``o`` the second, ``blank``."""
    current, mask = boards_of(part, board)
    first = current if part.ply % 2 == 0 else current ^ mask
    # The bits of the board's cells, in that order, picked from each key's 64 bits (or 128:
    # a wide board's (n, 2) rows, low word first, are its bits in order as bytes too).
    at = np.array(
        [col * board.h1 + row for col in range(board.width) for row in range(board.height)]
    )
    size = 16 if board.is_wide else 8
    stones = np.unpackbits(mask.view(np.uint8).reshape(-1, size), axis=1, bitorder="little")
    firsts = np.unpackbits(first.view(np.uint8).reshape(-1, size), axis=1, bitorder="little")
    return np.frombuffer(blank + b"ox", np.uint8)[stones[:, at] + firsts[:, at]]


def boards_of(part: Slice, board: Board) -> tuple[np.ndarray, np.ndarray]:
    """``(current, mask)`` of each position of ``part``: uint64 arrays, or ``(n, 2)`` rows
    on a board past 64 bits."""
    if not board.is_wide:
        return walker(board).boards_of_keys(part.keys)
    current, mask = wide_cells.boards_of_keys(board, wide_cells.of_rows(part.keys))
    return np.ascontiguousarray(current.T), np.ascontiguousarray(mask.T)


def entries(book: Book, ply: int | Iterable[int] | None = None) -> Iterator[BookEntry]:
    """``Book.entries``: each stored position as a ``BookEntry``, a slice at a time."""

    board = book.board
    best_of = codes(board).best_of
    for part in slices(book, plies_of(book, ply)):
        width = part.ply
        text = (part.digits + DIGIT).tobytes().decode("ascii")
        moves = (
            [text[i : i + width] for i in range(0, width * part.size, width)]
            if width
            else [""] * part.size
        )
        scores = part.scores.tolist()
        move_scores: Iterator[tuple[object, ...] | None]
        if part.move_scores is None:
            move_scores = repeat(None)
        else:  # the columns of scores zipped into rows: the tuples are made in C
            move_scores = zip(
                *(SCORE_OBJECTS[part.move_scores[:, col]].tolist() for col in range(board.width)),
                strict=True,
            )
        yield from map(
            new_entry,
            repeat(BookEntry),
            zip(
                moves,
                repeat(part.ply),
                scores,
                np.sign(part.scores).tolist(),
                map(best_of.__getitem__, part.best.tolist()),
                move_scores,
                repeat(board),
            ),
        )

"""Cells past 64 bits in numpy: what ``implied`` asks of ``(n, 2)`` keys, with no numba.

A set of cells is a pair ``(low, high)`` of uint64 arrays of one shape, as
``solver.wide._words`` pairs words in numba; readers never load numba, so
the few operations that what the stones say needs (shifts by a board's
constants, a sum with its carry, the winning cells, a key's stones) are
written again here over arrays.  The same expressions as the one-word
``Board.winning_cells`` and ``keys.Walker.boards_of_keys``: each names its
twin.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from solver.bitboard import Board

WORD = (1 << 64) - 1
_U = np.uint64

Pair = tuple[np.ndarray, np.ndarray]


def constant(bits: int) -> tuple[np.uint64, np.uint64]:
    """A Python integer of at most 128 bits as ``(low, high)`` numpy words."""
    return _U(bits & WORD), _U(bits >> 64)


def of_rows(rows: np.ndarray) -> Pair:
    """``(n, 2)`` key rows as a pair of contiguous word arrays."""
    return np.ascontiguousarray(rows[:, 0]), np.ascontiguousarray(rows[:, 1])


def shl(a: Pair, s: int) -> Pair:
    """``a << s`` (``s`` a Python int in 0..127), the bits past 128 dropped."""
    low, high = a
    if s >= 64:
        return np.zeros_like(low), low << _U(s - 64)
    if s == 0:
        return a
    return low << _U(s), (high << _U(s)) | (low >> _U(64 - s))


def shr(a: Pair, s: int) -> Pair:
    """``a >> s`` (``s`` a Python int in 0..127)."""
    low, high = a
    if s >= 64:
        return high >> _U(s - 64), np.zeros_like(high)
    if s == 0:
        return a
    return (low >> _U(s)) | (high << _U(64 - s)), high >> _U(s)


def and_(a: Pair, b) -> Pair:
    return a[0] & b[0], a[1] & b[1]


def or_(a: Pair, b) -> Pair:
    return a[0] | b[0], a[1] | b[1]


def andnot(a: Pair, b) -> Pair:
    """``a & ~b``."""
    return a[0] & ~b[0], a[1] & ~b[1]


def add(a: Pair, b) -> Pair:
    """``a + b`` modulo 2**128: where the low sum wraps it is below an addend, a carry."""
    low = a[0] + b[0]
    return low, a[1] + b[1] + (low < a[0]).astype(np.uint64)


def sub(a: Pair, b) -> Pair:
    """``a - b`` modulo 2**128: a borrow where the low word goes below the subtrahend."""
    return a[0] - b[0], a[1] - b[1] - (a[0] < b[0]).astype(np.uint64)


def nonzero(a: Pair) -> np.ndarray:
    return (a[0] | a[1]) != 0


def several(a: Pair) -> np.ndarray:
    """Whether each item holds two cells or more (``a & (a - 1)`` is not empty)."""
    return nonzero(and_(a, sub(a, (_U(1), _U(0)))))


def popcount(a: Pair) -> np.ndarray:
    return np.bitwise_count(a[0]) + np.bitwise_count(a[1])


def winning_cells(board: Board, stones: Pair, mask: Pair) -> Pair:
    """The empty cells that would complete a four of ``stones`` (twin of the one-word
    ``Board.winning_cells``; in numba, ``solver.wide._bits.winning_cells``)."""
    found = and_(and_(shl(stones, 1), shl(stones, 2)), shl(stones, 3))  # three stones below
    for shift in (board.h1, board.height, board.h1 + 1):  # horizontal, both diagonals
        up, down = shl(stones, shift), shr(stones, shift)
        up2, down2 = shl(up, shift), shr(down, shift)
        found = or_(found, and_(and_(up, up2), or_(shl(up2, shift), down)))
        found = or_(found, and_(and_(down, down2), or_(up, shr(down2, shift))))
    return andnot(and_(found, constant(board.all_cells)), mask)


@cache
def _smears(board: Board) -> tuple[tuple[int, tuple[np.uint64, np.uint64]], ...]:
    """``(shift, the bits of each column that a shift by it keeps inside the column)``, as
    ``keys.Walker``'s."""
    return tuple(
        (shift, constant(board.bottom * ((1 << (board.h1 - shift)) - 1)))
        for shift in (1, 2, 4, 8)
        if shift < board.h1
    )


def boards_of_keys(board: Board, keys: Pair) -> tuple[Pair, Pair]:
    """``(current, mask)`` of each key, as ``keys.Walker.boards_of_keys`` (its twin): one
    more than a column of ``h`` stones is ``2**h + stones``, its top bit the first empty
    cell; every bit under it set, then shifted down one, is the column's mask."""
    top = add(keys, constant(board.bottom))  # (no column carries into the next)
    smears = _smears(board)
    for shift, inside in smears:
        top = or_(top, and_(shr(top, shift), inside))
    mask = and_(shr(top, 1), smears[0][1])
    return sub(keys, mask), mask


def columns(board: Board, cells: Pair) -> np.ndarray:
    """The set of columns (bit ``c`` for column ``c``) that holds any of each item's
    ``cells``, as ``implied._columns`` (its twin): a column's cells plus all ones carry into
    the bit above them if any is set."""
    tops = and_(add(cells, constant(board.all_cells)), constant(board.bottom << board.height))
    out = np.zeros(len(cells[0]), board.column_set_type)
    for col in range(board.width):
        at = col * board.h1 + board.height
        word, bit = (tops[0], at) if at < 64 else (tops[1], at - 64)
        out |= ((word >> _U(bit)) & _U(1)).astype(out.dtype) << col
    return out

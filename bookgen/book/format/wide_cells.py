"""Cells past 64 bits in numpy: what ``implied`` asks of ``(n, 2)`` keys, with no numba.

A set of cells is a pair of words ``(low, high)``, as ``solver.wide._words``
pairs them in numba, here rows 0 and 1 of a ``(2, n)`` uint64 array; readers never load numba, so
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

# A set of cells a position: a ``(2, n)`` uint64 array, row 0 the low words, row 1 the high.
# One array, not two: ``and``, ``or`` and most of a shift are then one numpy call, not two
# (a block's 2,048 positions cost about a call's overhead an operation).
Pair = np.ndarray


def constant(bits: int) -> np.ndarray:
    """A Python integer of at most 128 bits as a ``(2, 1)`` pair, which broadcasts."""
    return np.array([[bits & WORD], [bits >> 64]], dtype=np.uint64)


def of_rows(rows: np.ndarray) -> Pair:
    """``(n, 2)`` key rows as a ``(2, n)`` pair."""
    return np.ascontiguousarray(rows.T)


def shl(a: Pair, s: int) -> Pair:
    """``a << s`` (``s`` a Python int in 0..127), the bits past 128 dropped."""
    if s == 0:
        return a
    if s >= 64:
        out = np.zeros_like(a)
        np.left_shift(a[0], _U(s - 64), out=out[1])
        return out
    out = a << _U(s)
    out[1] |= a[0] >> _U(64 - s)
    return out


def shr(a: Pair, s: int) -> Pair:
    """``a >> s`` (``s`` a Python int in 0..127)."""
    if s == 0:
        return a
    if s >= 64:
        out = np.zeros_like(a)
        np.right_shift(a[1], _U(s - 64), out=out[0])
        return out
    out = a >> _U(s)
    out[0] |= a[1] << _U(64 - s)
    return out


def add(a: Pair, b: Pair) -> Pair:
    """``a + b`` modulo 2**128: where the low sum wraps it is below an addend, a carry."""
    out = a + b
    out[1] += out[0] < a[0]
    return out


def sub(a: Pair, b: Pair) -> Pair:
    """``a - b`` modulo 2**128: a borrow where the low word goes below the subtrahend."""
    out = a - b
    out[1] -= a[0] < b[0]
    return out


def nonzero(a: Pair) -> np.ndarray:
    return np.logical_or(a[0], a[1])


_ONE = constant(1)


def several(a: Pair) -> np.ndarray:
    """Whether each item holds two cells or more (``a & (a - 1)`` is not empty)."""
    return nonzero(a & sub(a, _ONE))


def popcount(a: Pair) -> np.ndarray:
    return np.bitwise_count(a).sum(axis=0, dtype=np.int64)


def winning_cells(board: Board, stones: Pair, mask: Pair) -> Pair:
    """The empty cells that would complete a four of ``stones`` (twin of the one-word
    ``Board.winning_cells``; in numba, ``solver.wide._bits.winning_cells``)."""
    found = shl(stones, 1) & shl(stones, 2) & shl(stones, 3)  # three stones below
    for shift in (board.h1, board.height, board.h1 + 1):  # horizontal, both diagonals
        up, down = shl(stones, shift), shr(stones, shift)
        up2, down2 = shl(up, shift), shr(down, shift)
        found |= up & up2 & (shl(up2, shift) | down)
        found |= down & down2 & (up | shr(down2, shift))
    return found & (constant(board.all_cells) & ~mask)


@cache
def _smears(board: Board) -> tuple[tuple[int, np.ndarray], ...]:
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
        top |= shr(top, shift) & inside
    mask = shr(top, 1) & smears[0][1]
    return sub(keys, mask), mask


def columns(board: Board, cells: Pair) -> np.ndarray:
    """The set of columns (bit ``c`` for column ``c``) that holds any of each item's
    ``cells``, as ``implied._columns`` (its twin): a column's cells plus all ones carry into
    the bit above them if any is set."""
    tops = add(cells, constant(board.all_cells)) & constant(board.bottom << board.height)
    out = np.zeros(cells.shape[1], board.column_set_type)
    for col in range(board.width):
        at = col * board.h1 + board.height
        word, bit = (tops[0], at) if at < 64 else (tops[1], at - 64)
        out |= ((word >> _U(bit)) & _U(1)).astype(out.dtype) << col
    return out


def mirror(board: Board, bits: Pair) -> Pair:
    """The same cells with columns reversed (column 1 <-> width), of boards or keys: twin of
    the one-word ``Board.mirror_bits`` (in numba, ``solver.wide._bits.mirror``).  A column
    is at most 32 bits, so each is one word, taken out and put in its mirror's place."""
    column = constant((1 << board.h1) - 1)
    out = np.zeros_like(bits)
    for col in range(board.width):
        out |= shl(shr(bits, col * board.h1) & column, (board.width - 1 - col) * board.h1)
    return out

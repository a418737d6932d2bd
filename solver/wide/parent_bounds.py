"""Parent bounds past 64 bits: the two-word twins of ``solver.parent_bounds``' kernels.

The same rule (a child scores at least its parent's score negated, exactly
that after one of the parent's best moves) over keys of two words: a key is
a pair ``(low, high)`` (``_words``), a list of keys an ``(n, 2)`` array
(``pairs``), searched by a binary search of the parents' rows.  Loaded only
where a board past 64 bits is built (``Parents.bounds`` asks for it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bitboard import Board
from ._words import NONE, ONE, ZERO, add, and_, is_zero, shl, words, xor
from .packed import _column, canonical, decode
from .pairs import find, ints_of, pairs_of


@njit(cache=True, inline="always")
def _parent(board, key, col):
    """``(canonical parent key, the move in the parent's orientation)`` that leads to
    ``key`` through column ``col``, or ``(NONE, -1)`` when the column's top stone is not
    the last mover's: twin of ``solver.parent_bounds._parent``."""
    current, mask, _ = decode(board, key)
    last = xor(current, mask)  # the stones of the player who just moved
    column = _column(board, mask, col)  # (a mask has no sentinel bit)
    top = shl(((column + ONE) >> ONE, ZERO), np.uint64(col) * board.h1)  # its top stone
    if is_zero(top) or is_zero(and_(last, top)):
        return NONE, -1
    raw = add(xor(last, top), xor(mask, top))  # taken back: the last mover is to move
    parent = canonical(board, raw)
    same = parent[0] == raw[0] and parent[1] == raw[1]
    return parent, col if same else board.width - 1 - col


@njit(cache=True)
def _parents_of(board, key, out):
    """Twin of ``solver.parent_bounds._parents_of``: ``out`` is ``(width, 2)`` rows."""
    count = 0
    for col in range(board.width):
        parent, move = _parent(board, key, col)
        if move >= 0:
            out[count, 0], out[count, 1] = parent
            count += 1
    return count


@njit(cache=True)
def parent_bounds(board, keys, parent_keys, parent_scores, parent_best, low, exact):
    """Twin of ``solver.parent_bounds._parent_bounds``: ``keys`` and ``parent_keys`` are
    ``(n, 2)`` rows, the parents' sorted; ``low`` and ``exact`` come filled with
    ``NO_BOUND`` and False (``Parents.bounds``: that module imports this one, not back)."""
    for i in range(len(keys)):
        for col in range(board.width):
            parent, move = _parent(board, (keys[i, 0], keys[i, 1]), col)
            if move < 0:
                continue
            j = find(parent_keys, parent)
            if j < 0:
                continue
            bound = -parent_scores[j]
            if bound > low[i]:  # noqa: PLR1730 - as the one-word kernel
                low[i] = bound
            if parent_best[j] >> move & 1:
                exact[i] = True


def parents_of(key: int, board: Board) -> np.ndarray:
    """The sorted canonical keys, as ``(n, 2)`` rows, of the positions one move before
    ``key`` (a Python integer): twin of ``solver.parent_bounds.parents_of``."""
    out = np.empty((board.width, 2), dtype=np.uint64)
    count = _parents_of(board, words(key), out)
    return pairs_of(sorted(set(ints_of(out[:count]))))

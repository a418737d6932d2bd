"""The compiled twin of ``keys.key_of``: a lookup's walk from moves to a key, at numba speed.

A lookup in Python spends most of its time walking the move string and
mirroring the key (``keys``).  These kernels do both, and the binary search,
in a fraction of that.  They take the moves as ASCII bytes: numba types a
``bytes`` argument in a few hundred nanoseconds, a ``str`` in microseconds.
At a parent ply, ``locate_parent`` also reads the position's seven move
scores from its children's scores: seven more searches, a few microseconds,
where deriving them with numpy for a chunk of the ply takes 30 ms on the
chunk's first lookup (the AI's answer from the book must stay under 0.1 ms).

The reader uses them only once the process has numba loaded (the solver
does, so a player or a server has them): importing numba and loading these
kernels takes about 0.6 s, more than a one-off query spends in all.  The
Python walk stays, and gives the same answers (``tests/test_compiled_keys.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver._bits import has_four, mirror
from solver.bitboard import CELLS

from .keys import ABSENT, NOT_A_GAME
from .plies import FULL_COLUMN, SCORE_OFFSET

_ONE = np.uint64(1)
_SIX_CELLS = np.uint64(0x3F)   # a column's playable cells, below its sentinel bit
_FIRST_COLUMN = 49             # b"1"


@njit(cache=True, inline="always")
def _board(moves, start, end):
    """``(current, mask, playable)`` after ``moves[start:end]`` (ASCII digits 1-7)."""
    current = np.uint64(0)
    mask = np.uint64(0)
    for i in range(start, end):
        col = np.int64(moves[i]) - _FIRST_COLUMN
        if col < 0 or col > 6:
            return current, mask, False
        shift = np.uint64(7 * col)
        stone = (mask + (_ONE << shift)) & (_SIX_CELLS << shift)   # 0 when the column is full
        if stone == 0:
            return current, mask, False
        current ^= mask
        mask |= stone
    return current, mask, True


@njit(cache=True, inline="always")
def _place(keys, key):
    """Where ``key``'s canonical form is in sorted ``keys``: ``2 * index + 1`` when that
    is its mirror image, ``2 * index`` when it is itself; ``ABSENT`` if it is not there."""
    other = mirror(key)
    flipped = 0
    if other < key:
        key, flipped = other, 1
    at = np.searchsorted(keys, key)
    if at == len(keys) or keys[at] != key:
        return ABSENT
    return 2 * at + flipped


@njit(cache=True)
def locate(moves, keys):
    """Where the position after ``moves`` (bytes) is in a ply's sorted canonical ``keys``,
    as ``_place`` says, or ``NOT_A_GAME``."""
    current, mask, playable = _board(moves, 0, len(moves))
    if not playable:
        return NOT_A_GAME
    return _place(keys, current + mask)


@njit(cache=True)
def keys_of_many(text, ends):
    """The key after each string of ``text`` (ASCII bytes, the strings joined; string i
    ends at ``ends[i]``), -1 where one is not playable."""
    keys = np.empty(len(ends), dtype=np.int64)
    start = 0
    for i in range(len(ends)):
        current, mask, playable = _board(text, start, ends[i])
        keys[i] = np.int64(current + mask) if playable else -1
        start = ends[i]
    return keys


@njit(cache=True)
def locate_parent(moves, keys, scores, child_keys, child_scores):
    """``locate`` at a ply whose children the book holds, with the position's move scores
    read from them: ``(where, packed, best)``.  ``packed`` holds the seven packed move
    scores in the asker's orientation (byte c, little-endian: column c + 1), ``best``
    the best-move bits in that orientation; ``best`` is -1 if a child the book must
    hold is missing, 0 if no move scores the position's score: a damaged book."""
    current, mask, playable = _board(moves, 0, len(moves))
    if not playable:
        return NOT_A_GAME, 0, 0
    where = _place(keys, current + mask)
    if where < 0:
        return where, 0, 0
    ply = len(moves)
    own = np.int64(scores[where >> 1])
    opponent = current ^ mask
    packed = 0
    best = 0
    for col in range(7):
        shift = np.uint64(7 * col)
        stone = (mask + (_ONE << shift)) & (_SIX_CELLS << shift)
        if stone == 0:
            byte = FULL_COLUMN
        elif has_four(current | stone):
            byte = SCORE_OFFSET + (CELLS + 1 - ply) // 2   # a win with this stone
        elif ply + 1 == CELLS:
            byte = SCORE_OFFSET   # the last cell, and no four: a draw
        else:
            child = opponent + (mask | stone)
            mirrored = mirror(child)
            child = min(child, mirrored)
            found = np.searchsorted(child_keys, child)
            if found == len(child_keys) or child_keys[found] != child:
                return where, 0, -1
            byte = SCORE_OFFSET - np.int64(child_scores[found])
        packed |= byte << (8 * col)
        if byte == own + SCORE_OFFSET:
            best |= 1 << col
    return where, packed, best

"""The compiled twin of ``keys.key_of``: a lookup's walk from moves to a key, at numba speed.

A lookup in Python spends most of its time walking the move string and
mirroring the key (``keys``).  These kernels do both, and the binary search,
in a fraction of that.  They take the moves as ASCII bytes: numba types a
``bytes`` argument in a few hundred nanoseconds, a ``str`` in microseconds.

The reader uses them only once the process has numba loaded (the solver
does, so a player or a server has them): importing numba and loading these
kernels takes about 0.6 s, more than a one-off query spends in all.  The
Python walk stays, and gives the same answers (``tests/test_compiled_keys.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver._bits import mirror

from .keys import ABSENT, NOT_A_GAME

_ONE = np.uint64(1)
_SIX_CELLS = np.uint64(0x3F)   # a column's playable cells, below its sentinel bit
_FIRST_COLUMN = 49             # b"1"


@njit(cache=True, inline="always")
def _walk(moves, start, end):
    """The key after ``moves[start:end]`` (ASCII digits 1-7), or -1 if it is not playable."""
    current = np.uint64(0)
    mask = np.uint64(0)
    for i in range(start, end):
        col = np.int64(moves[i]) - _FIRST_COLUMN
        if col < 0 or col > 6:
            return -1
        shift = np.uint64(7 * col)
        stone = (mask + (_ONE << shift)) & (_SIX_CELLS << shift)   # 0 when the column is full
        if stone == 0:
            return -1
        current ^= mask
        mask |= stone
    return np.int64(current + mask)


@njit(cache=True)
def locate(moves, keys):
    """Where the position after ``moves`` (bytes) is in a ply's sorted canonical ``keys``:
    ``2 * index + 1`` when the stored key is its mirror image's, ``2 * index`` when it
    is its own; ``ABSENT`` or ``NOT_A_GAME`` otherwise."""
    walked = _walk(moves, 0, len(moves))
    if walked < 0:
        return NOT_A_GAME
    key = np.uint64(walked)
    other = mirror(key)
    flipped = 0
    if other < key:
        key, flipped = other, 1
    at = np.searchsorted(keys, key)
    if at == len(keys) or keys[at] != key:
        return ABSENT
    return 2 * at + flipped


@njit(cache=True)
def keys_of_many(text, ends):
    """The key after each string of ``text`` (ASCII bytes, the strings joined; string i
    ends at ``ends[i]``), -1 where one is not playable."""
    keys = np.empty(len(ends), dtype=np.int64)
    start = 0
    for i in range(len(ends)):
        keys[i] = _walk(text, start, ends[i])
        start = ends[i]
    return keys

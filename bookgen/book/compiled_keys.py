"""The compiled twin of ``keys.key_of``: a lookup's walk from moves to a key, at numba speed.

A lookup in Python spends most of its time walking the move string and
mirroring the key (``keys``).  These kernels do both, and the binary search,
in a fraction of that.  They take the moves as ASCII bytes: numba types a
``bytes`` argument in a few hundred nanoseconds, a ``str`` in microseconds.
At a parent ply, ``locate_parent`` also reads the position's seven move
scores from its children's scores: seven more searches, about a microsecond,
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
from .plies import NO_MOVE, entry_code   # baked into the cached kernels (see plies)

_READ = 127                    # a column whose score a child gives: it is read below
_entry_code = njit(inline="always")(entry_code)

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


@njit(cache=True, inline="always")
def _seven_floors(keys, q0, q1, q2, q3, q4, q5, q6):
    """For each query, the last index of sorted ``keys`` (non-empty) whose key is at most
    it (0 if none is).  The seven binary searches run in lockstep: each step's seven
    loads are independent, so their cache misses overlap, where seven searches one
    after another wait for each miss in turn (2.7 against 1.0 us on a ply of 2 million)."""
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = 0
    n = len(keys)
    while n > 1:
        half = n >> 1
        b0 = b0 + half if keys[b0 + half] <= q0 else b0
        b1 = b1 + half if keys[b1 + half] <= q1 else b1
        b2 = b2 + half if keys[b2 + half] <= q2 else b2
        b3 = b3 + half if keys[b3 + half] <= q3 else b3
        b4 = b4 + half if keys[b4 + half] <= q4 else b4
        b5 = b5 + half if keys[b5 + half] <= q5 else b5
        b6 = b6 + half if keys[b6 + half] <= q6 else b6
        n -= half
    return b0, b1, b2, b3, b4, b5, b6


_LANES = 32   # searches in lockstep in floors_many: 2x numpy's searchsorted at 8 to 32, best at 32


@njit(cache=True)
def floors_many(keys, queries):
    """For each query, the last index of sorted ``keys`` (non-empty) whose key is at most
    it (0 if none is): ``_seven_floors`` for many, ``_LANES`` at a time, for ``get_many``."""
    found = np.empty(len(queries), dtype=np.int64)
    lanes = np.zeros(_LANES, dtype=np.int64)
    for start in range(0, len(queries), _LANES):
        count = min(_LANES, len(queries) - start)
        lanes[:] = 0
        n = len(keys)
        while n > 1:
            half = n >> 1
            for j in range(count):
                if keys[lanes[j] + half] <= queries[start + j]:
                    lanes[j] += half
            n -= half
        found[start:start + count] = lanes[:count]
    return found


@njit(cache=True)
def locate_parent(moves, keys, scores, child_keys, child_scores):
    """``locate`` at a ply whose children the book holds, with the position's entry read
    from them: ``(where, code, score of column 1, ..., score of column 7)``.  ``code`` is
    the ``entry_code`` of its score and best moves, and the scores are its move scores
    (``NO_MOVE`` for a full column), both in the asker's orientation; ``code`` is -1 if
    a child the book must hold is missing, and has no best move if none scores the
    position's score: a damaged book.  One tuple of small integers, so that the
    reader builds its answer with nothing decoded."""
    current, mask, playable = _board(moves, 0, len(moves))
    if not playable:
        return NOT_A_GAME, 0, 0, 0, 0, 0, 0, 0, 0
    where = _place(keys, current + mask)
    if where < 0:
        return where, -1, 0, 0, 0, 0, 0, 0, 0
    ply = len(moves)
    own = np.int64(scores[where >> 1])
    opponent = current ^ mask
    # Each column's move score where no child is read, else the child's canonical key.
    fixed = np.full(7, NO_MOVE, dtype=np.int64)
    wanted = np.zeros(7, dtype=np.uint64)
    reads = False   # at ply 41 no child is read: each move wins or fills the board
    for col in range(7):
        shift = np.uint64(7 * col)
        stone = (mask + (_ONE << shift)) & (_SIX_CELLS << shift)
        if stone == 0:
            continue   # a full column
        if has_four(current | stone):
            fixed[col] = (CELLS + 1 - ply) // 2   # a win with this stone
        elif ply + 1 == CELLS:
            fixed[col] = 0   # the last cell, and no four: a draw
        else:
            child = opponent + (mask | stone)
            wanted[col] = min(child, mirror(child))
            fixed[col] = _READ
            reads = True
    if reads and len(child_keys) == 0:
        return where, -1, 0, 0, 0, 0, 0, 0, 0
    found = (_seven_floors(child_keys, wanted[0], wanted[1], wanted[2], wanted[3],
                           wanted[4], wanted[5], wanted[6])
             if reads else (0, 0, 0, 0, 0, 0, 0))
    best = 0
    for col in range(7):
        if fixed[col] == _READ:
            at = found[col]
            if child_keys[at] != wanted[col]:
                return where, -1, 0, 0, 0, 0, 0, 0, 0
            fixed[col] = -np.int64(child_scores[at])
        if fixed[col] == own:
            best |= 1 << col
    return (where, _entry_code(own, best), fixed[0], fixed[1], fixed[2], fixed[3],
            fixed[4], fixed[5], fixed[6])

"""The compiled twin of ``keys.key_of``: a lookup's walk from moves to a key, at numba speed.

A lookup in Python spends most of its time walking the move string and
mirroring the key (``keys``).  These kernels do both, and the binary search,
in a fraction of that.  They take the moves as ASCII bytes: numba types a
``bytes`` argument in a few hundred nanoseconds, a ``str`` in microseconds.
At a parent ply, ``locate_parent`` also reads the position's move scores
from its children's scores: seven more searches on 7x6, about a microsecond
(the Python lookup, ``family.Family``, takes a few).

``Book.open`` loads them (``load``) in a thread while it decodes the book,
so that every lookup runs compiled from the first: importing numba and
loading them from its cache takes about 0.3 s, beside the decoding's 0.2 s
(compiling them, once an install, about 5 s).  A one-off command opens its
book with ``compiled=False`` and walks in Python, as does any reader that
cannot load numba: the Python walk gives the same answers
(``tests/test_compiled_keys.py``, and ``tests/test_shipped_book.py`` in a
fresh process).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit
from numba.np.unsafe.ndarray import to_fixed_tuple

from solver._bits import mirror
from solver._kernel_cache import SOLVER, drop_stale, fingerprint
from solver.packed import MOVE_FULL, MOVE_READ, move_rule

from ..format.keys import ABSENT, NOT_A_GAME
from ..format.scores import FULL_COLUMN_SCORE, entry_code  # baked into the cached kernels

_HERE = Path(__file__).resolve().parent
# Kernels inline code and constants from the solver, the format and this folder.
drop_stale(_HERE, fingerprint(SOLVER, _HERE.parent / "format", _HERE))

_READ = 127  # a column whose score a child gives: it is read below
_entry_code = njit(inline="always")(entry_code)

_ONE = np.uint64(1)
_FIRST_COLUMN = 49  # b"1"


@njit(cache=True, inline="always")
def _stones(board, moves, start, end):
    """``(current, mask, playable)`` after ``moves[start:end]`` (ASCII column digits)."""
    current = np.uint64(0)
    mask = np.uint64(0)
    for i in range(start, end):
        col = np.int64(moves[i]) - _FIRST_COLUMN
        if col < 0 or col >= board.width:
            return current, mask, False
        shift = np.uint64(col) * board.h1
        stone = (mask + (_ONE << shift)) & (board.column_cells << shift)  # 0 when full
        if stone == 0:
            return current, mask, False
        current ^= mask
        mask |= stone
    return current, mask, True


@njit(cache=True, inline="always")
def _place(board, keys, key):
    """Where ``key``'s canonical form is in sorted ``keys``: ``2 * index + 1`` when that
    is its mirror image, ``2 * index`` when it is itself; ``ABSENT`` if it is not there."""
    other = mirror(board, key)
    flipped = 0
    if other < key:
        key, flipped = other, 1
    at = np.searchsorted(keys, key)
    if at == len(keys) or keys[at] != key:
        return ABSENT
    return 2 * at + flipped


@njit(cache=True)
def locate(board, moves, keys):
    """Where the position after ``moves`` (bytes) is in a ply's sorted canonical ``keys``,
    as ``_place`` says, or ``NOT_A_GAME``."""
    current, mask, playable = _stones(board, moves, 0, len(moves))
    if not playable:
        return NOT_A_GAME
    return _place(board, keys, current + mask)


@njit(cache=True)
def keys_of_many(board, text, ends):
    """The key after each string of ``text`` (ASCII bytes, the strings joined; string i
    ends at ``ends[i]``), and whether it is playable (else its key means nothing)."""
    keys = np.empty(len(ends), dtype=np.uint64)
    usable = np.empty(len(ends), dtype=np.bool_)
    start = 0
    for i in range(len(ends)):
        current, mask, playable = _stones(board, text, start, ends[i])
        keys[i] = current + mask
        usable[i] = playable
        start = ends[i]
    return keys, usable


@njit(cache=True, inline="always")
def _lockstep_floors(keys, queries, found):
    """For each query, the last index of sorted ``keys`` (non-empty) whose key is at most
    it (0 if none is), into ``found``.  The binary searches run in lockstep: each step's
    loads are independent, so their cache misses overlap, where searches one after
    another wait for each miss in turn (2.7 against 1.0 us for seven on a ply of 2 million)."""
    found[:] = 0
    n = len(keys)
    while n > 1:
        half = n >> 1
        for j in range(len(queries)):
            if keys[found[j] + half] <= queries[j]:
                found[j] += half
        n -= half


@njit(cache=True, inline="always")
def lower_bound_from(keys, low, query):
    """The first index at or after ``low`` of sorted ``keys`` whose key is at least
    ``query``, for a ``query`` at least every key before ``low``: a galloping search, in
    steps that double from ``low``, then a binary one.  Queries in sorted order, each
    from the last one's answer, walk ``keys`` once, in cache."""
    count = len(keys)
    if low >= count or keys[low] >= query:
        return low
    step = 1
    high = low + 1
    while high < count and keys[high] < query:
        low = high
        step <<= 1
        high = low + step
    high = min(high, count)
    low += 1  # keys[low - 1] < query <= keys[high], or high == count
    while low < high:
        middle = (low + high) >> 1
        if keys[middle] < query:
            low = middle + 1
        else:
            high = middle
    return low


@njit(cache=True)
def lower_bounds(keys, queries):
    """``keys.searchsorted(queries)`` for sorted ``queries``: each search starts where the
    last ended (``lower_bound_from``), a third faster than numpy's on a ply's keys."""
    found = np.empty(len(queries), dtype=np.int64)
    low = 0
    for j in range(len(queries)):
        low = lower_bound_from(keys, low, queries[j])
        found[j] = low
    return found


@njit(cache=True)
def locate_parent(board, moves, keys, scores, child_keys, child_scores):
    """``locate`` at a ply whose children the book holds, with the position's entry read
    from them: ``(where, code, (score of column 1, ..., of the last column))``.  ``code``
    is the ``entry_code`` of its score and best moves, and the scores are its move scores
    (``FULL_COLUMN_SCORE`` for a full column), both in the asker's orientation; ``code`` is -1 if
    a child the book must hold is missing, and has no best move if none scores the
    position's score: a damaged book.  Small integers only, so that the reader builds
    its answer with nothing decoded."""
    fixed = np.full(board.width, FULL_COLUMN_SCORE, dtype=np.int64)
    current, mask, playable = _stones(board, moves, 0, len(moves))
    if not playable:
        return NOT_A_GAME, 0, to_fixed_tuple(fixed, board.width_literal)
    where = _place(board, keys, current + mask)
    if where < 0:
        return where, -1, to_fixed_tuple(fixed, board.width_literal)
    ply = len(moves)
    own = np.int64(scores[where >> 1])
    # Each column's move score where no child is read, else the child's canonical key.
    wanted = np.zeros(board.width, dtype=np.uint64)
    reads = False  # at the last ply but one no child is read: each move wins or fills
    for col in range(board.width):
        kind, score, child = move_rule(board, current, mask, ply, col)
        if kind == MOVE_FULL:
            continue
        if kind == MOVE_READ:
            wanted[col] = child
            fixed[col] = _READ
            reads = True
        else:
            fixed[col] = score
    if reads and len(child_keys) == 0:
        return where, -1, to_fixed_tuple(fixed, board.width_literal)
    found = np.zeros(board.width, dtype=np.int64)
    if reads:
        _lockstep_floors(child_keys, wanted, found)
    best = 0
    for col in range(board.width):
        if fixed[col] == _READ:
            at = found[col]
            if child_keys[at] != wanted[col]:
                return where, -1, to_fixed_tuple(fixed, board.width_literal)
            fixed[col] = -np.int64(child_scores[at])
        if fixed[col] == own:
            best |= 1 << col
    return where, _entry_code(own, best, board.width), to_fixed_tuple(fixed, board.width_literal)


def load(board) -> None:
    """Load every kernel above for ``board``'s books from numba's cache (compile them, the
    first time), with arrays of the types a book's plies have: a lookup then finds them
    loaded."""
    keys = np.ones(1, dtype=np.uint64)  # holds no key of b"": every search misses
    scores = np.zeros(1, dtype=np.int8)
    locate(board, b"", keys)
    locate_parent(board, b"", keys, scores, keys, scores)
    keys_of_many(board, b"", np.zeros(1, dtype=np.int64))
    lower_bounds(keys, keys)

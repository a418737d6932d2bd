"""What a parent's exact score proves about a child's.

A parent P scores the best of its children, negated, so each child Q has
``score(Q) >= -score(P)``, with equality when Q follows one of P's best
moves.  Over all of Q's parents (one for each column whose top stone is the
last mover's) this gives a lower bound, and often the exact score, before
any search.  The book's builder bounds a whole frontier batch this way; the
player bounds the one position just past its book.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .bitboard import STANDARD, Board
from .packed import U1, canonical, decode

# No parent known: nothing proven.  Below every score of every board (int8).
NO_BOUND = -128


class Bounds(NamedTuple):
    """Per key: the proven lower bound on its score, and whether it is exact."""

    low: np.ndarray  # int8, NO_BOUND when no parent is known
    exact: np.ndarray  # bool

    def known(self, i: int) -> tuple[int | None, bool]:
        """``(low, exact)`` of the ``i``-th key, as ``solve_position`` takes them."""
        if self.low[i] == NO_BOUND:
            return None, False
        return int(self.low[i]), bool(self.exact[i])


@njit(cache=True, inline="always")
def _parent(board, key, col):
    """``(canonical parent key, the move in the parent's orientation)`` that leads to
    ``key`` through column ``col``, or ``(0, -1)`` when the column's top stone is not
    the last mover's."""
    current, mask, _ = decode(board, key)
    last = current ^ mask  # the stones of the player who just moved
    shift = np.uint64(col) * board.h1
    column = (mask >> shift) & board.column_cells
    top = ((column + U1) >> U1) << shift  # the column's top stone, if any
    if top == 0 or not last & top:
        return np.uint64(0), -1
    raw = (last ^ top) + (mask ^ top)  # taken back: the last mover is to move
    parent = canonical(board, raw)
    return parent, col if parent == raw else board.width - 1 - col


@njit(cache=True)
def _parents_of(board, key, out):
    count = 0
    for col in range(board.width):
        parent, move = _parent(board, key, col)
        if move >= 0:
            out[count] = parent
            count += 1
    return count


@njit(cache=True)
def _parent_bounds(board, keys, parent_keys, parent_scores, parent_best, low, exact):
    for i in range(len(keys)):
        low[i] = NO_BOUND
        exact[i] = False
        for col in range(board.width):
            parent, move = _parent(board, keys[i], col)
            if move < 0:
                continue
            j = np.searchsorted(parent_keys, parent)
            if j == len(parent_keys) or parent_keys[j] != parent:
                continue
            bound = -parent_scores[j]
            if bound > low[i]:  # noqa: PLR1730 - kernel code keeps the compare it was benchmarked with
                low[i] = bound
            if parent_best[j] >> move & 1:
                exact[i] = True


def parents_of(key: int, board: Board = STANDARD) -> np.ndarray:
    """The sorted canonical keys of the positions one move before ``key``: ``(n, 2)`` rows
    past 64 bits (``wide.parent_bounds``)."""
    if board.is_wide:
        from .wide.parent_bounds import parents_of as wide_parents_of

        return wide_parents_of(key, board)
    out = np.empty(board.width, dtype=np.uint64)
    return np.unique(out[: _parents_of(board, np.uint64(key), out)])


class Parents(NamedTuple):
    """Exact entries one ply above some keys: sorted canonical keys, scores, best-move bits."""

    keys: np.ndarray  # uint64; past 64 bits ``(n, 2)`` rows (``solver.wide.pairs``)
    scores: np.ndarray  # int8
    best: np.ndarray  # uint8 (uint16 on width 9), bit c set when column c + 1 is best
    board: Board = STANDARD

    def bounds(self, keys: np.ndarray) -> Bounds:
        """What these entries prove about each of ``keys`` (any order, any orientation;
        ``(n, 2)`` rows past 64 bits)."""
        if self.board.is_wide:  # the two-word twin, which leaves unproven keys as it found them
            from .wide.parent_bounds import parent_bounds as kernel

            low = np.full(len(keys), NO_BOUND, dtype=np.int8)
            exact = np.zeros(len(keys), dtype=np.bool_)
        else:
            kernel = _parent_bounds
            low = np.empty(len(keys), dtype=np.int8)
            exact = np.empty(len(keys), dtype=np.bool_)
        kernel(
            self.board,
            np.ascontiguousarray(keys, dtype=np.uint64),
            self.keys,
            self.scores,
            self.best,
            low,
            exact,
        )
        return Bounds(low, exact)

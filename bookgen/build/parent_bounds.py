"""What the ply above already proves about a frontier position's score.

A book grown one ply deeper holds the exact scores of the frontier's
parents.  A parent P scores the best of its children, negated, so each child
Q has ``score(Q) >= -score(P)``, with equality when Q follows one of P's best
moves.  Over all of Q's parents (one for each column whose top stone is the
last mover's) this gives a lower bound, and often the exact score, before
any search: the frontier solve then runs in a narrower window, or only looks
for the best moves (``frontier.solve_frontier``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numba import njit

from solver.bitboard import CELLS, WIDTH
from solver.packed import GROUP, H1, U1, canonical, decode

if TYPE_CHECKING:
    from ..book.store import BookStore

NO_BOUND = -CELLS - 1  # no parent in the book: nothing known


class Bounds(NamedTuple):
    """Per frontier key: the proven lower bound on its score, and whether it is exact."""

    low: np.ndarray    # int8, NO_BOUND when no parent is known
    exact: np.ndarray  # bool

    def known(self, i: int) -> tuple[int | None, bool]:
        """``(low, exact)`` of the ``i``-th key, as ``solve_frontier`` takes them."""
        if self.low[i] == NO_BOUND:
            return None, False
        return int(self.low[i]), bool(self.exact[i])


@njit(cache=True)
def _parent_bounds(keys, parent_keys, parent_scores, parent_best, low, exact):
    for i in range(len(keys)):
        current, mask, _ = decode(keys[i])
        last = current ^ mask   # the stones of the player who just moved
        low[i] = NO_BOUND
        exact[i] = False
        for col in range(WIDTH):
            shift = np.uint64(col) * H1
            column = (mask >> shift) & (GROUP >> U1)
            top = ((column + U1) >> U1) << shift   # the column's top stone, if any
            if top == 0 or not last & top:
                continue
            # Take it back: the parent, with the last mover to move.
            key = (last ^ top) + (mask ^ top)
            parent = canonical(key)
            j = np.searchsorted(parent_keys, parent)
            if j == len(parent_keys) or parent_keys[j] != parent:
                continue
            bound = -parent_scores[j]
            if bound > low[i]:
                low[i] = bound
            move = col if parent == key else WIDTH - 1 - col  # the book's entry is canonical
            if parent_best[j] >> move & 1:
                exact[i] = True


class Parents(NamedTuple):
    """The book's entries one ply above the frontier: sorted keys, scores, best-move bits."""

    keys: np.ndarray    # uint64
    scores: np.ndarray  # int8
    best: np.ndarray    # uint8, bit c set when column c + 1 is best

    def bounds(self, keys: np.ndarray) -> Bounds:
        """What these entries prove about each of ``keys`` (frontier keys, any order)."""
        low = np.empty(len(keys), dtype=np.int8)
        exact = np.empty(len(keys), dtype=np.bool_)
        _parent_bounds(keys, self.keys, self.scores, self.best, low, exact)
        return Bounds(low, exact)


def read_parents(store: BookStore, ply: int) -> Parents | None:
    """The book's entries at ``ply - 1``, if it has any: a book grown one ply deeper."""
    keys, scores = store.scores_at(ply - 1)
    return Parents(keys, scores, store.best_at(ply - 1)) if len(keys) else None

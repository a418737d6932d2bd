"""``derive``'s kernel past 64 bits: one ply of negamax over keys of two words.

The same rule as one word (``solver.wide.packed.move_rule``, the twin of
``solver.packed.move_rule``) over ``(n, 2)`` rows of keys (``solver.wide``):
each child is found by a binary search of the children's rows.  Loaded only
by a build or a ``verify`` of a board past 64 bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.packed import MOVE_FULL, MOVE_READ
from solver.wide.packed import decode, move_rule
from solver.wide.pairs import find

from ..book.format.scores import FULL_COLUMN, SCORE_OFFSET
from ._negamax import best_bits


@njit(cache=True)
def derive_wide(board, parents, child_keys, child_scores, scores, best, move_scores, missing):
    """``derive._derive`` over pairs: ``parents``, ``child_keys`` and ``missing`` are rows."""
    for i in range(len(parents)):
        current, mask, ply = decode(board, (parents[i, 0], parents[i, 1]))
        top = -board.cells - 1
        missing[i, 0] = 0
        missing[i, 1] = 0
        for col in range(board.width):
            kind, value, child = move_rule(board, current, mask, ply, col)
            if kind == MOVE_FULL:
                move_scores[i, col] = FULL_COLUMN
                continue
            if kind == MOVE_READ:
                at = find(child_keys, child)
                if at < 0:
                    missing[i, 0] = child[0]  # keys are never 0 below the empty board's children
                    missing[i, 1] = child[1]
                else:
                    value = -np.int64(child_scores[at])
            move_scores[i, col] = value + SCORE_OFFSET
            top = max(top, value)
        scores[i] = top
        best[i] = best_bits(move_scores[i], top)

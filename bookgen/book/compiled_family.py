"""The compiled twin of ``family.derive_many`` (``compiled=True``): many parents' move scores.

numpy's ``derive_many`` makes a dozen passes over ``(n, width)`` arrays of
keys, boards and children.  Here one kernel lists the children to read and
the moves that read none (a full column, a four, the last cell), and one
reads them, with numpy's argsort between (numba's own is five times
slower).  The reads walk the ply below once, in key order, each search
starting where the last ended (``compiled_keys.lower_bounds``).  The
reader uses it once the compiled lookups are loaded; the answers are
numpy's, errors included (``tests/test_compiled_family.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.bitboard import Board
from solver.packed import canonical, child_key, decode, is_full_column

from .compiled_keys import lower_bound_from
from .family import FULL_COLUMN, SCORE_OFFSET, derive_many

_NOTHING_TO_READ = np.uint64(0)  # no child's key is 0, the empty board's
MISSING_CHILD = 1  # read_children's status: a child the ply below must hold is not there
NO_BEST_MOVE = 2  # and: a position's score is no move's score


@njit(cache=True)
def child_queries(board, keys, ply):
    """Each position's children to read, ``(queries, packed)``: ``queries`` (``n * width``,
    row by row) holds a child's canonical key where its score is read, else 0; ``packed``
    (``(n, width)`` bytes) the packed move score of each move that reads none."""
    width = board.width
    queries = np.zeros(len(keys) * width, dtype=np.uint64)
    packed = np.full((len(keys), width), FULL_COLUMN, dtype=np.uint8)
    win = SCORE_OFFSET + (board.cells + 1 - ply) // 2  # Board.win_score
    last = ply + 1 == board.cells  # no four with the last stone: a draw
    for i in range(len(keys)):
        current, mask, _ = decode(board, keys[i])
        for col in range(width):
            if is_full_column(board, mask, col):
                continue
            child, won = child_key(board, current, mask, col)
            if won:
                packed[i, col] = win
            elif last:
                packed[i, col] = SCORE_OFFSET
            else:
                queries[i * width + col] = canonical(board, child)
    return queries, packed


@njit(cache=True)
def read_children(queries, order, below_keys, below_scores, packed, own, best):
    """Fill ``packed`` with the scores of the children ``queries`` names (``order`` sorts
    them) and ``best`` with each position's best-move bits; 0, or what is wrong."""
    width = packed.shape[1]
    low = 0
    for k in range(len(order)):
        j = order[k]
        query = queries[j]
        if query == _NOTHING_TO_READ:
            continue
        low = lower_bound_from(below_keys, low, query)
        if low == len(below_keys) or below_keys[low] != query:
            return MISSING_CHILD
        packed[j // width, j % width] = SCORE_OFFSET - np.int64(below_scores[low])
    for i in range(len(own)):
        wanted = np.int64(own[i]) + SCORE_OFFSET
        bits = 0
        for col in range(width):
            if packed[i, col] == wanted:
                bits |= 1 << col
        if bits == 0:
            return NO_BEST_MOVE
        best[i] = bits
    return 0


def load(board: Board) -> None:
    """Load the kernels above for ``board``'s books, with arrays of a ply's types."""
    keys = np.zeros(0, dtype=np.uint64)
    scores = np.zeros(0, dtype=np.int8)
    derive_many(board, keys, scores, keys, scores, 0, compiled=True)

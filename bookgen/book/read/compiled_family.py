"""Many parents' move scores from their children's scores, compiled: ``derive_many``.

One kernel lists the children to read and the moves that read none (a full
column, a four, the last cell: ``solver.packed.move_rule``), and one reads
them, with numpy's argsort between (numba's own is five times slower).  The
reads walk the ply below once, in key order, each search starting where the
last ended (``compiled_keys.lower_bound_from``).  The answers are the plain
Python ``family.Family``'s, errors included (``tests/test_compiled_family.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.bitboard import Board
from solver.packed import MOVE_DECIDED, MOVE_FULL, decode, move_rule

from ..format.scores import FULL_COLUMN, SCORE_OFFSET
from .compiled_keys import lower_bound_from
from .family import missing_child, no_best_move

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
    for i in range(len(keys)):
        current, mask, _ = decode(board, keys[i])
        for col in range(width):
            kind, score, child = move_rule(board, current, mask, ply, col)
            if kind == MOVE_DECIDED:
                packed[i, col] = score + SCORE_OFFSET
            elif kind != MOVE_FULL:
                queries[i * width + col] = child
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


def derive_many(
    board: Board,
    keys: np.ndarray,
    own: np.ndarray,
    below_keys: np.ndarray,
    below_scores: np.ndarray,
    ply: int,
    db: str = "",
) -> tuple[np.ndarray, np.ndarray]:
    """The packed move scores (``(n, width)`` bytes) and best-move bits
    (``Board.column_set_type``) of the canonical ``keys`` of ``ply``, whose own scores are
    ``own``, from the sorted keys and scores of the ply below."""
    queries, packed = child_queries(board, keys, ply)
    best = np.zeros(len(keys), dtype=board.column_set_type)
    order = np.argsort(queries)  # numpy's: five times numba's
    status = read_children(queries, order, below_keys, below_scores, packed, own, best)
    if status == MISSING_CHILD:
        raise missing_child(db, ply)
    if status == NO_BEST_MOVE:
        raise no_best_move(db, ply)
    return packed, best


def load(board: Board) -> None:
    """Load the kernels above for ``board``'s books, with arrays of a ply's types."""
    keys = np.zeros(0, dtype=np.uint64)
    scores = np.zeros(0, dtype=np.int8)
    derive_many(board, keys, scores, keys, scores, 0)

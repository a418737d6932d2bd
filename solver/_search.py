"""numba search kernels: negamax alpha-beta and the window-narrowing driver.

State lives in two arrays the caller owns, so that it survives across calls
(the kernels release the GIL, so threads may share one table):

* ``table``: the transposition table, one uint64 per slot holding
  ``key << 8 | value``.  A key has 49 bits, so the whole key is kept and a
  hit is never a false match.  ``value`` 0 means empty; values up to
  ``UPPER_TOP`` are upper bounds, values above it are lower bounds.
* ``scratch``: ``scratch[0]`` counts nodes; ``scratch[1]`` is a node limit
  (0: none) and ``scratch[2]`` is set when a search stopped at that limit;
  from ``SORT_BASE`` on, one move-ordering buffer of 8 slots per ply, so the
  recursion allocates nothing.
"""

import numpy as np
from numba import njit

from . import bitboard as bb
from ._bits import can_win_next, column_mask, move_score, non_losing_moves
from ._bounds import lower_bound, upper_bound

CELLS = bb.CELLS
# The table's value range covers every score from ply 0 on (Pons' tighter
# range drops some bounds at plies 0-1); values still fit in 8 bits.
MIN_SCORE = -(CELLS // 2)
MAX_SCORE = (CELLS + 1) // 2
UPPER_TOP = MAX_SCORE - MIN_SCORE + 1
LOWER_OFFSET = MAX_SCORE - 2 * MIN_SCORE + 2
COLUMN_ORDER = bb.COLUMN_ORDER

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
U8 = np.uint64(8)
U49 = np.uint64(49)
U56 = np.uint64(56)
MOVE_BITS = np.uint64((1 << 49) - 1)
VALUE_BITS = np.uint64(0xFF)
ZERO = np.uint64(0)
SORT_BASE = 8
SCRATCH_SIZE = SORT_BASE + 8 * (CELLS + 1)


@njit(cache=True, nogil=True)
def negamax(position, mask, ply, alpha, beta, table, scratch, shift):
    """Fail-soft negamax score of a position within ``(alpha, beta)``.

    The player to move must not be able to win at once, and ``ply < 42``.
    """
    scratch[0] += np.uint64(1)
    if scratch[1] != ZERO and scratch[0] > scratch[1]:
        scratch[2] = np.uint64(1)
        return 0
    moves = non_losing_moves(position, mask)
    if moves == ZERO:
        return -((CELLS - ply) // 2)
    if ply >= CELLS - 2:
        return 0

    low = -((CELLS - 2 - ply) // 2)  # the opponent cannot win on their next move
    if alpha < 0:
        low = lower_bound(position, mask, moves, low)
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (CELLS - 1 - ply) // 2  # we cannot win on this move
    if beta > -1:
        high = upper_bound(position, mask, high)
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta

    key = position + mask
    slot = (key * GOLDEN) >> shift
    entry = table[slot]
    if entry != ZERO and entry >> U8 == key:  # key 0 (empty board) must not match an empty slot
        value = np.int64(entry & VALUE_BITS)
        if value > UPPER_TOP:
            low = value - LOWER_OFFSET
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
        else:
            high = value + MIN_SCORE - 1
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta

    # Enhanced transposition cutoff: if the table already bounds some child low
    # enough for the opponent, this node fails high without searching at all.
    # Cheap (one probe per move) and it cuts about a quarter of the nodes.
    other = position ^ mask
    for rank in range(7):
        move = moves & column_mask(COLUMN_ORDER[rank])
        if move != ZERO:
            child_key = other + (mask | move)
            child = table[(child_key * GOLDEN) >> shift]
            if child != ZERO and child >> U8 == child_key:
                value = np.int64(child & VALUE_BITS)
                if value <= UPPER_TOP:  # an upper bound on the child's score
                    bound = -(value + MIN_SCORE - 1)
                    if bound >= beta:
                        table[slot] = (key << U8) | np.uint64(bound + LOWER_OFFSET)
                        return bound

    # Insertion sort, best first: more winning cells, then nearer the centre.
    base = SORT_BASE + 8 * ply
    count = 0
    for rank in range(7):
        move = moves & column_mask(COLUMN_ORDER[rank])
        if move != ZERO:
            item = (move_score(position, mask, move) << U56) | (np.uint64(7 - rank) << U49) | move
            j = count
            while j > 0 and scratch[base + j - 1] < item:
                scratch[base + j] = scratch[base + j - 1]
                j -= 1
            scratch[base + j] = item
            count += 1

    for i in range(count):
        move = scratch[base + i] & MOVE_BITS
        score = -negamax(position ^ mask, mask | move, ply + 1, -beta, -alpha, table, scratch, shift)
        if scratch[2] != ZERO:
            return 0  # stopped: nothing here is proven, so nothing is stored
        if score >= beta:
            table[slot] = (key << U8) | np.uint64(score + LOWER_OFFSET)
            return score
        if score > alpha:
            alpha = score
    table[slot] = (key << U8) | np.uint64(alpha - MIN_SCORE + 1)
    return alpha


@njit(cache=True, inline="always")
def _half_toward_zero(x):
    return -((-x) // 2) if x < 0 else x // 2


@njit(cache=True, nogil=True)
def solve_window(position, mask, ply, low, high, table, scratch, shift):
    """The exact score clamped to ``[low, high]``, by null-window narrowing.

    ``[-1, 1]`` gives the weak (win/draw/loss) answer.
    """
    if can_win_next(position, mask):
        return min(max((CELLS + 1 - ply) // 2, low), high)
    lo = max(-((CELLS - ply) // 2), low)
    hi = min((CELLS + 1 - ply) // 2, high)
    while lo < hi:
        # Probe near zero first: most positions have small scores, and
        # the tests nearer zero are the cheap ones.
        med = lo + (hi - lo) // 2
        if med <= 0 and _half_toward_zero(lo) < med:
            med = _half_toward_zero(lo)
        elif med >= 0 and _half_toward_zero(hi) > med:
            med = _half_toward_zero(hi)
        r = negamax(position, mask, ply, med, med + 1, table, scratch, shift)
        if scratch[2] != ZERO:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    # Fail-soft probes may overshoot the asked window; clamp back into it.
    return min(lo, high)

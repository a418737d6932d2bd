"""Static bounds on two words: ``solver._bounds``' dead lines and claimeven (with paired
odd columns), the same proofs over pairs.  Width 4's "who completes first" rule is
left out (an extra cut, not needed for exact scores)."""

import numpy as np
from numba import njit

from ._bits import has_four
from ._words import add, and_, andnot, is_zero, lowest, ones, or_, xor


@njit(cache=True)
def _odd_columns(board, mask):
    """The next cell of each column with an odd number of empty cells."""
    return and_(add(mask, board.bottom), board.top_rows)


@njit(cache=True)
def _follower_cells(board, mask, odd):
    """The empty cells the follower claims: every second row's, but the odd columns' next."""
    return and_(andnot(board.all_cells, or_(mask, odd)), board.top_rows)


@njit(cache=True)
def upper_bound(board, position, mask, high):
    """``high`` lowered by the rules, for the player to move (stones ``position``)."""
    if high <= -1:
        return high
    opponent = xor(position, mask)
    if not has_four(board, andnot(board.all_cells, opponent)):
        high = 0
    odd = _odd_columns(board, mask)
    if ones(odd) & np.uint64(1) == 0:
        # The opponent follows up, and pairs the odd columns.
        theirs = or_(opponent, _follower_cells(board, mask, odd))
        if not has_four(board, andnot(board.all_cells, theirs)):
            return -1 if has_four(board, theirs) else min(high, 0)
    return high


@njit(cache=True)
def lower_bound(board, position, mask, moves, low):
    """``low`` raised by the rules; ``moves`` are the player's non-losing moves."""
    if low >= 1:
        return low
    if not has_four(board, andnot(board.all_cells, position)):
        low = 0
    odd = _odd_columns(board, mask)
    if ones(odd) & np.uint64(1) == 1:
        # Play into one odd column; then we follow up and pair the rest.
        options = and_(odd, moves)
        follower = _follower_cells(board, mask, odd)
        while not is_zero(options):
            cell = lowest(options)
            options = xor(options, cell)
            ours = or_(or_(position, cell), follower)
            if not has_four(board, andnot(board.all_cells, ours)):
                if has_four(board, ours):
                    return 1
                low = max(low, 0)
    return low

"""Static bounds on a position's score, proved from the board alone.

Two rules, both proofs rather than guesses, so the search stays exact:

* **Dead lines.** If every line of four holds a stone of the opponent, the
  player to move can never win: score <= 0 (and the same the other way).
* **Claimeven** (Allis).  When every column has an even number of empty
  cells, the player *not* to move can answer every move on top of it, in
  the same column.  Whatever the order of play, the final board is then
  fixed: the follower gets the empty cells of the top row and of every
  second row below it (``board.top_rows``), the player to move the others.
  On 7x6::

      6  f f f f f f f     rows counted from the bottom, as on the board;
      5  m m m m m m m     m: the player to move (first in each column),
      4  f f f f f f f     f: the follower, answering on top
      3  m m m m m m m
      2  f f f f f f f
      1  m m m m m m m

  If the mover's stones plus the m cells hold no four, the mover cannot
  win (score <= 0); if the follower's stones plus the f cells hold one, the
  follower wins (score <= -1).
* **Claimeven with paired odd columns.**  A column with an odd number of
  empty cells has its next cell in an f row.  While there is an even number
  of such columns, the follower still has an answer to every move: on top of
  it, or, when the mover plays the next cell of an odd column, the next cell
  of another odd column.  So the follower surely gets every empty f cell
  except the next cells of the odd columns, and the mover at most all the
  other cells; the same two tests then bound the score.  With an odd number
  of odd columns, the player to move may play into one of them and become
  the follower: that gives the same bounds the other way round.

Cheap (a few shifts per node), and they cut many nodes.  Pairing the odd
columns is an idea from Steininger's evens strategy.
"""

import numpy as np
from numba import njit

from ._bits import has_four, popcount

ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def upper_bound(board, position, mask, high):
    """``high`` lowered by the rules, for the player to move (stones ``position``)."""
    if high <= -1:
        return high
    opponent = position ^ mask
    if not has_four(board, board.all_cells & ~opponent):
        high = 0
    odd = (mask + board.bottom) & board.top_rows  # the next cell of each column with odd empties
    if popcount(odd) & 1 == 0:
        # The opponent follows up, and pairs the odd columns (see the module doc).
        theirs = opponent | (board.all_cells & ~(mask | odd) & board.top_rows)
        if not has_four(board, board.all_cells & ~theirs):
            return -1 if has_four(board, theirs) else min(high, 0)
    return high


@njit(cache=True, inline="always")
def lower_bound(board, position, mask, moves, low):
    """``low`` raised by the rules; ``moves`` are the player's non-losing moves."""
    if low >= 1:
        return low
    if not has_four(board, board.all_cells & ~position):
        low = 0
    odd = (mask + board.bottom) & board.top_rows  # the next cell of each column with odd empties
    if popcount(odd) & 1 == 1:
        # Play into one odd column; then we follow up and pair the rest.
        options = odd & moves
        while options != ZERO:
            cell = options & (ZERO - options)
            options ^= cell
            ours = position | cell | (board.all_cells & ~(mask | odd) & board.top_rows)
            if not has_four(board, board.all_cells & ~ours):
                if has_four(board, ours):
                    return 1
                low = max(low, 0)
    return low

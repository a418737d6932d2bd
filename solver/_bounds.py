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

* **Who completes first, on width 4.**  There every four but a vertical one
  spans all four columns.  If the mover's fours under either rule all lie
  above one of the follower's fours (a row or a diagonal), column by column,
  the mover cannot fill any of them before the follower's four is full: the
  follower still wins.  (A vertical four of the mover's would need two cells of one
  column in a row, one of them the follower's, unless it wins at once.)

Cheap (a few shifts per node), and they cut many nodes.  Pairing the odd
columns is an idea from Steininger's evens strategy; comparing which four
fills first, his evens bound.
"""

import numpy as np
from numba import njit

from ._bits import U1, four_starts, has_four, popcount

ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _under(low, rows):
    """Cells of column 0 up to ``rows`` rows above the cell ``low``."""
    return (low << np.uint64(rows + 1)) - U1


@njit(cache=True, inline="always")
def _above(theirs, shift, rows, rising, falling, rise_row, rise_rising, rise_falling):
    """Whether the fours of ours (their starts: ``rows``, ``rising``, ``falling``) all
    start high enough above the lowest of theirs along ``shift``."""
    starts = four_starts(theirs, shift)
    if starts == ZERO:
        return False
    low = starts & (ZERO - starts)
    return (
        rows & _under(low, rise_row)
        | rising & _under(low, rise_rising)
        | falling & _under(low, rise_falling)
    ) == ZERO


@njit(cache=True, inline="always")
def rows_first(board, theirs, mine):
    """On width 4, whether every four of ``mine`` lies above one of ``theirs`` (module doc)."""
    if board.width != 4 or four_starts(mine, U1) != ZERO:
        return False
    # Every four but a vertical one starts in column 0.  How many rows above
    # the start of their four ours must start, to lie above it in each column:
    rows = four_starts(mine, board.h1)
    rising = four_starts(mine, board.h2)
    falling = four_starts(mine, board.h)  # ends three rows below its start
    return (
        _above(theirs, board.h1, rows, rising, falling, 0, 0, 3)
        or _above(theirs, board.h2, rows, rising, falling, 3, 0, 6)
        or _above(theirs, board.h, rows, rising, falling, 0, 0, 0)
    )


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
        mine = board.all_cells & ~theirs
        if not has_four(board, mine):
            return -1 if has_four(board, theirs) else min(high, 0)
        if rows_first(board, theirs, mine):
            return -1
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
            theirs = board.all_cells & ~ours
            if not has_four(board, theirs):
                if has_four(board, ours):
                    return 1
                low = max(low, 0)
            elif rows_first(board, ours, theirs):
                return 1
    return low

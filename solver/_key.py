"""The transposition table's key: one key for positions that must score the same.

``position + mask`` (see ``bitboard``) is unique per position.  A position
and its mirror image score the same, so the table keys both by the smaller of
the two keys (``canonical_key``); ``mirrored`` says which, and the entry's
move is mirrored with it.

**Dead stones** (width 4).  A future four must run through an empty cell,
and a line of four that holds stones of both players, or no empty cell, can
never be completed.  A stone on no line that could still be completed may
take either colour without changing any future, so ``table_key`` keys it as
if the player to move owned it: positions that differ only there share an
entry.  Flipping several stones at once needs care::

      line L:  a  b  X  .      a, b: stones of player A; X: of player B

Taken one at a time, ``a`` and ``b`` look dead (without it, L still holds
both colours), but flipped together to B they leave ``X X X .``, a live
line.  So ``dead_stones`` counts a stone only when every line through it
with an empty cell holds both colours among the stones that stay as they are.

On width 4 a row is full after four stones, and full rows and blocked lines
make most stones of a deep position dead: the empty board's solve takes 41%
fewer nodes keyed so (benchmarks.md).  On wider boards few positions merge
before ply 30 and the scan costs more than it saves, so they key by the
mirror only.

The scan works line by line: for each direction, shifted copies of the board
say which lines of four hold an empty cell, a stone of each player, or two;
a stone is open when a line through it is live and lacks what closing it
needs, and the lines' verdicts are spread back to their four cells.
"""

import numpy as np
from numba import njit

from ._bits import U1, U2, U3, four_starts, mirror

ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _spread(starts, step):
    """Every cell of the lines of four (direction ``step``) that start at ``starts``."""
    return starts | (starts << step) | (starts << (U2 * step)) | (starts << (U3 * step))


@njit(cache=True, inline="always")
def _any_two(cells, step):
    """Line starts (direction ``step``) whose line holds one, and two, of ``cells``."""
    c1 = cells >> step
    c2 = cells >> (U2 * step)
    c3 = cells >> (U3 * step)
    low = cells | c1
    high = c2 | c3
    return low | high, (cells & c1) | (c2 & c3) | (low & high)


@njit(cache=True, inline="always")
def _any(cells, step):
    """Line starts (direction ``step``) whose line holds one of ``cells``."""
    return cells | (cells >> step) | (cells >> (U2 * step)) | (cells >> (U3 * step))


@njit(cache=True, inline="always")
def dead_stones(board, position, mask):
    """Stones whose colours, all flipped at once, change no line that can still make four."""
    other = position ^ mask
    empty = board.all_cells & ~mask
    # First the stones dead one at a time: a stone of A is, when each line
    # through it with an empty cell holds another A stone and a B stone.
    open_ = ZERO
    for step in (U1, board.h1, board.h, board.h2):
        live = _any(empty, step) & four_starts(board.all_cells, step)
        mine, mine2 = _any_two(position, step)
        theirs, theirs2 = _any_two(other, step)
        open_ |= _spread(live & ~(mine2 & theirs), step) & position
        open_ |= _spread(live & ~(theirs2 & mine), step) & other
    single = mask & ~open_
    if single == ZERO:
        return ZERO
    # Then those whose lines stay closed by the stones that are not flipped.
    position &= ~single
    other &= ~single
    open_ = ZERO
    for step in (U1, board.h1, board.h, board.h2):
        live = _any(empty, step) & four_starts(board.all_cells, step)
        open_ |= _spread(live & ~(_any(position, step) & _any(other, step)), step)
    return single & ~open_


@njit(cache=True, inline="always")
def canonical_key(board, position, mask):
    """``(key, mirrored)``: the smaller of the position's key and its mirror image's."""
    key = position + mask
    flipped = mirror(board, key)
    if flipped < key:
        return flipped, True
    return key, False


@njit(cache=True, inline="always")
def table_key(board, position, mask):
    """``(key, mirrored)``: the position's key in the table; on width 4 its dead
    stones are keyed as the player to move's (compiled out on other widths)."""
    if board.width == 4:
        position |= dead_stones(board, position, mask)
    return canonical_key(board, position, mask)

"""The transposition table's key: one key for positions that must score the same.

``position + mask`` (see ``bitboard``) is unique per position.  A position
and its mirror image score the same, so the table keys both by the smaller of
the two keys; ``mirrored`` says which, and the entry's move is mirrored with it.

**Dead stones** (measured, not used in the key).  A future four must run
through an empty cell, and a line of four that already holds stones of both
players can never be completed.  A stone on no line that could still be
completed may take either colour without changing any future, so it could be
keyed as if the player to move owned it.  Flipping several stones at once
needs care::

      line L:  a  b  X  .      a, b: stones of player A; X: of player B

Taken one at a time, ``a`` and ``b`` look dead (without it, L still holds
both colours), but flipped together to B they leave ``X X X .``, a live
line.  So ``dead_stones`` counts a stone only when every line through it
holds both colours among the stones that stay as they are.

Keying by dead stones merged few positions before ply 30 and cost more time
than it saved, so the search keys by the mirror only; ``dead_stones`` stays,
with a test that flipping the stones it finds never changes a score, for a
cheaper detector to build on.

A stone is checked along the lines of four through it: for each direction
and each of the four places it can hold in a line, the line's other three
cells are tested with shifted copies of the board.
"""

import numpy as np
from numba import njit

from ._bits import U1, U2, U3, mirror

ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _open_through(free, step):
    """Cells on some line of four (direction ``step``) whose other three cells are in ``free``."""
    f1 = free >> step
    f2 = free >> (U2 * step)
    f3 = free >> (U3 * step)
    # The line starting at cell c holds the stone at place k; bit c of each
    # product says the other three places are free.
    k0 = f1 & f2 & f3
    k1 = free & f2 & f3
    k2 = free & f1 & f3
    k3 = free & f1 & f2
    return k0 | (k1 << step) | (k2 << (U2 * step)) | (k3 << (U3 * step))


@njit(cache=True, inline="always")
def _closed_without(board, a, b):
    """Cells every line of which holds both an ``a`` and a ``b`` stone apart from the cell itself."""
    not_a = board.all_cells & ~a
    not_b = board.all_cells & ~b
    open_ = ZERO
    for step in (U1, board.h1, board.h, board.h2):
        open_ |= _open_through(not_a, step) | _open_through(not_b, step)
    return ~open_


@njit(cache=True, inline="always")
def dead_stones(board, position, mask):
    """Stones whose colours, all flipped at once, change no line that can still make four."""
    other = position ^ mask
    single = mask & _closed_without(board, position, other)
    if single == ZERO:
        return ZERO
    return single & _closed_without(board, position & ~single, other & ~single)


@njit(cache=True, inline="always")
def table_key(board, position, mask):
    """``(key, mirrored)``: the canonical key of the position, for the table."""
    key = position + mask
    flipped = mirror(board, key)
    if flipped < key:
        return flipped, True
    return key, False

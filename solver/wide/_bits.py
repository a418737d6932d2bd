"""Connect 4 on two words: the moves, threats, fours and mirror of ``solver._bits``.

The same expressions as the one-word kernels, over pairs (``_words``); each
direction's shifts are written out with the board's constants, so that every
two-word shift folds to its branch.
"""

import numpy as np
from numba import njit

from .._bits import U1, U2, U3
from . import _board_type  # noqa: F401 -- teaches numba the wide Board type
from ._words import NONE, ZERO, add, and_, andnot, is_zero, less, or_, several, shl, shr, xor


@njit(cache=True)
def possible(board, mask):
    """The cell each non-full column would receive next."""
    return and_(add(mask, board.bottom), board.all_cells)


@njit(cache=True)
def _along(stones, s):
    """Empty-or-not cells that would complete a four of ``stones`` along shift ``s``:
    three stones on one side, or two and one."""
    p = and_(shl(stones, s), shl(stones, U2 * s))
    r = and_(p, shl(stones, U3 * s))
    r = or_(r, and_(p, shr(stones, s)))
    p = and_(shr(stones, s), shr(stones, U2 * s))
    r = or_(r, and_(p, shl(stones, s)))
    return or_(r, and_(p, shr(stones, U3 * s)))


@njit(cache=True)
def winning_cells(board, stones, mask):
    """Empty cells that would complete four in a row for ``stones``."""
    r = and_(and_(shl(stones, U1), shl(stones, U2)), shl(stones, U3))  # three below
    r = or_(r, _along(stones, board.h1))  # horizontal
    r = or_(r, _along(stones, board.h))  # falling
    r = or_(r, _along(stones, board.h2))  # rising
    return andnot(and_(r, board.all_cells), mask)


@njit(cache=True)
def can_win_next(board, position, mask):
    return not is_zero(and_(winning_cells(board, position, mask), possible(board, mask)))


@njit(cache=True)
def opponent_threats(board, position, mask):
    """The winning cells of the player not to move (``position`` holds the mover's)."""
    return winning_cells(board, xor(position, mask), mask)


@njit(cache=True)
def threats_of(board, position, mask):
    """``opponent_threats`` for Python callers (the solver's first call)."""
    return opponent_threats(board, position, mask)


@njit(cache=True)
def safe_moves(board, mask, threats):
    """Playable cells that do not hand the opponent an immediate win; none when every
    move loses at once (two threats to block, or every move under one)."""
    moves = possible(board, mask)
    forced = and_(moves, threats)
    if not is_zero(forced):
        if several(forced):
            return NONE
        moves = forced
    return andnot(moves, shr(threats, U1))


@njit(cache=True)
def four_starts(stones, s):
    """The first cell of every four of ``stones`` along ``s``."""
    pairs = and_(stones, shr(stones, s))
    return and_(pairs, shr(pairs, U2 * s))


@njit(cache=True)
def has_four(board, stones):
    """Whether ``stones`` holds four in a row in any direction."""
    return not (
        is_zero(four_starts(stones, U1))
        and is_zero(four_starts(stones, board.h))
        and is_zero(four_starts(stones, board.h1))
        and is_zero(four_starts(stones, board.h2))
    )


@njit(cache=True)
def mirror(board, bits):
    """The same cells with columns reversed (column 1 <-> width), of a board or a key:
    each column taken out as one word (at most 32 bits) and put in its mirror's place."""
    out = NONE
    for col in range(board.width):
        cells = shr(bits, np.uint64(col) * board.h1)[0] & board.column
        out = or_(out, shl((cells, ZERO), np.uint64(board.width - 1 - col) * board.h1))
    return out


@njit(cache=True)
def canonical_key(board, position, mask):
    """``(key, mirrored)``: the smaller of the position's key and its mirror image's."""
    key = add(position, mask)
    flipped = mirror(board, key)
    if less(flipped, key):
        return flipped, True
    return key, False


@njit(cache=True)
def keys_of(board, position, mask):
    """``(key, mirror key)`` for Python callers (the tests)."""
    key = add(position, mask)
    return key, mirror(board, key)

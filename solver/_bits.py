"""numba kernels over uint64 bitboards (layout: see ``bitboard``).

Every constant here is a ``np.uint64``: numba widens a mix of uint64 and
int64 to float64, which would silently break the bit arithmetic.
"""

import numpy as np
from numba import njit

from . import bitboard as bb

U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
H = np.uint64(bb.HEIGHT)
H1 = np.uint64(bb.H1)
H2 = np.uint64(bb.H1 + 1)
BOTTOM = np.uint64(bb.BOTTOM)
BOARD = np.uint64(bb.BOARD)

COLUMN = np.uint64((1 << bb.H1) - 1)  # one column's cells and its sentinel bit
S7, S14, S21, S28, S42 = (np.uint64(n) for n in (7, 14, 21, 28, 42))

M1 = np.uint64(0x5555555555555555)
M2 = np.uint64(0x3333333333333333)
M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
H01 = np.uint64(0x0101010101010101)
S56 = np.uint64(56)


@njit(cache=True, inline="always")
def popcount(x):
    # LLVM recognises this SWAR idiom and emits a single popcnt instruction.
    x = x - ((x >> U1) & M1)
    x = (x & M2) + ((x >> U2) & M2)
    x = (x + (x >> np.uint64(4))) & M4
    return (x * H01) >> S56


@njit(cache=True, inline="always")
def column_mask(col):
    return ((U1 << H) - U1) << (np.uint64(col) * H1)


@njit(cache=True, inline="always")
def possible(mask):
    """The cell each non-full column would receive next."""
    return (mask + BOTTOM) & BOARD


@njit(cache=True, inline="always")
def winning_cells(position, mask):
    """Empty cells that would complete four in a row for ``position``'s stones."""
    # vertical: three stones below
    r = (position << U1) & (position << U2) & (position << U3)
    # horizontal (shift H1), then both diagonals (H, H2)
    for s in (H1, H, H2):
        p = (position << s) & (position << (U2 * s))
        r |= p & (position << (U3 * s))
        r |= p & (position >> s)
        p = (position >> s) & (position >> (U2 * s))
        r |= p & (position << s)
        r |= p & (position >> (U3 * s))
    return r & (BOARD ^ mask)


@njit(cache=True, inline="always")
def can_win_next(position, mask):
    return (winning_cells(position, mask) & possible(mask)) != np.uint64(0)


@njit(cache=True, inline="always")
def safe_moves(mask, threats):
    """Playable cells that do not hand the opponent an immediate win.

    ``threats`` are the opponent's winning cells.  Zero when every move
    loses at once: either the opponent has two immediate threats, or every
    move fills the cell under one of them.
    """
    moves = possible(mask)
    forced = moves & threats
    if forced != np.uint64(0):
        if forced & (forced - U1):
            return np.uint64(0)
        moves = forced
    return moves & ~(threats >> U1)


@njit(cache=True, inline="always")
def non_losing_moves(position, mask):
    """``safe_moves`` for the player to move, whose stones are ``position``."""
    return safe_moves(mask, winning_cells(position ^ mask, mask))


@njit(cache=True, inline="always")
def move_score(position, mask, move):
    """How many winning cells a move leaves its player: a move-ordering heuristic."""
    return popcount(winning_cells(position | move, mask))


@njit(cache=True, inline="always")
def mirror(bits):
    """The same cells with columns reversed (column 1 <-> 7), of a board or a key
    (see ``bitboard.mirror_bits``, its Python twin)."""
    return (((bits & COLUMN) << S42) | ((bits & (COLUMN << S7)) << S28)
            | ((bits & (COLUMN << S14)) << S14) | (bits & (COLUMN << S21))
            | ((bits >> S14) & (COLUMN << S14)) | ((bits >> S28) & (COLUMN << S7))
            | ((bits >> S42) & COLUMN))


@njit(cache=True, inline="always")
def has_four(stones):
    """Whether ``stones`` (any set of cells) holds four in a row (see ``bitboard.has_four``)."""
    for s in (U1, H, H1, H2):  # vertical, both diagonals, horizontal
        pairs = stones & (stones >> s)
        if pairs & (pairs >> (U2 * s)):
            return True
    return False

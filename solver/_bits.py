"""numba kernels over uint64 bitboards (layout: see ``bitboard``).

Every kernel takes the ``Board`` first; its facts are constants compiled
into each board's specialisation (``_board_type``).  Every constant here is
a ``np.uint64``: numba widens a mix of uint64 and int64 to float64, which
would silently break the bit arithmetic.
"""

import numpy as np
from numba import njit

from . import _board_type  # noqa: F401 -- teaches numba the Board type

U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)

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
def column_mask(board, col):
    return board.column_cells << (np.uint64(col) * board.h1)


@njit(cache=True, inline="always")
def columns_of(board, cells):
    """Bit ``c`` set for each 0-based column that holds any of ``cells`` (no branch: over
    many positions a guessed one costs more than the work)."""
    out = 0
    for col in range(board.width):
        out |= np.int64((cells & column_mask(board, col)) != 0) << col
    return out


@njit(cache=True, inline="always")
def possible(board, mask):
    """The cell each non-full column would receive next."""
    return (mask + board.bottom) & board.all_cells


@njit(cache=True, inline="always")
def winning_cells(board, position, mask):
    """Empty cells that would complete four in a row for ``position``'s stones."""
    # vertical: three stones below
    r = (position << U1) & (position << U2) & (position << U3)
    # horizontal (shift h1), then both diagonals (h, h2)
    for s in (board.h1, board.h, board.h2):
        p = (position << s) & (position << (U2 * s))
        r |= p & (position << (U3 * s))
        r |= p & (position >> s)
        p = (position >> s) & (position >> (U2 * s))
        r |= p & (position << s)
        r |= p & (position >> (U3 * s))
    return r & (board.all_cells ^ mask)


@njit(cache=True, inline="always")
def can_win_next(board, position, mask):
    return (winning_cells(board, position, mask) & possible(board, mask)) != np.uint64(0)


@njit(cache=True, inline="always")
def safe_moves(board, mask, threats):
    """Playable cells that do not hand the opponent an immediate win.

    ``threats`` are the opponent's winning cells.  Zero when every move
    loses at once: either the opponent has two immediate threats, or every
    move fills the cell under one of them.
    """
    moves = possible(board, mask)
    forced = moves & threats
    if forced != np.uint64(0):
        if forced & (forced - U1):
            return np.uint64(0)
        moves = forced
    return moves & ~(threats >> U1)


@njit(cache=True, inline="always")
def non_losing_moves(board, position, mask):
    """``safe_moves`` for the player to move, whose stones are ``position``."""
    return safe_moves(board, mask, winning_cells(board, position ^ mask, mask))


@njit(cache=True, inline="always")
def move_score(board, position, mask, move):
    """How many winning cells a move leaves its player: a move-ordering heuristic."""
    return popcount(winning_cells(board, position | move, mask))


@njit(cache=True, inline="always")
def mirror(board, bits):
    """The same cells with columns reversed (column 1 <-> width), of a board or a key
    (see ``Board.mirror_bits``, its Python twin).  The loop is unrolled: its bounds
    are the board's constants."""
    out = np.uint64(0)
    for col in range(board.width // 2):
        far = board.width - 1 - col
        gap = np.uint64(far - col) * board.h1
        near_cells = board.column << (np.uint64(col) * board.h1)
        out |= ((bits & near_cells) << gap) | ((bits >> gap) & near_cells)
    if board.width % 2:
        out |= bits & (board.column << (np.uint64(board.width // 2) * board.h1))
    return out


@njit(cache=True, inline="always")
def four_starts(stones, shift):
    """The first cell (the lowest bit) of every four of ``stones`` along ``shift``."""
    pairs = stones & (stones >> shift)
    return pairs & (pairs >> (U2 * shift))


@njit(cache=True, inline="always")
def has_four(board, stones):
    """Whether ``stones`` (any set of cells) holds four in a row (see ``Board.has_four``)."""
    # vertical, falling, horizontal, rising; a loop, not any(): numba compiles no generators
    for s in (U1, board.h, board.h1, board.h2):  # noqa: SIM110
        if four_starts(stones, s):
            return True
    return False

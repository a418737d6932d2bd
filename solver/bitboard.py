"""Bit layout of the 7x6 board and pure-Python helpers over it.

A position is two integers of 49 useful bits, after Pascal Pons' solver:
``current`` holds the stones of the player to move, ``mask`` holds every stone.
Each column takes HEIGHT + 1 = 7 bits: six cells, bottom first, and one
sentinel bit on top that is always empty, so that shifts never carry a line
of four from one column into the next::

      .  .  .  .  .  .  .      <- sentinel row: 6 13 20 27 34 41 48
      5 12 19 26 33 40 47      <- top row
      4 11 18 25 32 39 46
      3 10 17 24 31 38 45
      2  9 16 23 30 37 44
      1  8 15 22 29 36 43
      0  7 14 21 28 35 42      <- bottom row
      1  2  3  4  5  6  7      <- column, as written in move strings

``key = current + mask`` is unique per position: adding ``mask`` turns each
column's stones into a single bit above its top stone, so the sum says both
where the stones are and whose they are.

These helpers work on Python ints; the numba kernels in ``_bits`` use the
same layout over uint64.
"""

WIDTH = 7
HEIGHT = 6
H1 = HEIGHT + 1
CELLS = WIDTH * HEIGHT

BOTTOM = sum(1 << (col * H1) for col in range(WIDTH))
BOARD = BOTTOM * ((1 << HEIGHT) - 1)
COLUMN_MASKS = tuple(((1 << HEIGHT) - 1) << (col * H1) for col in range(WIDTH))
TOP_CELLS = tuple(1 << (HEIGHT - 1 + col * H1) for col in range(WIDTH))
BOTTOM_CELLS = tuple(1 << (col * H1) for col in range(WIDTH))

# Transposition table sizes a Solver accepts, as log2 of its 8-byte slots,
# and a solve's default (16M slots, 128 MiB).  Kept here, not in engine, so
# that checking or defaulting a size does not load numba.
TABLE_LOG2_MIN, TABLE_LOG2_MAX = 10, 32
DEFAULT_TABLE_LOG2 = 24

# Centre columns first: they take part in the most lines of four.
COLUMN_ORDER = (3, 2, 4, 1, 5, 0, 6)


def win_score(ply: int) -> int:
    """Score of the player to move at ``ply`` who wins with this very move."""
    return (CELLS + 1 - ply) // 2


def fours(stones):
    """The cells where a four of ``stones`` starts, in any direction: nonzero when there
    is one.  The same expression works elementwise on a numpy ``uint64`` array."""
    found = 0
    for shift in (1, H1 - 1, H1, H1 + 1):  # vertical, both diagonals, horizontal
        pairs = stones & (stones >> shift)
        found |= pairs & (pairs >> (2 * shift))
    return found


def has_four(stones: int) -> bool:
    """True when ``stones`` contains four in a row in any direction (numba twin: ``_bits.has_four``)."""
    return fours(stones) != 0


_COLUMN = (1 << H1) - 1  # one column's cells and its sentinel bit


def mirror_bits(bits: int) -> int:
    """The same cells with columns reversed (column 1 <-> 7), of a board or a key.

    A key's columns never carry into each other (the sentinel bit takes the
    carry), so mirroring a key is mirroring its columns.  Unrolled for speed
    (this is half a book lookup's work); the same expression works elementwise
    on a numpy ``uint64`` array.  The numba twin is ``_bits.mirror``.
    """
    return (((bits & _COLUMN) << 42) | ((bits >> 7 & _COLUMN) << 35)
            | ((bits >> 14 & _COLUMN) << 28) | (bits & (_COLUMN << 21))
            | ((bits >> 28 & _COLUMN) << 14) | ((bits >> 35 & _COLUMN) << 7) | (bits >> 42))


def mirror_moves(moves: str) -> str:
    """A move string with columns reversed (1 <-> 7): the moves of the mirror image."""
    return moves.translate(_MIRROR_DIGITS)


_MIRROR_DIGITS = str.maketrans("1234567", "7654321")


def popcount(bits: int) -> int:
    return bin(bits).count("1")

"""``Board``: a board's size and its bit layout, the one value every layer reads.

A position is two integers of ``width * (height + 1)`` useful bits, after
Pascal Pons' solver: ``current`` holds the stones of the player to move,
``mask`` holds every stone.  Each column takes ``height + 1`` bits: its
cells, bottom first, and one sentinel bit on top that is always empty, so
that shifts never carry a line of four from one column into the next.  On
the standard 7x6 board (columns of 7 bits, 49 in all)::

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

A ``Board`` holds these facts as Python integers.  The numba kernels take
the same ``Board`` as their first argument and read each fact as a constant
compiled into them (``_board_type``), so every size runs at compiled speed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, final

from .errors import BoardSizeError

# Transposition table sizes a Solver accepts, as log2 of its 8-byte slots,
# and a solve's default (16M slots, 128 MiB).  Kept here, not in engine, so
# that checking or defaulting a size does not load numba.
TABLE_LOG2_MIN, TABLE_LOG2_MAX = 10, 32
DEFAULT_TABLE_LOG2 = 24
# Threads one search may run: each more holds a 1 MiB near table and an OS
# thread, and past the machine's cores only takes turns with the others.
MAX_THREADS = 256

MIN_SIDE = 4  # a side shorter than a line of four has no lines that way
MAX_WIDTH = 9  # moves are digit strings: one digit a column
KEY_BITS = 64  # a key (a whole position) is one uint64 word up to here
WIDE_KEY_BITS = 128  # past KEY_BITS, two words (``solver.wide``)
ALLOWED = (
    f"width {MIN_SIDE}-{MAX_WIDTH}, height at least {MIN_SIDE}, and "
    f"width x (height + 1) at most {WIDE_KEY_BITS} bits, e.g. 6x5, 7x6, 8x8 or 9x9"
)
_SIZE = re.compile(r"([0-9]+)x([0-9]+)")


@final  # interned by size (__new__): a subclass would share its parent's values
class Board:
    """A board of ``width`` columns and ``height`` rows: ``Board(7, 6)``, or ``Board.parse("6x5")``.

    Boards are values: ``Board(6, 5) is Board(6, 5)``.  Columns are 1-based
    in move strings and 0-based in bit arithmetic.
    """

    __slots__ = (
        "_mirror_digits",
        "_numba_type",
        "all_cells",
        "bottom",
        "bottom_cells",
        "cells",
        "column_bits",
        "column_masks",
        "column_order",
        "column_set_type",
        "digits",
        "h1",
        "height",
        "key_bits",
        "max_score",
        "min_score",
        "mirror_bits",
        "top_cells",
        "top_rows",
        "under_top_rows",
        "width",
    )
    # The slots' types, for type checkers (``_lay_out`` sets each once).
    width: int
    height: int
    h1: int  # bits a column: height + 1
    cells: int
    key_bits: int
    bottom: int
    all_cells: int
    column_masks: tuple[int, ...]
    top_cells: tuple[int, ...]
    bottom_cells: tuple[int, ...]
    column_order: tuple[int, ...]
    top_rows: int
    under_top_rows: int
    column_bits: int
    column_set_type: str
    digits: str
    max_score: int
    min_score: int
    mirror_bits: Callable[[Any], Any]  # an int, or elementwise a numpy uint64 array
    _mirror_digits: dict[int, int]
    _numba_type: Any
    _made: ClassVar[dict[tuple[int, int], Board]] = {}

    def __new__(cls, width: int = 7, height: int = 6) -> Board:  # one interned value a size
        board = (
            cls._made.get((width, height)) if type(width) is int and type(height) is int else None
        )
        if board is not None:
            return board
        check_size(width, height)
        board = super().__new__(cls)
        board._lay_out(width, height)
        cls._made[(width, height)] = board
        return board

    def _lay_out(self, width: int, height: int) -> None:
        set_ = object.__setattr__
        h1 = height + 1
        set_(self, "width", width)
        set_(self, "height", height)
        set_(self, "h1", h1)
        set_(self, "cells", width * height)
        set_(self, "key_bits", width * h1)
        set_(self, "bottom", sum(1 << (col * h1) for col in range(width)))
        set_(self, "all_cells", self.bottom * ((1 << height) - 1))
        set_(self, "column_masks", tuple(((1 << height) - 1) << (col * h1) for col in range(width)))
        set_(self, "top_cells", tuple(1 << (height - 1 + col * h1) for col in range(width)))
        set_(self, "bottom_cells", tuple(1 << (col * h1) for col in range(width)))
        # Centre columns first: they take part in the most lines of four
        # (on 7x6: 4 3 5 2 6 1 7, as 0-based columns 3 2 4 1 5 0 6).
        set_(
            self,
            "column_order",
            tuple(width // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2) for i in range(width)),
        )
        # The rows a follower claims by answering every move on top of it: the
        # top row and every second row below (see ``_bounds``); the others.
        top = sum(1 << row for row in range(height - 1, -1, -2))
        set_(self, "top_rows", self.bottom * top)
        set_(self, "under_top_rows", self.all_cells ^ self.bottom * top)
        # Bits that hold a 0-based column, with one value to spare for "none".
        set_(self, "column_bits", width.bit_length())
        # The numpy type of a set of columns as bits (best moves): a byte, two on width 9.
        set_(self, "column_set_type", "uint8" if width <= 8 else "uint16")
        set_(self, "digits", "".join(str(col + 1) for col in range(width)))
        set_(self, "max_score", (self.cells + 1) // 2)  # a win with the first stone
        set_(self, "min_score", -(self.cells // 2))  # a loss to the last stone
        set_(self, "mirror_bits", _mirror_function(width, h1))
        set_(self, "_mirror_digits", str.maketrans(self.digits, self.digits[::-1]))
        set_(self, "_numba_type", None)

    @classmethod
    def parse(cls, text: str | Board | None) -> Board:
        """A board from ``"WxH"`` (``"6x5"``), a ``Board``, or ``None`` for the standard 7x6."""
        if text is None:
            return STANDARD
        if isinstance(text, Board):
            return text
        if not isinstance(text, str):
            raise BoardSizeError(f"a board is written WxH, like 7x6; got {text!r}")
        found = _SIZE.fullmatch(text.strip().lower())
        if found is None or not text.strip().isascii():
            raise BoardSizeError(f"board {text!r} is not WxH (like 7x6): {ALLOWED}")
        return cls(int(found[1]), int(found[2]))

    # -- scores ----------------------------------------------------------------
    def win_score(self, ply: int) -> int:
        """Score of the player to move at ``ply`` who wins with this very move."""
        return (self.cells + 1 - ply) // 2

    def loss_score(self, ply: int) -> int:
        """Score of the player to move at ``ply`` who loses to the opponent's next move."""
        return -((self.cells - ply) // 2)

    def last_move(self, score: int, ply: int) -> int:
        """The stone, counted from 1, that ends the game with perfect play from a position
        at ``ply`` that scores ``score`` for its player to move: the board's last for a draw."""
        if score == 0:
            return self.cells
        winner = ply % 2 if score > 0 else (ply + 1) % 2  # whose plies: even for the first
        won_at = self.cells + 1 - 2 * abs(score)  # the ply of the winning stone, or one more
        return (won_at if won_at % 2 == winner else won_at - 1) + 1

    def winner_stones(self, score: int, ply: int) -> int:
        """How many stones the winner has played when a game scoring ``score`` (not 0) for the
        player to move at ``ply`` ends: on 7x6, 22 minus the winner's score."""
        return (self.last_move(score, ply) + 1) // 2

    # -- lines and mirrors ---------------------------------------------------
    def fours(self, stones):
        """The cells where a four of ``stones`` starts, in any direction: nonzero when there
        is one.  The same expression works elementwise on a numpy ``uint64`` array."""
        found = 0
        h1 = self.h1
        for shift in (1, h1 - 1, h1, h1 + 1):  # vertical, both diagonals, horizontal
            pairs = stones & (stones >> shift)
            found |= pairs & (pairs >> (2 * shift))
        return found

    def winning_cells(self, stones, mask):
        """The empty cells that would complete a four of ``stones`` (playable or not), as
        ``_bits.winning_cells``; the same expression works elementwise on numpy ``uint64``."""
        found = (stones << 1) & (stones << 2) & (stones << 3)  # three stones below
        for shift in (self.h1, self.height, self.h1 + 1):  # horizontal, both diagonals
            up, down = stones << shift, stones >> shift  # each shift made once: on numpy
            up2, down2 = up << shift, down >> shift  # arrays a call costs more than an item
            found |= up & up2 & ((up2 << shift) | down)
            found |= down & down2 & (up | (down2 >> shift))
        return found & (self.all_cells ^ mask)

    def has_four(self, stones: int) -> bool:
        """True when ``stones`` holds four in a row in any direction (numba twin: ``_bits.has_four``)."""
        return self.fours(stones) != 0

    def mirror_moves(self, moves: str) -> str:
        """A move string with columns reversed (1 <-> width): the moves of the mirror image."""
        return moves.translate(self._mirror_digits)

    # -- identity --------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Board is a value: {name!r} cannot be set")

    def __reduce__(self):
        return Board, (self.width, self.height)

    def __repr__(self) -> str:
        return f"Board({self.width}, {self.height})"

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def is_wide(self) -> bool:
        """Whether a key takes two words (``solver.wide``): past ``KEY_BITS`` bits."""
        return self.key_bits > KEY_BITS

    @property
    def _numba_type_(self):
        """The board as numba sees it, made once a board.  Only numba asks, through a
        kernel, whose module has loaded ``_board_type`` (``wide._board_type`` for a wide
        board), which teaches this module the type."""
        if self._numba_type is None:
            kind = numba_types["wide_board" if self.is_wide else "board"]
            object.__setattr__(self, "_numba_type", kind(self.width, self.height))
        return self._numba_type


# Filled by ``_board_type`` when it loads (numba, only where kernels run): ``"board"``, the
# numba type of a board of a size (``"wide_board"``: by ``wide._board_type``, past 64 bits).
# Set from there, so that this module never imports it.
numba_types: dict[str, Any] = {}


def check_size(width: Any, height: Any) -> None:
    """Nothing if ``width`` x ``height`` is a board c4book plays; else a BoardSizeError naming it."""
    if type(width) is not int or type(height) is not int:
        raise BoardSizeError(
            f"a board's width and height are whole numbers, got {width!r} x {height!r}"
        )
    if (
        not MIN_SIDE <= width <= MAX_WIDTH
        or height < MIN_SIDE
        or width * (height + 1) > WIDE_KEY_BITS
    ):
        raise BoardSizeError(f"board {width}x{height} is not supported: {ALLOWED}")


def _mirror_function(width: int, h1: int):
    """``mirror_bits`` for one board: the same cells with columns reversed (1 <-> width), of
    a board or a key, unrolled column by column (this is half a book lookup's work).

    A key's columns never carry into each other (the sentinel bit takes the
    carry), so mirroring a key is mirroring its columns.  The expression works
    elementwise on a numpy ``uint64`` array too; the numba twin is ``_bits.mirror``.
    """
    column = (1 << h1) - 1
    terms = []
    for col in range(width):
        move = (width - 1 - 2 * col) * h1  # to the mirrored column's place
        part = f"(bits & {column << (col * h1)})"
        terms.append(
            part if move == 0 else f"({part} << {move})" if move > 0 else f"({part} >> {-move})"
        )
    source = f"lambda bits: {' | '.join(terms)}"
    return eval(source)  # noqa: S307 -- our own arithmetic text, made once per board


STANDARD = Board(7, 6)


def win_score(ply: int, board: Board = STANDARD) -> int:
    """Score of the player to move at ``ply`` who wins with this very move."""
    return board.win_score(ply)

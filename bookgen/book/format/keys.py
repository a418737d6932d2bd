"""From move strings to book keys, for lookups: the one place a lookup turns moves into a key.

A lookup needs the position's key and its mirror image's key (the book
stores the smaller), and, for its move scores, its children's.  So the walk
plays each string twice at once, as given and mirrored: ``Oriented`` holds both
boards, and a child's two keys then cost a few integer operations, with no
mirroring per child.

``Position.from_moves`` also checks that no four was made before the last
move; a lookup can skip that: stones never leave the board, so such a string
ends on a board with a four, and no book holds one.  A key found in the
book therefore proves its string legal; only a miss needs the full check,
which names a bad input.

Same bit layout as ``solver.bitboard``: ``key = current + mask``.  Each board has its
``Walker`` (``walker(board)``); the standard board's walks are also module functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

import numpy as np

from solver.bitboard import Board

# What a compiled lookup (``compiled_keys.locate``) gives when it finds no position.
NOT_A_GAME = -2  # a character other than a column, or a move into a full column: ask Position
ABSENT = -1  # a playable string whose canonical key the ply lacks


class Oriented(NamedTuple):
    """A position's stones (the mover's, and all) as asked and mirrored."""

    current: int
    mask: int
    mirror_current: int
    mirror_mask: int

    @property
    def canonical(self) -> int:
        """The smaller of the two orientations' keys: the book's key."""
        key, other = self.current + self.mask, self.mirror_current + self.mirror_mask
        return key if key < other else other  # noqa: FURB136 - a lookup's hot path: no call


class Walker:
    """The walks from move strings to keys on one board; ``walker(board)`` makes each once."""

    def __init__(self, board: Board):
        self.board = board
        bottoms, cells = board.bottom_cells, board.column_masks
        self._step = {
            str(col + 1): (
                bottoms[col],
                cells[col],
                bottoms[board.width - 1 - col],
                cells[board.width - 1 - col],
            )
            for col in range(board.width)
        }
        self._columns = tuple(zip(bottoms, cells, reversed(bottoms), reversed(cells), strict=True))
        self._one_way = {char: step[:2] for char, step in self._step.items()}
        if board.is_wide:  # the walks of Python integers alone: no numpy word holds a key
            return
        # boards_of_many's: a character code -> that column's bottom cell and cells (0, 0: none).
        self._bottoms = np.zeros(128, dtype=np.uint64)
        self._cells = np.zeros(128, dtype=np.uint64)
        for char, (bottom, column, _, _) in self._step.items():
            self._bottoms[ord(char)], self._cells[ord(char)] = bottom, column
        # (shift, the bits of each column that a shift by it keeps inside the column): ORed
        # in turn, every bit under a column's highest set bit gets set (``boards_of_keys``).
        self._smears = [
            (np.uint64(shift), np.uint64(board.bottom * ((1 << (board.h1 - shift)) - 1)))
            for shift in (1, 2, 4, 8)
            if shift < board.h1
        ]

    def key_of(self, moves: str) -> int | None:
        """The key after ``moves`` (one orientation: a third of ``board_of``'s time); None
        for a character other than a column or a move into a full column, as ``board_of``."""
        current = mask = 0
        one_way = self._one_way
        try:
            for char in moves:
                bottom, column = one_way[char]
                stone = (mask + bottom) & column  # 0 when the column is full
                if not stone:
                    return None
                current ^= mask
                mask |= stone
        except KeyError:
            return None
        return current + mask

    def board_of(self, moves: str) -> Oriented | None:
        """The stones after ``moves``, both ways; None for a character other than a column
        or a move into a full column (the caller then asks ``Position``, which names it)."""
        current = mask = other_current = other_mask = 0
        step = self._step
        try:
            for char in moves:
                bottom, column, other_bottom, other_column = step[char]
                stone = (mask + bottom) & column  # 0 when the column is full
                if not stone:
                    return None
                current ^= mask
                mask |= stone
                other_current ^= other_mask
                other_mask |= (other_mask + other_bottom) & other_column
        except KeyError:
            return None
        return Oriented(current, mask, other_current, other_mask)

    def boards_of_many(
        self, moves_list: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``board_of`` for many strings at once, one numpy step per ply across all of them:
        ``(current, mask, usable)``; where ``usable`` is False, ask ``Position``."""
        count = len(moves_list)
        lengths = np.fromiter(map(len, moves_list), dtype=np.int64, count=count)
        width = int(lengths.max()) if count else 0
        # One character code a cell, 0 past a string's end; numpy drops trailing NULs,
        # so a string ending in one is padded back to its length (and then unusable).
        grid = np.zeros((count, width), dtype=np.uint32)
        if width:
            codes = np.array(moves_list, dtype=f"<U{width}").view(np.uint32).reshape(count, width)
            grid[:, : codes.shape[1]] = codes
        current = np.zeros(count, dtype=np.uint64)
        mask = np.zeros(count, dtype=np.uint64)
        usable = np.ones(count, dtype=bool)
        bottoms, cells = self._bottoms, self._cells
        for ply in range(width):
            playing = lengths > ply
            chars = np.minimum(grid[:, ply], len(bottoms) - 1)  # anything else gets 0, 0
            stone = (mask + bottoms[chars]) & cells[chars]
            usable &= ~(playing & (stone == 0))  # a bad character or a full column
            current = np.where(playing, current ^ mask, current)
            mask |= stone
        return current, mask, usable

    def boards_of_keys(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(current, mask)`` of each key.  A column of ``h`` stones is ``2**h - 1 + stones``
        in a key, so one more is ``2**h + stones``: its top bit is the first empty cell."""
        board = self.board
        top = keys + np.uint64(board.bottom)  # (no column carries into the next)
        for shift, inside in self._smears:  # every bit under each column's top bit set
            top |= (top >> shift) & inside
        mask = (top >> np.uint64(1)) & self._smears[0][1]
        return keys - mask, mask


@cache
def walker(board: Board) -> Walker:
    """The board's walks, made once."""
    return Walker(board)

"""From move strings to book keys, for lookups: the one place a lookup turns moves into a key.

A lookup needs the position's key and its mirror image's key (the book
stores the smaller), and, for its move scores, its children's.  So the walk
plays each string twice at once, as given and mirrored: ``Board`` holds both
boards, and a child's two keys then cost a few integer operations, with no
mirroring per child.

``Position.from_moves`` also checks that no four was made before the last
move; a lookup can skip that: stones never leave the board, so such a string
ends on a board with a four, and no book holds one.  A key found in the
book therefore proves its string legal; only a miss needs the full check,
which names a bad input.

Same bit layout as ``solver.bitboard``: ``key = current + mask``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from solver.bitboard import (BOTTOM_CELLS, CELLS, COLUMN_MASKS, H1, WIDTH, has_four, mirror_bits,
                             win_score)

# What a compiled lookup (``compiled_keys.locate``) gives when it finds no position.
NOT_A_GAME = -2   # a character other than 1-7, or a move into a full column: ask Position
ABSENT = -1       # a playable string whose canonical key the ply lacks

_STEP = {str(col + 1): (BOTTOM_CELLS[col], COLUMN_MASKS[col],
                        BOTTOM_CELLS[WIDTH - 1 - col], COLUMN_MASKS[WIDTH - 1 - col])
         for col in range(WIDTH)}
_COLUMNS = tuple(zip(BOTTOM_CELLS, COLUMN_MASKS, reversed(BOTTOM_CELLS), reversed(COLUMN_MASKS)))
_ONE_WAY = {char: step[:2] for char, step in _STEP.items()}   # key_of's: half the unpacking
# boards_of_many's: a character code -> that column's bottom cell and cells (0, 0: no column).
_BOTTOMS = np.zeros(128, dtype=np.uint64)
_CELLS = np.zeros(128, dtype=np.uint64)
for _char, (_bottom, _column, _, _) in _STEP.items():
    _BOTTOMS[ord(_char)], _CELLS[ord(_char)] = _bottom, _column
del _char, _bottom, _column


class Board(NamedTuple):
    """A position's stones (the mover's, and all) as asked and mirrored."""

    current: int
    mask: int
    mirror_current: int
    mirror_mask: int

    @property
    def canonical(self) -> int:
        """The smaller of the two orientations' keys: the book's key."""
        key, other = self.current + self.mask, self.mirror_current + self.mirror_mask
        return key if key < other else other

def key_of(moves: str) -> int | None:
    """The key after ``moves`` (one orientation: a third of ``board_of``'s time); None
    for a character other than 1-7 or a move into a full column, as ``board_of``."""
    current = mask = 0
    try:
        for char in moves:
            bottom, column = _ONE_WAY[char]
            stone = (mask + bottom) & column   # 0 when the column is full
            if not stone:
                return None
            current ^= mask
            mask |= stone
    except KeyError:
        return None
    return current + mask


def board_of(moves: str) -> Board | None:
    """The board after ``moves``; None for a character other than 1-7 or a move
    into a full column (the caller then asks ``Position``, which names it)."""
    current = mask = other_current = other_mask = 0
    try:
        for char in moves:
            bottom, column, other_bottom, other_column = _STEP[char]
            stone = (mask + bottom) & column   # 0 when the column is full
            if not stone:
                return None
            current ^= mask
            mask |= stone
            other_current ^= other_mask
            other_mask |= (other_mask + other_bottom) & other_column
    except KeyError:
        return None
    return Board(current, mask, other_current, other_mask)


def board_of_position(position) -> Board:
    return Board(position.current, position.mask, mirror_bits(position.current),
                 mirror_bits(position.mask))


def child_boards(board: Board, ply: int) -> list[Board | int | None]:
    """Per column: ``None`` if full, the score if the move ends the game, else the child."""
    current, mask, other_current, other_mask = board
    children: list[Board | int | None] = []
    for bottom, column, other_bottom, other_column in _COLUMNS:
        stone = (mask + bottom) & column
        if not stone:
            children.append(None)
        elif has_four(current | stone):
            children.append(win_score(ply))
        elif ply + 1 == CELLS:
            children.append(0)   # the last cell, and no four: a draw
        else:
            children.append(Board(current ^ mask, mask | stone, other_current ^ other_mask,
                                  other_mask | ((other_mask + other_bottom) & other_column)))
    return children


def boards_of_many(moves_list: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        grid[:, :codes.shape[1]] = codes
    current = np.zeros(count, dtype=np.uint64)
    mask = np.zeros(count, dtype=np.uint64)
    usable = np.ones(count, dtype=bool)
    for ply in range(width):
        playing = lengths > ply
        chars = np.minimum(grid[:, ply], len(_BOTTOMS) - 1)   # anything but 1-7 gets 0, 0
        stone = (mask + _BOTTOMS[chars]) & _CELLS[chars]
        usable &= ~(playing & (stone == 0))  # a bad character or a full column
        current = np.where(playing, current ^ mask, current)
        mask |= stone
    return current, mask, usable


def child_keys_many(current: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each position's children: ``(keys, stones)``, both ``(n, 7)``; a full column has
    stone 0.  The mover's stones after the move are ``current | stone``."""
    keys = np.zeros((len(mask), WIDTH), dtype=np.uint64)
    stones = np.zeros((len(mask), WIDTH), dtype=np.uint64)
    others = current ^ mask
    for col in range(WIDTH):
        stone = (mask + np.uint64(BOTTOM_CELLS[col])) & np.uint64(COLUMN_MASKS[col])
        stones[:, col] = stone
        keys[:, col] = others + (mask | stone)
    return keys, stones


def boards_of_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(current, mask)`` of each key: a column of ``h`` stones is ``2**h - 1 + stones``."""
    mask = np.zeros(len(keys), dtype=np.uint64)
    for col in range(WIDTH):
        shift = np.uint64(col * H1)
        group = ((keys >> shift) & np.uint64(127)) + np.uint64(1)   # 2**h + stones
        height = np.zeros(len(keys), dtype=np.uint64)
        for h in range(1, 7):
            height += group >= np.uint64(1 << h)
        mask |= ((np.uint64(1) << height) - np.uint64(1)) << shift
    return keys - mask, mask

"""A parent's move scores, read from its children's scores in the ply below, in plain Python.

A ply whose children the book holds whole stores no best moves: each move
scores minus its child's score; a move whose child the ply below lacks must
end the game (a four, or the last cell: a draw), else the book is damaged.
This is the plain-Python form of that rule (``solver.packed.move_rule`` is the
compiled one, which ``compiled_family`` runs over many positions at once).
``Family`` reads one position: one numpy search places its seven children
among every 64th key of the ply below, then a bisect of 64 keys finds each
(a few microseconds).  Packed move scores are as ``format.scores`` says.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from solver.bitboard import Board

from ..format.errors import CorruptBookError
from ..format.scores import FULL_COLUMN, SCORE_OFFSET

STEP = 64  # Family's index of the ply below: every STEP-th key


def missing_child(db: str, ply: int) -> CorruptBookError:
    return CorruptBookError(
        f"{db!r}: ply {ply + 1} lacks a child of a ply-{ply} position, though both are complete"
    )


def no_best_move(db: str, ply: int) -> CorruptBookError:
    return CorruptBookError(
        f"{db!r}: a ply-{ply} position's score is no move's score from the ply-{ply + 1} scores"
    )


class Family:
    """One parent ply's positions' move scores, one position at a time, from the ply
    below's sorted keys and scores: nothing derived ahead, nothing kept."""

    def __init__(
        self, board: Board, ply: int, below_keys: np.ndarray, below_scores: np.ndarray, db: str = ""
    ):
        self.board, self.ply, self.db = board, ply, db
        # Every STEP-th key, searched first (a few hundred kB: in cache), then a bisect of
        # STEP keys: half the cache misses of a search of millions of keys (7 us to 9).
        self._tops = np.ascontiguousarray(below_keys[::STEP]).searchsorted
        # Memoryviews: an item read from one is a Python int at once, not a numpy scalar.
        self._keys = memoryview(below_keys)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        self._scores = memoryview(below_scores)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        h1, width = board.h1, board.width
        self._bottom = board.bottom
        # Smearing each column's bits down, ``shift`` at a time, keeping to the column.
        self._smear = tuple(
            (shift, board.bottom * ((1 << (h1 - shift)) - 1))
            for shift in (1 << n for n in range(h1.bit_length()))
            if shift < h1
        )
        self._below_top = self._smear[0][1]  # shift 1's: all but each column's top bit
        # Per column: its cells, and how far its stone moves in the mirror image (left, right).
        self._columns = tuple(
            (cells, max(move, 0), max(-move, 0))
            for col, cells in enumerate(board.column_masks)
            for move in ((width - 1 - 2 * col) * h1,)
        )
        self._win = SCORE_OFFSET + board.win_score(ply)
        self._last = ply + 1 == board.cells  # no four with the last stone: a draw

    def packed(self, key: int, own: int) -> tuple[bytes, int]:
        """The packed move scores and best-move bits of the canonical ``key``, whose score
        is ``own``."""
        # A column of h stones is 2**h - 1 + its stones in the key: + 1, its top bit is
        # the column's next cell (its sentinel when full), found for every column at once.
        smeared = key + self._bottom
        for shift, keep in self._smear:
            smeared |= (smeared >> shift) & keep
        nexts = smeared ^ ((smeared >> 1) & self._below_top)
        mask = nexts - self._bottom
        current = key - mask
        # Every child is the position with the colours swapped, plus its stone: so is
        # every child's mirror image, the swapped position mirrored plus the stone mirrored.
        swapped = (current ^ mask) + mask
        swapped_mirror = self.board.mirror_bits(swapped)
        children = []
        stones = []
        for cells, left, right in self._columns:
            stone = nexts & cells  # 0 when the column is full
            stones.append(stone)
            if stone:
                child = swapped + stone
                other = swapped_mirror + ((stone << left) >> right)
                children.append(min(other, child))
        # Which STEP keys each child is among: one numpy search for them all.
        tops = self._tops(np.array(children, dtype=np.uint64), side="right").tolist()
        below_keys, below_scores = self._keys, self._scores
        count = len(below_keys)
        packed = bytearray([FULL_COLUMN]) * len(stones)
        wanted = own + SCORE_OFFSET
        best = 0
        read = 0
        for col, stone in enumerate(stones):
            if not stone:
                continue  # a full column
            child = children[read]
            low = max(tops[read] - 1, 0) * STEP
            at = bisect_left(below_keys, child, low, min(low + STEP, count))
            if at < count and below_keys[at] == child:
                byte = SCORE_OFFSET - below_scores[at]
            elif self.board.has_four(current | stone):
                byte = self._win
            elif self._last:
                byte = SCORE_OFFSET
            else:
                raise missing_child(self.db, self.ply)
            read += 1
            packed[col] = byte
            if byte == wanted:
                best |= 1 << col
        if not best:
            raise no_best_move(self.db, self.ply)
        return bytes(packed), best

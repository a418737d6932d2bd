"""The export in the layout of John Tromp's UCI "Connect-4" data set (1995).

The published set is every ply-8 position of 7x6 in which neither player
can win with the next move, one of each mirror pair: 67,557 rows.  Each row
is the cells a1..a6, b1..b6, ..., g1..g6 (column by column from the bottom),
``x`` for the first player, ``o`` for the second, ``b`` for blank, then the
first player's outcome, ``win``, ``loss`` or ``draw``; no header.  Any other
ply or board follows the same rule.
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np

from solver.bitboard import Board

from ..book.format import wide_cells
from ..book.format.keys import walker
from ..book.read.scan import Slice, cells
from . import table

_OUTCOME = np.array([b"," + word.encode() for word in table.OUTCOMES], dtype=object)


def quiet(part: Slice, board: Board) -> np.ndarray:
    """Where neither player could win with the next move: no playable cell completes a
    four for the player to move, nor for the other were it their move.  The same
    expression over one word (``Board.winning_cells``) and over two (``wide_cells``)."""
    if board.is_wide:
        current, mask = wide_cells.boards_of_keys(board, wide_cells.of_rows(part.keys))
        playable = wide_cells.add(mask, wide_cells.constant(board.bottom))
        wins = wide_cells.winning_cells(board, current, mask)
        wins |= wide_cells.winning_cells(board, current ^ mask, mask)
        return ~wide_cells.nonzero(wins & playable)
    current, mask = walker(board).boards_of_keys(part.keys)
    playable = mask + np.uint64(board.bottom)  # each column's lowest empty cell
    wins = board.winning_cells(current, mask) | board.winning_cells(current ^ mask, mask)
    return (wins & playable) == 0


class Writer:
    """The quiet positions of each slice, in the UCI layout, into the open file ``sink``."""

    def __init__(self, sink: BinaryIO, board: Board, meta: dict[str, str]):
        self.board = board
        self._file = sink

    def write(self, part: Slice) -> int:
        keep = quiet(part, self.board)
        grid = cells(part, self.board, blank=b"b")[keep]
        count, width = grid.shape
        if not count:
            return 0
        line = np.full((count, 2 * width - 1), ord(","), np.uint8)
        line[:, ::2] = grid
        # The first player's outcome: the mover's at an even ply, the other's at an odd one.
        first = table.outcome_index(part)[keep]
        if part.ply % 2:
            first = 2 - first
        rows = line.view(f"S{2 * width - 1}").ravel().tolist()
        self._file.write(
            b"\n".join(map(b"".join, zip(rows, _OUTCOME[first].tolist(), strict=True))) + b"\n"
        )
        return count

    def close(self) -> None:
        """Nothing to end: the file is its opener's to close."""

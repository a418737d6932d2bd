"""The export as CSV, with the standard library only: a header line, then a row a position.

Fields are never quoted (none holds a comma).  A CSV file says its board
by its columns: ``move_1`` to ``move_W`` give the width, and ``cells``
holds width x height characters.
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np

from solver.bitboard import Board

from ..book.format.scores import FULL_COLUMN, SCORE_OFFSET
from ..book.format.wide_keys import key_ints
from ..book.read.scan import Slice, cells
from . import table

# Small integers as text, made once: a score + 128 and a packed move score -> its field.
_SCORE = np.array([b"%d" % (value - 128) for value in range(256)], dtype=object)
_PACKED = np.array(
    [b"" if value == FULL_COLUMN else b"%d" % (value - SCORE_OFFSET) for value in range(256)],
    dtype=object,
)
_OUTCOME = np.array([word.encode() for word in table.OUTCOMES], dtype=object)


def _texts(matrix: np.ndarray) -> list[bytes]:
    """Each row of an ``(n, w)`` ASCII matrix as bytes."""
    count, width = matrix.shape
    if not width:
        return [b""] * count
    return np.ascontiguousarray(matrix).view(f"S{width}").ravel().tolist()


class Writer:
    """Slices as CSV into the open file ``sink``."""

    def __init__(self, sink: BinaryIO, board: Board, meta: dict[str, str]):
        self.board = board
        self._best = np.array([text.encode() for text in table.best_texts(board)], dtype=object)
        self._file = sink
        self._file.write(",".join(table.names(board)).encode() + b"\n")

    def write(self, part: Slice) -> int:
        board = self.board
        if part.move_scores is None:
            moves = [[b""] * part.size] * board.width
        else:
            moves = [_PACKED[part.move_scores[:, col]].tolist() for col in range(board.width)]
        fields = [
            [b"%d" % part.ply] * part.size,
            _texts(table.moves_text(part)),
            _texts(cells(part, board)),
            list(map(b"%d".__mod__, key_ints(part.keys))),  # past 64 bits too
            _SCORE[part.scores.astype(np.int64) + 128].tolist(),
            _OUTCOME[table.outcome_index(part)].tolist(),
            self._best[part.best].tolist(),
            *moves,
        ]
        self._file.write(b"\n".join(map(b",".join, zip(*fields, strict=True))) + b"\n")
        return part.size

    def close(self) -> None:
        """Nothing to end: the file is its opener's to close."""

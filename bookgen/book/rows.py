"""Rows to write into a book, as columns: one ply's arrays, bound without a Python object per row.

The driver writes millions of rows.  A tuple per row costs more than the
insert itself: building it, and the garbage collector walking every tuple
still alive (all of them, until the batch is written).  So rows stay numpy
columns until they are bound, and then become one flat list of values,
sliced into a plain tuple of parameters per statement of many rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from solver.bitboard import WIDTH

from .schema import BEST_TEXT, COLUMNS

_BEST_TEXT = np.array(BEST_TEXT, dtype=object)  # index by bit set: the stored text


@dataclass(frozen=True, eq=False)
class Rows:
    """Entries of one ply: keys with their scores and best columns (as bit sets).

    ``move_scores`` is ``(n, 7)`` packed bytes (``schema.pack_scores``), or
    ``None`` on the frontier, where only the position itself was searched;
    ``nodes`` is ``None`` for derived entries (stored as 0).
    """

    ply: int
    keys: np.ndarray
    scores: np.ndarray
    best: np.ndarray
    move_scores: np.ndarray | None = None
    nodes: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, part: slice) -> Rows:
        return Rows(self.ply, self.keys[part], self.scores[part], self.best[part],
                    None if self.move_scores is None else self.move_scores[part],
                    None if self.nodes is None else self.nodes[part])

    def template(self) -> str:
        """One row of ``VALUES`` in ``schema.COLUMNS`` order.

        What is the same on every row (the ply; no move scores on the
        frontier; no nodes when derived) is written into the statement, not
        bound once per row.
        """
        values = {"key": "?", "ply": str(int(self.ply)), "score": "?", "wdl": "?",
                  "best_moves": "?", "move_scores": "NULL" if self.move_scores is None else "?",
                  "nodes": "0" if self.nodes is None else "?"}
        return f"({', '.join(values[c] for c in COLUMNS)})"

    def values(self) -> list:
        """The bound values of every row, row after row, in the template's order."""
        columns = [self.keys.tolist(), self.scores.tolist(), np.sign(self.scores).tolist(),
                   _BEST_TEXT[self.best].tolist()]
        if self.move_scores is not None:
            packed = np.ascontiguousarray(self.move_scores, dtype=np.uint8)
            # bytearray, not bytes: sqlite3 binds it as it is, where bytes first go
            # through its adapter lookup (1 us a row, half the time of a derived row).
            columns.append(list(map(bytearray, packed.view(f"V{WIDTH}").ravel().tolist())))
        if self.nodes is not None:
            columns.append(self.nodes.tolist())
        flat = [None] * (len(columns) * len(self))
        for i, column in enumerate(columns):
            flat[i::len(columns)] = column   # interleaved in C: no loop per row here
        return flat

    def statements(self, per_statement: int) -> Iterator[tuple[int, list[tuple]]]:
        """``(rows per statement, parameter tuples)``: whole statements of
        ``per_statement`` rows, then the rest one row each."""
        flat = self.values()
        width = len(flat) // len(self) if len(self) else 0
        whole = (len(self) - len(self) % per_statement) * width
        step = per_statement * width
        if whole:
            yield per_statement, [tuple(flat[i:i + step]) for i in range(0, whole, step)]
        if whole < len(flat):
            yield 1, [tuple(flat[i:i + width]) for i in range(whole, len(flat), width)]

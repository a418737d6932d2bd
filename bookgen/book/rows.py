"""Rows to write into a book, as columns: one ply's arrays, bound without a Python object per row.

The driver writes millions of rows.  A tuple per row costs more than the
insert itself: building it, and the garbage collector walking every tuple
still alive (all of them, until the batch is written).  So rows stay numpy
columns until they are bound, and then become one flat list of values,
sliced into a plain tuple of parameters per statement of many rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from .schema import BEST_TEXT, COLUMNS

_BEST_TEXT = np.array(BEST_TEXT, dtype=object)  # index by bit set: the stored text


@dataclass(frozen=True, eq=False)
class Rows:
    """Entries of one ply: keys with their scores and best columns (as bit sets).

    ``move_scores`` is ``(n, width)`` packed bytes (``schema.pack_scores``), or
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

    @property
    def width(self) -> int:
        """Bytes of move scores a row: the board's width."""
        return 0 if self.move_scores is None else self.move_scores.shape[1]

    def with_keys(self, keys: np.ndarray) -> Rows:
        return replace(self, keys=keys)

    def insert(self, count: int) -> str:
        """An ``INSERT`` of ``count`` rows with ``?`` placeholders, before its conflict clause.

        What is the same on every row (the ply; no move scores on the
        frontier; no nodes when derived) is written into the statement, not
        bound once per row.  Move scores are bound as one blob a statement,
        each row's seven bytes cut from it in SQL: a blob bound per row
        costs the driver more than the insert (sqlite3 looks up an adapter
        for every ``bytes`` value).
        """
        head = f"INSERT INTO positions ({', '.join(COLUMNS)}) "
        ply, bound_nodes = int(self.ply), self.nodes is not None
        if self.move_scores is None:
            row = f"(?, {ply}, ?, ?, ?, NULL, {'?' if bound_nodes else '0'})"
            return head + "VALUES " + ", ".join([row] * count)
        width = self.width
        rows = ", ".join(f"(?, ?, ?, ?, {1 + width * i}{', ?' if bound_nodes else ''})"
                         for i in range(count))
        # WHERE true: SQLite's parser needs it before ON CONFLICT after a SELECT.
        return (head + f"SELECT column1, {ply}, column2, column3, column4, "
                f"substr(?, column5, {width}), {'column6' if bound_nodes else '0'} "
                f"FROM (VALUES {rows}) AS v WHERE true")

    def values(self) -> list:
        """The values bound per row, row after row: key, score, win/draw/loss,
        best columns as text, and nodes if any."""
        columns = [self.keys.tolist(), self.scores.tolist(), np.sign(self.scores).tolist(),
                   _BEST_TEXT[self.best].tolist()]
        if self.nodes is not None:
            columns.append(self.nodes.tolist())
        flat = [None] * (len(columns) * len(self))
        for i, column in enumerate(columns):
            flat[i::len(columns)] = column   # interleaved in C: no loop per row here
        return flat

    def statements(self, per_statement: int) -> Iterator[tuple[int, list[tuple]]]:
        """``(rows per statement, parameter tuples)`` for ``insert(rows per statement)``:
        whole statements of ``per_statement`` rows, then one statement of the rest."""
        flat = self.values()
        width = len(flat) // len(self) if len(self) else 0
        packed = (None if self.move_scores is None else
                  np.ascontiguousarray(self.move_scores, dtype=np.uint8).tobytes())
        whole = len(self) - len(self) % per_statement
        for count, starts in ((per_statement, range(0, whole, per_statement)),
                              (len(self) - whole, range(whole, len(self), per_statement))):
            if not count or not starts:
                continue
            if packed is None:
                yield count, [tuple(flat[width * s:width * (s + count)]) for s in starts]
            else:   # the statement's blob first: its placeholder comes first in the SQL
                size = self.width   # move-score bytes a row
                yield count, [(packed[size * s:size * (s + count)],
                               *flat[width * s:width * (s + count)]) for s in starts]

"""The export as Parquet, through pyarrow (the ``data`` extra): one row group a slice.

The schema's key-value metadata holds ``table.metadata``: the board, the
c4book version, the book file's SHA-256, its root, and whether mirror
images were written.
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from solver.bitboard import Board

from ..book.format.wide_keys import KEY_BYTES, blobs_of
from ..book.read.scan import Slice, cells
from . import table

COMPRESSION = "zstd"


def schema(board: Board, meta: dict[str, str]) -> pa.Schema:
    """The columns and their types (``docs/data.md``)."""
    types = [
        pa.uint8(),
        pa.string(),
        pa.string(),
        pa.binary(KEY_BYTES) if board.is_wide else pa.uint64(),  # past 64 bits: big-endian
        pa.int8(),
        pa.string(),
        pa.string(),
    ] + [pa.int8()] * board.width
    return pa.schema(
        [
            pa.field(name, kind, nullable=name.startswith("move_"))
            for name, kind in zip(table.names(board), types, strict=True)
        ],
        metadata=meta,
    )


def _strings(matrix: np.ndarray) -> pa.Array:
    """Each row of an ``(n, w)`` ASCII matrix as one string, with no Python object."""
    count, width = matrix.shape
    offsets = np.arange(count + 1, dtype=np.int32) * width
    return pa.Array.from_buffers(
        pa.string(),
        count,
        [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(matrix))],
    )


def _keys(keys: np.ndarray) -> pa.Array:
    """The key column: uint64, or past 64 bits each key's 16 bytes, big-endian (as SQL
    stores it: the bytes order as the numbers do)."""
    if keys.ndim == 1:
        return pa.array(keys)
    data = blobs_of(keys).tobytes()
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(KEY_BYTES), len(keys), [None, pa.py_buffer(data)]
    )


class Writer:
    """Slices as Parquet into the open file ``sink`` (a row group each)."""

    def __init__(self, sink: BinaryIO, board: Board, meta: dict[str, str]):
        self.board = board
        self.schema = schema(board, meta)
        self._outcomes = pa.array(table.OUTCOMES)
        self._best = pa.array(table.best_texts(board))
        # A Python file: its errors (a full disk) come back as they are, and a pipe works.
        self._file = pq.ParquetWriter(sink, self.schema, compression=COMPRESSION)

    def write(self, part: Slice) -> int:
        board = self.board
        columns = [
            pa.array(np.full(part.size, part.ply, np.uint8)),
            _strings(table.moves_text(part)),
            _strings(cells(part, board)),
            _keys(part.keys),
            pa.array(part.scores),
            self._outcomes.take(pa.array(table.outcome_index(part))),
            self._best.take(pa.array(part.best)),
        ]
        for col in range(board.width):
            values, none = table.move_scores(part, col)
            columns.append(pa.array(values, mask=none))
        self._file.write_table(pa.Table.from_arrays(columns, schema=self.schema))
        return part.size

    def close(self) -> None:
        """Write the footer (the file stays open: its opener's to close)."""
        self._file.close()

"""Sealing a ply in blocks: its index and keys dictionary, and its blocks in chunks, in one
transaction.

The caller's transaction: a ply is sealed whole or not at all.  The codec is
``format.blocks``, the tables ``format.schema``.  On SQLite a chunk fills a
page (``chunk_size``).
"""

from __future__ import annotations

from sqlalchemy import delete, insert

from solver.bitboard import Board

from ..format.block_index import codec_version, encode_index
from ..format.blocks import encode_ply
from ..format.names import chunk_id
from ..format.schema import ChunkRow, SealedRow
from ..format.segment import Segment

# What a page holds of one row's bytes, on SQLite: the page less its header, the cell's, and
# the record's (docs/book-format.md); elsewhere, a size that a server's pages take well.
PAGE_OVERHEAD = 40
OTHER_CHUNK = 8192 - PAGE_OVERHEAD
ROWS_A_STATEMENT = 256  # chunks inserted a statement: about a MB


def chunk_size(conn) -> int:
    """The chunk size of blocks written on ``conn``."""
    if conn.dialect.name != "sqlite":
        return OTHER_CHUNK
    return int(conn.exec_driver_sql("PRAGMA page_size").scalar_one()) - PAGE_OVERHEAD


def write_sealed(
    conn, ply: int, segment: Segment, board: Board, version: int | None = None
) -> None:
    """Make ``segment`` (the whole ply, sorted) ``ply``'s blocks, on ``conn``, in its
    transaction; any blocks the ply had go.  ``version``: the codec's (``format.blocks``;
    ``None``: the board's, ``codec_version``)."""
    version = codec_version(board) if version is None else version
    encoded = encode_ply(segment, ply, board, version=version)
    delete_sealed(conn, ply)
    size = chunk_size(conn)
    conn.execute(
        insert(SealedRow).values(
            ply=ply,
            positions=encoded.index.positions,
            index=encode_index(encoded.index._replace(chunk_size=size)),
            dictionary=encoded.dictionary,
        )
    )
    data = b"".join(encoded.blocks)
    rows = [
        {"id": chunk_id(ply, n), "data": data[start : start + size]}
        for n, start in enumerate(range(0, len(data), size))
    ]
    for start in range(0, len(rows), ROWS_A_STATEMENT):
        conn.execute(insert(ChunkRow), rows[start : start + ROWS_A_STATEMENT])


def delete_sealed(conn, ply: int) -> None:
    """Remove ``ply``'s blocks and index, if it has any, in ``conn``'s transaction."""
    conn.execute(
        delete(ChunkRow).where(ChunkRow.id >= chunk_id(ply, 0), ChunkRow.id < chunk_id(ply + 1, 0))
    )
    conn.execute(delete(SealedRow).where(SealedRow.ply == ply))

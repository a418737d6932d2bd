"""Sealed plies as stored: each ply's block index and keys dictionary, and its blocks, read checked.

A sealed ply is one ``sealed_plies`` row (its index, which says the size of
its chunks, and its keys dictionary) and its blocks laid end to end in
``block_chunks`` rows (``schema``); the codec is ``blocks``.
``sealed_plies`` reads the indexes (what a reader opens), ``decode`` one
block from its chunks (what a lookup reads, ``read.lazy``), and
``read_sealed`` a whole ply (what the writer and ``verify`` read).  A missing or damaged index, dictionary or
block raises ``CorruptBookError`` naming the ply (and the block): never a
wrong answer.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from solver.bitboard import STANDARD, Board

from .block_index import BlockIndex, codec_version, decode_index
from .blocks import Decoder, decode_block, decode_blocks, ply_decoder
from .errors import CorruptBookError, damaged_ply
from .names import CHUNK_BITS, CHUNKS_TABLE, SEALED_TABLE, chunk_id
from .segment import Segment, check_stones
from .sql import fetch
from .wide_keys import key_ints


class SealedPly(NamedTuple):
    """A sealed ply's index, opened: what finds and decodes its blocks."""

    ply: int
    block_index: BlockIndex
    decoder: Decoder  # not for two threads at once (``blocks.Decoder``)
    first_keys: list[int]  # the index's, as a list: ``bisect`` on one beats numpy's per-call cost

    def __len__(self) -> int:
        return self.block_index.positions

    @property
    def chunk_size(self) -> int:
        return self.block_index.chunk_size

    @property
    def blocks(self) -> int:
        return len(self.first_keys)

    def block_of(self, key: int) -> int:
        """The block that holds ``key`` if any does; -1 for a key below the ply's first."""
        return bisect_right(self.first_keys, key) - 1

    def chunks_of(self, number: int) -> tuple[int, int, int]:
        """``(first chunk id, last chunk id, offset in the first)`` of block ``number``."""
        start, size = self.block_index.span(number)
        first = start // self.chunk_size
        last = (start + max(size, 1) - 1) // self.chunk_size
        return chunk_id(self.ply, first), chunk_id(self.ply, last), start - first * self.chunk_size


def sealed_plies(conn, board: Board, db: str, ply: int | None = None) -> dict[int, SealedPly]:
    """The sealed plies on ``conn`` (``ply`` alone if given), their indexes read and checked."""
    where = "" if ply is None else "WHERE ply = :ply"
    found: dict[int, SealedPly] = {}
    for row in fetch(conn, f"{_INDEXES} {where} ORDER BY ply", {} if ply is None else {"ply": ply}):
        at, decoded, dictionary = _checked(row, board, db)
        if at in found:
            raise damaged_ply(at, "it has two indexes", db)
        decoder = ply_decoder(dictionary, decoded, at, board, db)
        found[at] = SealedPly(at, decoded, decoder, key_ints(decoded.first_keys))
    return found


# ("index" quoted: a keyword of SQL, though a column's name here.)
_INDEXES = f'SELECT ply, positions, "index", dictionary FROM {SEALED_TABLE}'
_ROW = (int, int, bytes, bytes)  # what each column of a ``sealed_plies`` row must be


def _checked(row, board: Board, db: str) -> tuple[int, BlockIndex, bytes]:
    """``(ply, index decoded, dictionary)`` of a ``sealed_plies`` row as c4book writes it:
    each value of its type (SQLite keeps any value in any column: a damaged type byte
    makes an integer text), and its ply and positions those of its index (a row whose ply
    was damaged moves the ply elsewhere)."""
    if any(type(value) is not kind for value, kind in zip(row, _ROW, strict=True)):
        raise damaged_ply(row[0], "its index's row holds a value of the wrong type", db)
    ply, positions, index, dictionary = row
    decoded = decode_index(index, ply, db)
    if positions and decoded.chunk_size < 1:
        raise damaged_ply(ply, "its index says no chunk size", db)
    if positions != decoded.positions:
        raise damaged_ply(
            ply, f"its index holds {decoded.positions} positions, its row {positions}", db
        )
    if len(decoded.first_keys) > 1:  # (one block: its keys are checked when it is read whole)
        check_stones(decoded.first_keys, ply, board, db, "index")
    return ply, decoded, dictionary


def sealed_and_more(ply: int, db: str) -> CorruptBookError:
    """The error of a sealed ply that also holds segments or rows: none is written so."""
    return damaged_ply(ply, "it is sealed, yet it holds rows or segments too", db)


def _joined(chunks: list[bytes], ply: int, db: str) -> bytes:
    if any(type(chunk) is not bytes for chunk in chunks):
        raise damaged_ply(ply, "a chunk of its blocks is not bytes", db)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def decode(sealed: SealedPly, number: int, chunks: list[bytes], db: str) -> Segment:
    """Block ``number`` of ``sealed`` from the chunks that hold it (``chunks_of``)."""
    _, size = sealed.block_index.span(number)
    first, last, offset = sealed.chunks_of(number)
    data = _joined(chunks, sealed.ply, db)
    if len(chunks) != last - first + 1 or len(data) < offset + size:
        raise damaged_ply(sealed.ply, f"its block {number} is cut short", db)
    return decode_block(
        memoryview(data)[offset : offset + size],
        sealed.first_keys[number],
        sealed.block_index.count_of(number),
        sealed.decoder,
        sealed.ply,
        number,
        db,
    )


def read_sealed(conn, sealed: SealedPly, board: Board, db: str, compiled: bool = False) -> Segment:
    """Every block of ``sealed`` decoded and joined: the whole ply, in key order
    (``compiled``: as ``blocks.decode_blocks`` says)."""
    chunks = fetch(
        conn,
        f"SELECT data FROM {CHUNKS_TABLE} WHERE id >= :first AND id < :end ORDER BY id",
        {"first": chunk_id(sealed.ply, 0), "end": chunk_id(sealed.ply + 1, 0)},
    )
    return decode_all(sealed, [data for (data,) in chunks], board, db, compiled)


def decode_all(
    sealed: SealedPly, chunks: list[bytes], board: Board, db: str, compiled: bool = False
) -> Segment:
    """Every block of ``sealed`` from all its chunks, in order: the whole ply
    (``compiled``: as ``decode_blocks`` says)."""
    ends = sealed.block_index.ends
    size = int(ends[-1]) if len(ends) else 0
    data = _joined(chunks, sealed.ply, db) if chunks else b""
    expected = -(-size // sealed.chunk_size) if size else 0
    if len(chunks) != expected or len(data) != size:
        raise damaged_ply(sealed.ply, f"its blocks take {len(data)} bytes, not {size}", db)
    view = memoryview(data)
    spans = [sealed.block_index.span(n) for n in range(sealed.blocks)]
    whole = decode_blocks(
        [view[start : start + length] for start, length in spans],
        sealed.first_keys,
        [sealed.block_index.count_of(n) for n in range(sealed.blocks)],
        sealed.decoder,
        sealed.ply,
        0,
        db,
        compiled,
    )
    if len(whole.keys):
        check_stones(whole.keys, sealed.ply, board, db, "index")
    return whole


def sealed_sizes(conn, board: Board, db: str) -> dict[int, tuple[int, int]]:
    """Per sealed ply: ``(positions, bytes)``, its blocks, index and dictionary counted."""
    chunks: dict[int, int] = {}
    for row_id, size in fetch(conn, f"SELECT id, length(data) FROM {CHUNKS_TABLE}"):
        chunks[row_id >> CHUNK_BITS] = chunks.get(row_id >> CHUNK_BITS, 0) + size
    rows = fetch(conn, _INDEXES)
    sizes: dict[int, tuple[int, int]] = {}
    for row in rows:
        ply, decoded, dictionary = _checked(row, board, db)
        if ply in sizes:
            raise damaged_ply(ply, "it has two indexes", db)
        head = len(row[2]) + len(dictionary)  # the index's bytes as stored, and the dictionary's
        sizes[ply] = (decoded.positions, head + int(chunks.get(ply, 0)))
    return sizes


def codec_versions(conn) -> dict[int, int]:
    """Per sealed ply, the version of the codec its blocks are in (``block_index.VERSIONS``): what
    ``c4book upgrade`` seals again in this one.  Read unchecked: the reader checks."""
    rows = fetch(conn, f'SELECT ply, "index" FROM {SEALED_TABLE}')
    return {ply: index[4] for ply, index in rows if isinstance(index, bytes) and len(index) > 4}


def in_old_codec(conn, board: Board = STANDARD) -> set[int]:
    """The sealed plies whose blocks are in an older codec than the one a ply of ``board``
    is sealed in (``block_index.codec_version``): a version-5 book's."""
    current = codec_version(board)
    return {ply for ply, version in codec_versions(conn).items() if version != current}

"""A sealed ply's index: where each of its blocks is and what it starts with.

A reader opens a sealed ply by its index alone (``sealed``), and finds a
key's block by bisecting the first keys (``find_block``); the blocks
themselves are ``blocks``'.  A block's CRC starts from its index entry
(``entry_seed``), so that a block read from the wrong place fails.

    index:  0       4     magic b"C4BX" (b"C4BW": keys past 64 bits)
            4       1     codec version (2; 1: nothing left out)
            5       1     best-move bytes a position: 0 (none kept), 1, or 2 (width 9)
            6       2     chunk size: bytes a stored chunk of the ply's blocks (0: not cut)
            8       4     block size N: positions a block, the last block fewer
            12      4     positions n of the ply; blocks B = ceil(n / N)
            16      4     bytes of the ply's keys dictionary (0: none)
            20      4     CRC-32 of the dictionary
            24      K B   each block's first key: K = 8 (uint64), or 16 past 64 bits (its low
                          word, then its high word)
            24+KB   4 B   where each block ends in the ply's blocks laid end to end (uint32)
            24+(K+4)B 4   CRC-32 of everything before

Every integer is little-endian.  Past 64 bits (``Board.is_wide``: keys as
``(n, 2)`` rows, ``wide_keys``) plies are sealed in version 2 as well (what the
stones say works over two words: ``implied``); version 1 reads too.  A damaged
index raises ``CorruptBookError`` naming its ply: never a wrong answer.
"""

from __future__ import annotations

import struct
import zlib
from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from solver.bitboard import Board

from .errors import CorruptBookError, damaged_ply
from .wide_keys import KEY_BYTES, increasing

MAGIC = b"C4BX"
WIDE_MAGIC = b"C4BW"  # the index of a ply of keys past 64 bits: first keys of 16 bytes
VERSION = 2  # what the positions' stones say left out (``implied``)
VERSIONS = (1, 2)  # what a reader reads
LEAVES_OUT = 2  # the first version that leaves out what the stones say
HEADER = struct.Struct("<4sBBHIIII")  # the index's, up to its arrays
ENTRY = struct.Struct("<QI")  # a block's index entry, as its CRC starts from it
WIDE_ENTRY = struct.Struct("<QQI")  # and past 64 bits: the first key's low word, high word
CRC = struct.Struct("<I")


class BlockIndex(NamedTuple):
    """A ply's index: where each block is and what it starts with."""

    positions: int
    block_size: int
    best_bytes: int  # 0: the ply keeps no best moves
    first_keys: np.ndarray  # uint64, one a block, strictly increasing ((n, 2) rows past 64 bits)
    ends: np.ndarray  # uint32: block i is bytes ends[i - 1] (0 for the first) to ends[i]
    dictionary_size: int
    dictionary_crc: int
    chunk_size: int = 0  # how the blocks are stored, cut in chunks (``format.sealed``); 0: not
    version: int = VERSION  # 1: every score and best move kept; 2: what the stones say left out

    def count_of(self, block_no: int) -> int:
        """Positions in block ``block_no``."""
        return min(self.block_size, self.positions - block_no * self.block_size)

    @property
    def wide(self) -> bool:
        """Whether the ply's keys pass 64 bits: rows of two words."""
        return self.first_keys.ndim == 2

    def span(self, block_no: int) -> tuple[int, int]:
        """``(offset, length)`` of block ``block_no`` in the ply's blocks laid end to end."""
        start = int(self.ends[block_no - 1]) if block_no else 0
        return start, int(self.ends[block_no]) - start


def codec_version(board: Board) -> int:
    """The codec version a ply of ``board`` is sealed in: ``VERSION``, past 64 bits too
    (``implied`` works over two words)."""
    del board  # (every board alike since 2026-11-29: one place to say otherwise)
    return VERSION


def entry_seed(first_key: int, count: int, wide: bool) -> int:
    """The CRC-32 a block's CRC starts from: its index entry's (first key and count)."""
    if wide:
        return zlib.crc32(WIDE_ENTRY.pack(first_key & (1 << 64) - 1, first_key >> 64, count))
    return zlib.crc32(ENTRY.pack(first_key, count))


def encode_index(index: BlockIndex) -> bytes:
    """The bytes of ``index``, with their CRC-32 at the end."""
    head = HEADER.pack(
        WIDE_MAGIC if index.wide else MAGIC,
        index.version,
        index.best_bytes,
        index.chunk_size,
        index.block_size,
        index.positions,
        index.dictionary_size,
        index.dictionary_crc,
    )
    data = (
        head
        + np.ascontiguousarray(index.first_keys, dtype="<u8").tobytes()
        + np.ascontiguousarray(index.ends, dtype="<u4").tobytes()
    )
    return data + CRC.pack(zlib.crc32(data))


def decode_index(data: bytes | None, ply: int, db: str | None = None) -> BlockIndex:
    """The index in ``data``; ``CorruptBookError`` naming ``ply`` (and ``db``) if damaged."""

    def damaged(why: str) -> CorruptBookError:
        return damaged_ply(ply, f"its block index {why}", db)

    if data is None or len(data) < HEADER.size + CRC.size:
        raise damaged("is truncated")
    view = memoryview(data)
    if CRC.unpack_from(view, len(view) - CRC.size)[0] != zlib.crc32(view[: -CRC.size]):
        raise damaged("fails its checksum")
    magic, version, best_bytes, chunk, block_size, positions, size, crc = HEADER.unpack_from(view)
    wide = magic == WIDE_MAGIC
    if (
        magic not in (MAGIC, WIDE_MAGIC)
        or version not in VERSIONS
        or best_bytes not in (0, 1, 2)
        or block_size < 1
    ):
        raise damaged("has an unknown header")
    blocks = -(-positions // block_size)
    key_bytes = KEY_BYTES if wide else 8
    if len(view) != HEADER.size + (key_bytes + 4) * blocks + CRC.size:
        raise damaged(f"has {len(view)} bytes, not those of {blocks} blocks")
    first_keys = np.frombuffer(data, dtype="<u8", count=key_bytes // 8 * blocks, offset=HEADER.size)
    if wide:
        first_keys = first_keys.reshape(blocks, 2)
    ends = np.frombuffer(data, dtype="<u4", count=blocks, offset=HEADER.size + key_bytes * blocks)
    # Checked though the CRC held: what a writer's mistake would make, a reader refuses.
    ordered = increasing(first_keys) if wide else (first_keys[1:] > first_keys[:-1]).all()
    if blocks and not (ordered and (ends[1:] > ends[:-1]).all() and ends[0] > 0):
        raise damaged("holds keys or ends out of order")
    return BlockIndex(
        positions, block_size, best_bytes, first_keys, ends, size, crc, chunk, version
    )


def find_block(first_keys: Sequence[int] | np.ndarray, key: int) -> int:
    """The block that holds ``key`` if any does: the last whose first key is at most ``key``,
    -1 if none is (a key below the ply's first).  ``first_keys`` is fastest as a list."""
    return bisect_right(first_keys, key) - 1

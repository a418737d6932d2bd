"""A segment: one ply's sorted keys, scores and (optionally) best moves, packed into one blob.

Keys are sorted, so each is stored as its gap to the one before (the first as
itself).  The gaps are 8-byte little-endian integers cut into byte planes:
plane j holds byte j of every gap, and planes above the widest gap are all
zero and not stored.  Low planes look like noise, high planes are mostly
zero: zstd squeezes them to about half a byte a position.  Then one byte a
position of score, and one of best-move bits (bit c: column c + 1 is best)
when the segment keeps them; two bytes, little-endian, on a board of width 9.
``docs/book-format.md`` has a worked example.

    offset  size  field
    0       4     magic b"C4SG"
    4       1     format version (1)
    5       1     flags: bit 0 set when best-move bits follow the scores,
                  bit 1 when they take two bytes a position
    6       1     key planes stored (0-8)
    7       1     reserved (0)
    8       4     positions (uint32, little-endian)
    12      4     CRC-32 of the payload below, before compression
    16      ...   zstd frame of the payload: key planes, scores, best-move bits

Past 64 bits (``Board.is_wide``) keys are ``(n, 2)`` rows (``wide_keys``) and
gaps 16-byte integers: up to 16 planes, the same header.

A blob that fails any check raises ``CorruptBookError`` naming its ply:
a damaged book never answers.  So does a segment whose row (its ply, its
count: outside the blob's checksum) does not describe it (``check_row``).
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple

import numpy as np
import zstandard

from solver.bitboard import STANDARD, Board

from .errors import CorruptBookError, damaged_ply
from .keys import walker
from .names import SEGMENTS_TABLE
from .sql import fetch
from .wide_keys import KEY_BYTES, empty_rows, gaps, increasing, ints_of, order, running_sum
from .wide_keys import stones_of as wide_stones_of

MAGIC = b"C4SG"
VERSION = 1
HAS_BEST = 1
WIDE_BEST = 2
HEADER = struct.Struct("<4sBBBBII")
LEVEL = 19  # zstd: slow to pack (a ply of 5.8M positions in a few seconds), fast to read


class Segment(NamedTuple):
    """Sorted canonical keys with their scores, and best-move bits or ``None``."""

    keys: np.ndarray  # uint64, strictly increasing; past 64 bits ``(n, 2)`` rows (``wide_keys``)
    scores: np.ndarray  # int8
    best: np.ndarray | None  # uint8 (uint16 on width 9), bit c set when column c + 1 is best


def pack(segment: Segment) -> bytes:
    """The blob of ``segment``."""
    keys = np.ascontiguousarray(segment.keys, dtype=np.uint64)
    count, two_words = len(keys), keys.ndim == 2
    if count and not (increasing(keys) if two_words else (keys[1:] > keys[:-1]).all()):
        raise ValueError("a segment's keys must be strictly increasing")
    if two_words:  # 16-byte gaps, little-endian: the low word's bytes, then the high word's
        steps = gaps(keys)
        high = int(steps[:, 1].max()) if count else 0
        low = int(steps[:, 0].max()) if count else 0
        planes = 8 + (high.bit_length() + 7) // 8 if high else (low.bit_length() + 7) // 8
    else:
        steps = np.empty_like(keys)
        steps[:1] = keys[:1]
        np.subtract(keys[1:], keys[:-1], out=steps[1:])
        planes = (int(steps.max()).bit_length() + 7) // 8 if count else 0
    best, flags = segment.best, 0
    best_type: np.dtype = np.dtype(np.uint8)
    if best is not None:
        # Two bytes a position only where a bit past the eighth column is set (width 9).
        wide = best.dtype.itemsize > 1 and len(best) and int(best.max()) > 255
        best_type = np.dtype("<u2") if wide else np.dtype(np.uint8)
        flags = HAS_BEST | (WIDE_BEST if wide else 0)
    # The payload written in place, part after part: a copy of each part joined into
    # another would be the peak of sealing a ply (seven more bytes a position).
    key_bytes = planes * count
    payload = np.empty(key_bytes + count * (1 + (best_type.itemsize if flags else 0)), np.uint8)
    payload[:key_bytes].reshape(planes, count)[...] = (
        steps.view(np.uint8).reshape(count, KEY_BYTES if two_words else 8).T[:planes]
    )
    del steps
    payload[key_bytes : key_bytes + count] = np.ascontiguousarray(
        segment.scores, dtype=np.int8
    ).view(np.uint8)
    if flags:
        payload[key_bytes + count :] = np.ascontiguousarray(best, dtype=best_type).view(np.uint8)
    header = HEADER.pack(MAGIC, VERSION, flags, planes, 0, count, zlib.crc32(payload.data))
    return header + zstandard.ZstdCompressor(level=LEVEL).compress(payload.data)


def unpack(blob: bytes | None, ply: int, board: Board = STANDARD, db: str | None = None) -> Segment:
    """The segment in ``blob``, of the book ``db`` of ``board``; ``CorruptBookError`` naming
    ``ply`` (and ``db``) if it is damaged."""

    def damaged(why: str) -> CorruptBookError:
        return damaged_ply(ply, why, db)

    if blob is None or len(blob) < HEADER.size:
        raise damaged("its segment is truncated")
    magic, version, flags, planes, _, count, crc = HEADER.unpack_from(blob)
    key_bytes = KEY_BYTES if board.is_wide else 8
    if magic != MAGIC or version != VERSION or planes > key_bytes:
        raise damaged("its segment has an unknown header")
    best_bytes = (2 if flags & WIDE_BEST else 1) if flags & HAS_BEST else 0
    width = planes + 1 + best_bytes
    try:
        payload = zstandard.ZstdDecompressor().decompress(
            blob[HEADER.size :], max_output_size=width * count
        )
    except zstandard.ZstdError as error:
        raise damaged(f"its segment does not decompress ({error})") from None
    if len(payload) != width * count or zlib.crc32(payload) != crc:
        raise damaged("its segment fails its checksum")
    data = np.frombuffer(payload, dtype=np.uint8)
    # Each plane written into its byte of the gaps, then summed in place: one array
    # made, a third of the time of a transposed copy and a sum into another.
    planed = np.zeros((count, key_bytes), dtype=np.uint8)
    for plane, values in enumerate(data[: planes * count].reshape(planes, count)):
        planed[:, plane] = values
    if board.is_wide:
        keys = running_sum(planed.view(np.uint64).reshape(count, 2))
    else:
        keys = planed.view(np.uint64).ravel()
        np.cumsum(keys, out=keys)
    # Copies, so that the key planes are freed once the keys are summed.
    scores = data[planes * count : (planes + 1) * count].view(np.int8).copy()
    most = board.max_score  # no position scores more than a win with the first stone
    if count and int(np.abs(scores.astype(np.int16)).max()) > most:
        raise damaged(f"a score in its segment is outside -{most}..{most}")
    best = None
    if best_bytes:
        best = data[(planes + 1) * count :].view("<u2" if best_bytes == 2 else np.uint8)
        best = best.astype(np.uint16) if best_bytes == 2 else best.copy()
    return Segment(keys, scores, best)


def check_row(
    segment: Segment, ply: int, count: int, board: Board = STANDARD, db: str | None = None
) -> Segment:
    """``segment`` if its row's ``ply`` and ``count`` describe it: as many positions, and
    its first or last one of ``ply`` stones (a row whose ply was damaged moves the whole
    segment to another ply); else ``CorruptBookError`` naming the book ``db``."""
    if count != len(segment.keys):
        raise damaged_ply(
            ply, f"its segment's row says {count} positions, the segment {len(segment.keys)}", db
        )
    if count:
        check_stones(segment.keys, ply, board, db, "segment")
    return segment


def check_stones(keys: np.ndarray, ply: int, board: Board, db: str | None, holder: str) -> None:
    """The first or the last of one ply's sorted ``keys`` must be a position of ``ply``
    stones: a row whose ply was damaged moves all of them (one wrong key at one end:
    ``verify`` names it); else ``CorruptBookError`` naming its ``holder``."""
    if board.is_wide:
        stones = [wide_stones_of(key, board) for key in ints_of(keys[[0, -1]])]
    else:
        _, masks = walker(board).boards_of_keys(keys[[0, -1]])
        stones = [int(mask).bit_count() for mask in masks.tolist()]
    if ply not in stones:
        raise damaged_ply(ply, f"its {holder} holds positions of {stones[0]} stones", db)


def empty_segment(best_type: np.dtype | None, wide: bool = False) -> Segment:
    """A ply of no positions, with best moves of ``best_type`` (``None``: none kept), of keys
    past 64 bits if ``wide``."""
    best = None if best_type is None else np.empty(0, best_type)
    return Segment(empty_rows() if wide else np.empty(0, np.uint64), np.empty(0, np.int8), best)


def merge(parts: list[Segment], ply: int, db: str | None = None) -> Segment:
    """One segment of ``ply`` of several, in key order; best-move bits kept only if every part
    has them.  Parts that share a key are a damaged book (``db``)."""
    if len(parts) == 1:
        return parts[0]
    keys = np.concatenate([p.keys for p in parts])
    wide = keys.ndim == 2
    sort = order(keys) if wide else np.argsort(keys, kind="stable")
    keys = keys[sort]
    if len(keys) > 1 and not (increasing(keys) if wide else (keys[1:] > keys[:-1]).all()):
        raise damaged_ply(ply, "two of its parts (segments or rows) hold the same key", db)
    scores = np.concatenate([p.scores for p in parts])[sort]
    best = (
        np.concatenate([p.best for p in parts])[sort]
        if all(p.best is not None for p in parts)
        else None
    )
    return Segment(keys, scores, best)


def segments_of(conn, board: Board, db: str, ply: int | None = None) -> dict[int, list[Segment]]:
    """The segments of ``ply`` (of every ply if ``None``) on ``conn``, each checked, by ply
    in the order written."""
    where = "" if ply is None else "WHERE ply = :ply"
    query = f"SELECT ply, count, data FROM {SEGMENTS_TABLE} {where} ORDER BY ply, id"
    parts: dict[int, list[Segment]] = {}
    for at, count, data in fetch(conn, query, {} if ply is None else {"ply": ply}):
        parts.setdefault(at, []).append(
            check_row(unpack(data, at, board, db), at, count, board, db)
        )
    return parts

"""A sealed ply in blocks: independently compressed runs of neighbouring keys behind an index.

A reader that opens a book reads each ply's small index (every block's first
key and where it ends) and decodes one block a lookup, not the whole ply
(issue 50).

A block holds ``BLOCK_SIZE`` positions (the ply's last block fewer), as three
zstd frames: the keys as LEB128 gaps from the block's first key (which the
index holds), compressed with a dictionary trained on the ply's own gaps;
the scores, one byte a position; the best-move bits, one byte a position, two
on width 9 (no frame where the ply keeps none).  Version 2 leaves out of the
last two what the positions' stones say (``implied``: the score and best moves
where the player to move wins or loses at once, the best move where one move
alone does not lose at once); version 1, which readers still read, keeps all.  Frames are magicless, with
no dictionary id and no checksum of their own, and a frame of nothing is no
bytes at all (a block of one position has no gaps).

    block:  offset  size  field
            0       4     CRC-32 (little-endian) of the rest of the block, started from the
                          CRC-32 of its index entry: first key (uint64) and count (uint32)
            4       1-5   K: bytes of the keys frame (LEB128)
            ...     1-5   S: bytes of the scores frame (LEB128)
            ...     K     keys frame: count - 1 gaps, LEB128, with the ply's dictionary
            ...     S     scores frame: an int8 a position (version 2: a position whose
                          score its stones do not say)
            ...     rest  best-move frame: a uint8 a position (uint16 little-endian on width 9;
                          version 2: a position whose best moves its stones do not say)

    index:  ``block_index``: each block's first key and where it ends

Every integer is little-endian.  One CRC-32 a block (not one a frame): any
damage to a block is caught before a frame is decompressed, in under a
microsecond, and the CRC starts from the block's index entry, so a block
read from the wrong place fails too.  A damaged block, index or dictionary
raises ``CorruptBookError`` naming the ply (and the block): never a wrong
answer.  docs/book-format.md has a worked example; docs/benchmarks.md the
measurements behind these choices.

Past 64 bits (``Board.is_wide``, keys as ``(n, 2)`` rows: ``wide_keys``) a
block's CRC starts from (low word, high word, count), and its gaps are the
same LEB128, up to 19 bytes where the high word changes.  They are sealed in version 2 too
(``implied`` works over two words); version 1 plies past 64 bits read as ever.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import zstandard

from solver.bitboard import STANDARD, Board

from .block_index import (
    CRC,
    LEAVES_OUT,
    VERSION,
    VERSIONS,
    BlockIndex,
    entry_seed,
)
from .errors import CorruptBookError, damaged_ply
from .implied import fill_in, implied, leave_out
from .leb128 import PAD, leb128, leb128_wide, read_gaps, read_wide_gaps
from .segment import Segment, empty_segment
from .wide_keys import gaps, increasing, key_ints, running_sum

# Positions a block (docs/benchmarks.md, "What the stones say"): the smallest whose book
# is about 0.78 B/pos (0.79 at ply 12; 1024: 0.85); 4096 saves 0.04 more for 1.7x the
# first touch.
BLOCK_SIZE = 2048
LEVEL = 19  # zstd: slow to write, and no slower to read than a fast level
ZERO_GAP = bytes(1)  # a gap of 0 in LEB128
GAPS_AT_ONCE = 64  # blocks whose gaps a bulk read decodes at once: three times as fast as a ply
# The keys dictionary: about 1/32 of the ply's LEB128 gap bytes, a power of two within
# these bounds (measured best at plies 7-12), and kept only where it saves more than its size.
DICTIONARY_MIN, DICTIONARY_MAX, DICTIONARY_SHARE = 1 << 10, 1 << 16, 32
TRAINING_BYTES = 100  # samples to train on: about 100 times the dictionary (zstd's advice)
MAGICLESS = zstandard.FORMAT_ZSTD1_MAGICLESS  # saves 4 bytes a frame: the index says what is where


@dataclass(frozen=True)
class EncodedPly:
    """A ply in blocks: its index, its keys dictionary (may be empty) and its blocks."""

    index: BlockIndex
    dictionary: bytes
    blocks: list[bytes]


class Decoder(NamedTuple):
    """What decodes one ply's blocks (``ply_decoder``).  python-zstandard's decompressors are
    not for two threads at once: one a thread, or a lock."""

    keys: zstandard.ZstdDecompressor  # with the ply's dictionary
    plain: zstandard.ZstdDecompressor
    best_type: np.dtype | None
    board: Board
    leaves_out: bool  # version 2 on: what the stones say is worked out again (``implied``)
    wide: bool = False  # keys past 64 bits: ``(n, 2)`` rows


# -- encoding -------------------------------------------------------------------------


def _compressor(level: int, size: int, dictionary: zstandard.ZstdCompressionDict | None):
    params = zstandard.ZstdCompressionParameters.from_level(
        level,
        source_size=max(size, 1),
        dict_size=len(dictionary.as_bytes()) if dictionary else 0,
        format=MAGICLESS,
        write_content_size=1,
        write_checksum=0,
        write_dict_id=0,
    )
    return zstandard.ZstdCompressor(dict_data=dictionary, compression_params=params)


def _frames(streams: list[bytes], level: int, dictionary=None) -> list[bytes]:
    """Each stream a frame, one compressor for all (its tables made once); nothing for
    nothing."""
    compressor = _compressor(level, max(map(len, streams), default=1), dictionary)
    return [compressor.compress(s) if s else b"" for s in streams]


def _train(streams: list[bytes], level: int) -> tuple[bytes, list[bytes]]:
    """``(dictionary, frames)`` for the keys streams: with a dictionary trained on them
    where it saves more than its own size, else none."""
    plain = _frames(streams, level)
    total = sum(map(len, streams))
    size = DICTIONARY_MAX
    while size > total // DICTIONARY_SHARE:
        size //= 2
    samples = [s for s in streams if s]
    if size < DICTIONARY_MIN or len(samples) < 8:
        return b"", plain
    step = max(1, total // (size * TRAINING_BYTES))
    try:
        picked: list = samples[::step]  # (the stub's list of any buffer is invariant)
        trained = zstandard.train_dictionary(size, picked, level=level).as_bytes()
    except zstandard.ZstdError:  # too few or too alike samples: zstd names no better cure
        return b"", plain
    framed = _frames(streams, level, zstandard.ZstdCompressionDict(trained))
    if len(trained) + sum(map(len, framed)) >= sum(map(len, plain)):
        return b"", plain
    return trained, framed


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_ply(
    segment: Segment,
    ply: int,
    board: Board = STANDARD,
    *,
    block_size: int = BLOCK_SIZE,
    level: int = LEVEL,
    version: int = VERSION,
) -> EncodedPly:
    """``segment`` (one ply's sorted keys, scores and best moves or ``None``) in blocks of
    ``block_size`` positions, in codec ``version``.  ``ValueError`` for a segment that
    cannot be a ply of ``board``: keys not strictly increasing, a score or best move out of
    range, or (version 2) an entry that its position's stones contradict."""
    keys = np.ascontiguousarray(segment.keys, dtype=np.uint64)
    scores = np.ascontiguousarray(segment.scores, dtype=np.int8)
    count, wide = len(keys), board.is_wide
    if version not in VERSIONS:
        raise ValueError(f"ply {ply}: no block codec version {version}")
    if keys.ndim != (2 if wide else 1) or (wide and keys.shape[1] != 2):
        raise ValueError(f"ply {ply}: keys of shape {keys.shape} are not keys of {board}")
    if block_size < 1 or count >= 1 << 32 or len(scores) != count:
        raise ValueError(f"ply {ply}: {count} keys, {len(scores)} scores in blocks of {block_size}")
    if count and not (increasing(keys) if wide else (keys[1:] > keys[:-1]).all()):
        raise ValueError(f"ply {ply}: keys must be strictly increasing")
    if count and int(np.abs(scores.astype(np.int16)).max()) > board.max_score:
        raise ValueError(f"ply {ply}: a score is outside -{board.max_score}..{board.max_score}")
    best_type = np.dtype(board.column_set_type).newbyteorder("<")
    best = None
    if segment.best is not None:
        best = np.asarray(segment.best)
        if len(best) != count or (count and int(best.max()) >> board.width):
            raise ValueError(f"ply {ply}: best moves do not fit {count} positions of {board}")
        best = best.astype(best_type)
    starts = range(0, count, block_size)
    # Each block's gaps: the ply's, but for the gap into each block's first key.
    digits, ends = leb128_wide(gaps(keys)[1:]) if wide else leb128(np.diff(keys))
    bounds = np.concatenate(([0], ends)).tolist()
    key_streams = [
        digits[bounds[s] : bounds[min(s + block_size, count) - 1]].tobytes() for s in starts
    ]
    dictionary, key_frames = _train(key_streams, level)
    score_known = best_known = None
    if version >= LEAVES_OUT and count:
        said, scores, best = leave_out(keys, scores, best, ply, board)
        score_known, best_known = said.score_known, said.best_known
    cut = block_size, count
    score_frames = _frames(_streams(scores, score_known, *cut), level)
    best_frames = (
        _frames(_streams(best, best_known, *cut), level)
        if best is not None
        else [b""] * len(score_frames)
    )
    blocks = []
    first_keys = keys[::block_size].copy()
    for first, start, k, s, b in zip(
        key_ints(first_keys), starts, key_frames, score_frames, best_frames, strict=True
    ):
        body = _varint(len(k)) + _varint(len(s)) + k + s + b
        seed = entry_seed(first, min(block_size, count - start), wide)
        blocks.append(CRC.pack(zlib.crc32(body, seed)) + body)
    index = BlockIndex(
        positions=count,
        block_size=block_size,
        best_bytes=0 if best is None else best_type.itemsize,
        first_keys=first_keys,
        ends=np.cumsum([len(b) for b in blocks], dtype=np.uint64).astype(np.uint32),
        dictionary_size=len(dictionary),
        dictionary_crc=zlib.crc32(dictionary),
        version=version,
    )
    if blocks and int(index.ends[-1]) != sum(map(len, blocks)):
        raise ValueError(f"ply {ply}: its blocks take 4 GB or more")
    return EncodedPly(index, dictionary, blocks)


def _streams(kept: np.ndarray, known: np.ndarray | None, size: int, count: int) -> list[bytes]:
    """Each block's bytes of ``kept`` (the values of the positions not ``known``; every
    position's if ``known`` is None), in blocks of ``size`` of ``count`` positions."""
    cuts = [*range(0, count, size), count]
    if known is not None:  # where each block's first kept value is
        cuts = np.concatenate(([0], np.cumsum(~known)))[cuts].tolist()
    return [kept[start:end].tobytes() for start, end in itertools.pairwise(cuts)]


# -- decoding -------------------------------------------------------------------------


def ply_decoder(
    dictionary: bytes, index: BlockIndex, ply: int, board: Board = STANDARD, db: str | None = None
) -> Decoder:
    """What decodes the blocks of ``index``, with its ``dictionary`` checked against it."""
    if len(dictionary) != index.dictionary_size or zlib.crc32(dictionary) != index.dictionary_crc:
        raise damaged_ply(ply, "its keys dictionary fails its checksum", db)
    if index.best_bytes not in (0, np.dtype(board.column_set_type).itemsize):
        raise damaged_ply(ply, f"its blocks keep {index.best_bytes}-byte best moves", db)
    if index.wide != board.is_wide:
        words = "two words" if index.wide else "one word"
        raise damaged_ply(ply, f"its index holds keys of {words}, not those of {board}", db)
    keys = zstandard.ZstdDecompressor(
        dict_data=zstandard.ZstdCompressionDict(dictionary) if dictionary else None,
        format=MAGICLESS,
    )
    best_type = np.dtype(board.column_set_type).newbyteorder("<") if index.best_bytes else None
    plain = zstandard.ZstdDecompressor(format=MAGICLESS)
    return Decoder(keys, plain, best_type, board, index.version >= LEAVES_OUT, index.wide)


def _read_varint(view: memoryview, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = view[at]  # IndexError past the end: the caller's damaged block
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80 or shift > 28:
            return value, at
        shift += 7


def decode_block(
    blob: bytes | memoryview,
    first_key: int,
    count: int,
    decoder: Decoder,
    ply: int,
    block_no: int,
    db: str | None = None,
) -> Segment:
    """Block ``block_no`` of ``ply``: its keys, scores and best moves (``None`` where the ply
    keeps none), not to be written to.  ``CorruptBookError`` naming the ply and the block if
    it is damaged."""
    gaps, scores, best = _checked_frames(blob, first_key, count, decoder, ply, block_no, db)
    if decoder.wide:
        keys = _wide_keys(gaps, first_key, count, ply, block_no, db)
    else:
        keys = np.empty(count, dtype=np.uint64)
        keys[0] = first_key
        read_gaps(gaps + PAD, keys[1:])  # (its count checked: it cannot raise)
        np.add.accumulate(keys, out=keys)  # (half of cumsum's time on a block)
    kept_scores = np.frombuffer(scores, np.int8)
    kept_best = None if decoder.best_type is None else np.frombuffer(best, decoder.best_type)
    if not decoder.leaves_out:
        return Segment(keys, kept_scores, kept_best)
    try:
        said = implied(keys, ply, decoder.board, kept_best is not None)
        return Segment(keys, *_read_only(fill_in(said, kept_scores, kept_best)))
    except ValueError as error:  # past the CRC: a writer's mistake
        raise damaged_ply(ply, f"its block {block_no} does not decode ({error})", db) from None


def _wide_keys(
    gaps: bytes, first_key: int, count: int, ply: int, block_no: int, db: str | None
) -> np.ndarray:
    """A block's keys past 64 bits, as ``(count, 2)`` rows: its first key, then its gaps."""
    steps = np.empty((count, 2), dtype=np.uint64)
    steps[0] = first_key & (1 << 64) - 1, first_key >> 64
    try:
        steps[1:] = read_wide_gaps(gaps + PAD, count - 1)
    except ValueError as error:  # past the CRC: a writer's mistake
        raise damaged_ply(ply, f"its block {block_no} does not decode ({error})", db) from None
    return running_sum(steps)


def decode_blocks(
    blobs: Sequence[bytes | memoryview],
    first_keys: Sequence[int],
    counts: Sequence[int],
    decoder: Decoder,
    ply: int,
    first_block: int = 0,
    db: str | None = None,
    compiled: bool = False,
) -> Segment:
    """Blocks ``first_block``, ``first_block + 1``, ... of ``ply`` joined, as ``decode_block``
    gives each, and checked as it checks each; the keys of all read in one pass (bulk
    reads: a whole ply in a fraction of a block at a time's time).  ``compiled``: the passes
    over every position in numba's kernels (``compiled_blocks``), for a caller that has
    loaded numba anyway: keys of one word only."""
    gaps_of, implied_of = _read_unpadded_gaps, implied
    if compiled and not decoder.wide:
        from . import compiled_blocks

        gaps_of, implied_of = compiled_blocks.read_gaps, compiled_blocks.implied
    frames = [
        _checked_frames(blob, first, count, decoder, ply, first_block + n, db)
        for n, (blob, first, count) in enumerate(zip(blobs, first_keys, counts, strict=True))
    ]
    if not frames:
        return empty_segment(decoder.best_type, decoder.wide)
    starts = np.cumsum([0, *counts[:-1]], dtype=np.int64)
    best = None
    if decoder.best_type is not None:
        best = np.frombuffer(b"".join(b for _, _, b in frames), decoder.best_type)
    scores = np.frombuffer(b"".join(s for _, s, _ in frames), np.int8)
    try:
        if decoder.wide:
            wide = [
                _wide_keys(g, first, count, ply, first_block + n, db)
                for n, ((g, _, _), first, count) in enumerate(
                    zip(frames, first_keys, counts, strict=True)
                )
            ]
            keys = np.concatenate(wide)
        else:
            keys = _narrow_keys(frames, first_keys, counts, starts, gaps_of)
        if not decoder.leaves_out:
            return Segment(keys, scores, best)
        said = implied_of(keys, ply, decoder.board, best is not None)
    except CorruptBookError:  # (a block past 64 bits, named already)
        raise
    except ValueError as error:  # past the CRCs: a writer's mistake
        blocks = f"{first_block}-{first_block + len(frames) - 1}"
        raise damaged_ply(ply, f"its blocks {blocks} do not decode ({error})", db) from None
    # Each block must keep what its own positions need, not only all of them together.
    need_scores = _unknown_per_block(said.score_known, counts, starts).tolist()
    need_best = [0] * len(frames)
    if best is not None and said.best_known is not None:
        need_best = (_unknown_per_block(said.best_known, counts, starts) * best.itemsize).tolist()
    for n, (_, kept_scores, kept_best) in enumerate(frames):
        kept, needed = (len(kept_scores), len(kept_best)), (need_scores[n], need_best[n])
        if kept != needed:
            why = f"it keeps {kept} bytes of scores and best moves for {needed}"
            raise damaged_ply(ply, f"its block {first_block + n} does not decode ({why})", db)
    return Segment(keys, *_read_only(fill_in(said, scores, best)))


def _unknown_per_block(known: np.ndarray, counts: Sequence[int], starts: np.ndarray) -> np.ndarray:
    """How many positions of each block (``counts`` of them from ``starts``) are not
    ``known``.  Where every block but the last holds as many (a ply's), sums of bytes a
    row: a sixth of ``np.add.reduceat``'s time on booleans."""
    unknown = ~known
    size = counts[0]
    if any(count != size for count in counts[:-1]) or counts[-1] > size:
        return np.add.reduceat(unknown, starts)
    full = len(unknown) // size * size
    rows = unknown[:full].view(np.uint8).reshape(-1, size).sum(axis=1, dtype=np.int64)
    if full < len(unknown):
        rows = np.append(rows, np.count_nonzero(unknown[full:]))
    return rows


def _read_unpadded_gaps(data: bytes, values: np.ndarray) -> None:
    """``read_gaps`` of ``data`` without its ``PAD``: ``compiled_blocks.read_gaps``'s twin."""
    read_gaps(data + PAD, values)


def _narrow_keys(
    frames: list[tuple[bytes, bytes, bytes]],
    first_keys: Sequence[int],
    counts: Sequence[int],
    starts: np.ndarray,
    gaps_of: Callable[[bytes, np.ndarray], None],
) -> np.ndarray:
    """The one-word keys of blocks joined: every block's gaps read (``gaps_of``: LEB128 of
    no padding), then one running sum."""
    total = sum(counts)
    steps = np.empty(total, dtype=np.uint64)
    at = 0
    for start in range(0, len(frames), GAPS_AT_ONCE):  # a few blocks at a time: in cache
        some = frames[start : start + GAPS_AT_ONCE]
        count = sum(counts[start : start + GAPS_AT_ONCE])
        # A gap of 0 (one LEB128 byte) before each block's gaps: its start's step, for now.
        gaps_of(b"".join(ZERO_GAP + g for g, _, _ in some), steps[at : at + count])
        at += count
    # One running sum makes every key: at each block's start, the step from the last key
    # of the block before (its first key plus its gaps) to its own first key (in uint64,
    # wrapping alike).
    firsts = np.asarray(first_keys, dtype=np.uint64)
    within = np.add.reduceat(steps, starts)  # each block's gaps (its start's step is 0)
    steps[starts[0]] = firsts[0]
    steps[starts[1:]] = firsts[1:] - firsts[:-1] - within[:-1]
    return np.cumsum(steps, out=steps)


def _read_only(arrays: tuple[np.ndarray, np.ndarray | None]) -> tuple:
    """``arrays`` made read-only, as the views of version 1 are: decoded blocks are cached."""
    for array in arrays:
        if array is not None:
            array.flags.writeable = False
    return arrays


_LOW = bytes(range(0x80))  # the last byte of each LEB128 gap: deleted, the others are left


def _checked_frames(
    blob: bytes | memoryview,
    first_key: int,
    count: int,
    decoder: Decoder,
    ply: int,
    block_no: int,
    db: str | None,
) -> tuple[bytes, bytes, bytes]:
    """The block's ``(gaps, scores, best moves)`` bytes, decompressed and checked to hold
    ``count`` positions; ``CorruptBookError`` naming the ply and the block if damaged."""
    view = memoryview(blob)
    if len(view) < CRC.size or CRC.unpack_from(view)[0] != zlib.crc32(
        view[CRC.size :], entry_seed(first_key, count, decoder.wide)
    ):
        raise damaged_ply(ply, f"its block {block_no} fails its checksum", db)
    try:
        return _block_frames(view, count, decoder)
    except (ValueError, IndexError, zstandard.ZstdError) as error:
        # Past its CRC: only a writer's mistake, or a decoder of another ply, comes here.
        raise damaged_ply(ply, f"its block {block_no} does not decode ({error})", db) from None


def _block_frames(view: memoryview, count: int, decoder: Decoder) -> tuple[bytes, bytes, bytes]:
    keys_size, at = _read_varint(view, CRC.size)
    scores_size, at = _read_varint(view, at)
    scores_at = at + keys_size
    best_at = scores_at + scores_size
    ends = best_at == len(view)  # no best-move frame
    # None where the ply keeps no best moves; in version 2, none where its stones say all.
    fits = ends if decoder.best_type is None else decoder.leaves_out or not ends
    if best_at > len(view) or not fits:
        raise ValueError("its frames do not fit it")
    gaps = decoder.keys.decompress(view[at:scores_at]) if keys_size else b""
    scores = decoder.plain.decompress(view[scores_at:best_at]) if scores_size else b""
    best = decoder.plain.decompress(view[best_at:]) if best_at < len(view) else b""
    best_size = 0 if decoder.best_type is None else decoder.best_type.itemsize
    # Version 2 keeps fewer (``implied``: its caller checks how many once the keys are read).
    fewer = decoder.leaves_out
    if (
        (len(scores) > count if fewer else len(scores) != count)
        or (len(best) > best_size * count if fewer else len(best) != best_size * count)
        or (best_size and len(best) % best_size)
    ):
        raise ValueError("it holds another number of positions than its index")
    # (a last gap left unended would run into the next block's in a bulk read)
    if (
        count < 1
        or len(gaps) - len(gaps.translate(None, _LOW)) != count - 1
        or gaps[-1:] >= b"\x80"
    ):
        raise ValueError(f"its keys frame does not hold {count - 1} gaps")
    return gaps, scores, best


def decode_ply(
    encoded: EncodedPly, ply: int, board: Board = STANDARD, db: str | None = None
) -> Segment:
    """Every block of ``encoded`` decoded and joined: the segment it was made of."""
    index = encoded.index
    decoder = ply_decoder(encoded.dictionary, index, ply, board, db)
    counts = [index.count_of(no) for no in range(len(encoded.blocks))]
    return decode_blocks(encoded.blocks, key_ints(index.first_keys), counts, decoder, ply, 0, db)

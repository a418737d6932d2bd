"""LEB128: unsigned integers 7 bits a byte, low first, bit 7 set on all but the last byte.

A sealed ply's blocks keep their keys as LEB128 gaps (``blocks``).  Encoding
and decoding run over numpy arrays: a dozen numpy calls whatever the count.
"""

from __future__ import annotations

import numpy as np

PAD = bytes(7)  # after the gaps: each gap read as the 8 bytes from its first

# The 7-bit digits of a gap of 1-8 LEB128 bytes read as one little-endian word.
_DIGITS = np.array([0x7F7F7F7F7F7F7F7F >> (8 * (7 - n)) for n in range(8)], dtype=np.uint64)
_JOINS = (  # (mask, shift, times): digits joined in pairs, then fours, then eights
    (np.uint64(0x7F007F007F007F00), np.uint64(1), None),
    (np.uint64(0x3FFF00003FFF0000), np.uint64(2), np.uint64(3)),
    (np.uint64(0x0FFFFFFF00000000), np.uint64(4), np.uint64(15)),
)


def leb128(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(bytes, ends)``: ``values`` (uint64) as LEB128, and where each value's bytes end."""
    values = np.asarray(values, dtype=np.uint64)
    lengths = np.ones(len(values), dtype=np.int64)
    for k in range(1, 10):
        lengths += values >= np.uint64(1 << (7 * k))
    ends = np.cumsum(lengths)
    out = np.empty(int(ends[-1]) if len(values) else 0, dtype=np.uint8)
    starts = ends - lengths
    for k in range(int(lengths.max()) if len(values) else 0):
        has = lengths > k
        digit = (values[has] >> np.uint64(7 * k)) & np.uint64(0x7F)
        more = (lengths[has] > k + 1).astype(np.uint64) << np.uint64(7)
        out[starts[has] + k] = (digit | more).astype(np.uint8)
    return out, ends


def read_gaps(data: bytes, values: np.ndarray) -> None:
    """The LEB128 values in ``data`` into ``values`` (uint64); ``ValueError`` if it holds
    another number of them.

    Each gap is read as the 8 bytes from its first (``data`` ends in ``PAD``), cut to
    its length, and its 7-bit digits joined by shifts: a dozen numpy calls a block
    whatever its size.  A gap of more than 8 bytes (2**56 or more: sparse plies of
    64-bit keys only) takes a slower way."""
    stream = np.frombuffer(data, dtype=np.uint8, count=len(data) - len(PAD))
    (last,) = (stream < 0x80).nonzero()
    gaps = len(values)
    if len(last) != gaps or (gaps and last[-1] != len(stream) - 1):
        raise ValueError(f"its keys frame holds {len(last)} gaps, not {gaps}")
    if not gaps:
        return
    first = np.empty(gaps, dtype=np.int64)
    first[0] = 0
    np.add(last[:-1], 1, out=first[1:])
    lengths = last - first  # less one
    longest = int(lengths.max())
    if longest > 7:
        values[:] = long_gaps(stream, first, last)
        return
    words = np.ndarray((len(stream),), dtype="<u8", buffer=data, strides=(1,))
    words.take(first, out=values, mode="clip")  # (the indices are in range: unbuffered)
    values &= _DIGITS.take(lengths)
    part = np.empty_like(values)
    # Digits a, b at 8-bit steps are a + b * 2**8: take away b * (2**8 - 2**7), and they
    # are a + b * 2**7.  Then pairs of 14 bits, fours of 28, as far as the longest gap needs.
    for mask, shift, times in _JOINS[: longest.bit_length()]:
        np.bitwise_and(values, mask, out=part)
        part >>= shift
        if times is not None:
            part *= times
        values -= part


def long_gaps(stream: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """LEB128 values of any length up to 10 bytes: each byte's digit shifted into place."""
    place = np.arange(len(stream)) - np.repeat(first, last - first + 1)
    if int(place.max()) > 9:
        raise ValueError("its keys frame holds a gap longer than 64 bits")
    digits = (stream & 0x7F).astype(np.uint64) << (np.uint64(7) * place.astype(np.uint64))
    return np.bitwise_or.reduceat(digits, first)


# -- past 64 bits -------------------------------------------------------------------
# A book of a board past 64 bits (``wide_keys``) has gaps of two words: where the high
# word changes, a gap passes 64 bits.  The coding is the same LEB128, of up to 19 bytes;
# a gap below 2**64 is the same bytes as on one word.

WIDE_BYTES = 19  # LEB128 bytes of the largest gap of two words (128 bits, 7 a byte)


def _shifted_right(rows: np.ndarray, shift: int) -> np.ndarray:
    """The low word of each ``(low, high)`` row shifted right by ``shift`` (0-127) bits."""
    low, high = rows[:, 0], rows[:, 1]
    if shift >= 64:
        return high >> np.uint64(shift - 64)
    if shift == 0:
        return low.copy()
    return (low >> np.uint64(shift)) | (high << np.uint64(64 - shift))


def leb128_wide(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``leb128`` of ``(n, 2)`` rows ``(low, high)``: ``(bytes, ends)``."""
    count = len(rows)
    bits = np.where(
        rows[:, 1] > 0,
        64 + _bit_length(rows[:, 1]),
        _bit_length(rows[:, 0]),
    )
    lengths = np.maximum(1, (bits + 6) // 7)
    ends = np.cumsum(lengths)
    out = np.empty(int(ends[-1]) if count else 0, dtype=np.uint8)
    starts = ends - lengths
    for k in range(int(lengths.max()) if count else 0):
        has = lengths > k
        digit = _shifted_right(rows[has], 7 * k) & np.uint64(0x7F)
        more = (lengths[has] > k + 1).astype(np.uint64) << np.uint64(7)
        out[starts[has] + k] = (digit | more).astype(np.uint8)
    return out, ends


def _bit_length(words: np.ndarray) -> np.ndarray:
    """Each word's bit length (0 for 0)."""
    out = np.zeros(len(words), dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        high = (words >> np.uint64(shift)) != 0
        out += np.where(high, shift, 0)
        words = np.where(high, words >> np.uint64(shift), words)
    return out + (words != 0)


def read_wide_gaps(data: bytes, count: int) -> np.ndarray:
    """The ``count`` LEB128 values in ``data`` (which ends in ``PAD``) as ``(count, 2)`` rows;
    ``ValueError`` if it holds another number of them, or one past 128 bits.  Gaps below
    2**56, most of them, are read as on one word (``read_gaps``)."""
    stream = np.frombuffer(data, dtype=np.uint8, count=len(data) - len(PAD))
    (last,) = (stream < 0x80).nonzero()
    if len(last) != count or (count and last[-1] != len(stream) - 1):
        raise ValueError(f"its keys frame holds {len(last)} gaps, not {count}")
    rows = np.zeros((count, 2), dtype=np.uint64)
    if not count:
        return rows
    first = np.empty(count, dtype=np.int64)
    first[0] = 0
    np.add(last[:-1], 1, out=first[1:])
    if int((last - first).max()) <= 7:
        low = np.empty(count, dtype=np.uint64)
        read_gaps(data, low)
        rows[:, 0] = low
        return rows
    place = np.arange(len(stream)) - np.repeat(first, last - first + 1)
    if int(place.max()) >= WIDE_BYTES:
        raise ValueError("its keys frame holds a gap longer than 128 bits")
    digits = (stream & 0x7F).astype(np.uint64)
    at = (7 * place).astype(np.uint64)
    low_part = np.where(at < 64, digits << np.minimum(at, np.uint64(63)), np.uint64(0))
    # A digit from bit 57 up reaches the high word: its bits past 63, moved down.
    high_part = np.where(
        at >= 64,
        digits << (np.maximum(at, np.uint64(64)) - np.uint64(64)),
        np.where(at > 57, digits >> (np.uint64(64) - np.clip(at, 58, 63)), np.uint64(0)),
    )
    rows[:, 0] = np.bitwise_or.reduceat(low_part, first)
    rows[:, 1] = np.bitwise_or.reduceat(high_part, first)
    return rows

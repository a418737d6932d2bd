"""``bookgen.book.format.leb128``: integers 7 bits a byte, written and read over numpy arrays."""

import random
from itertools import accumulate

import numpy as np
import pytest

from bookgen.book.format.leb128 import PAD, leb128, leb128_wide, read_gaps, read_wide_gaps
from bookgen.book.format.wide_keys import ints_of, rows_of


def test_known_bytes():
    digits, ends = leb128(np.array([0, 127, 128, (1 << 64) - 1], np.uint64))
    assert digits.tobytes() == b"\x00\x7f\x80\x01" + b"\xff" * 9 + b"\x01"
    assert ends.tolist() == [1, 2, 4, 14]


@pytest.mark.parametrize("top", [1 << 7, 1 << 40, 1 << 56, 1 << 64], ids=["1 byte", "6", "8", "10"])
def test_every_length_reads_back(top):
    values = np.random.default_rng(top.bit_length()).integers(0, top, 5000, dtype=np.uint64)
    values[:3] = (0, top - 1, top // 2)
    digits, _ = leb128(values)
    back = np.empty(len(values), np.uint64)
    read_gaps(digits.tobytes() + PAD, back)
    assert back.tolist() == values.tolist()


def test_another_count_than_asked_is_refused():
    digits, _ = leb128(np.arange(10, dtype=np.uint64))
    with pytest.raises(ValueError, match="holds 10 gaps, not 9"):
        read_gaps(digits.tobytes() + PAD, np.empty(9, np.uint64))


# -- past 64 bits ----------------------------------------------------------------------


def test_wide_gaps_below_64_bits_are_the_one_word_bytes():
    values = np.random.default_rng(3).integers(0, 1 << 63, 4000, dtype=np.uint64)
    rows = np.stack((values, np.zeros_like(values)), axis=1)
    assert leb128_wide(rows)[0].tobytes() == leb128(values)[0].tobytes()
    assert np.array_equal(leb128_wide(rows)[1], leb128(values)[1])


@pytest.mark.parametrize("bits", [57, 64, 65, 71, 72, 100, 128])
def test_wide_gaps_of_every_length_read_back(bits):
    rng = random.Random(bits)
    values = [0, 1, (1 << bits) - 1, 1 << (bits - 1)] + [rng.getrandbits(bits) for _ in range(999)]
    digits, ends = leb128_wide(rows_of(values))
    assert digits.tobytes() == b"".join(_leb128(v) for v in values)
    assert ends.tolist() == list(accumulate(len(_leb128(v)) for v in values))
    assert ints_of(read_wide_gaps(digits.tobytes() + PAD, len(values))) == values


def test_wide_gaps_refuse_another_count_or_more_than_128_bits():
    digits, _ = leb128_wide(rows_of([1 << 100, 5]))
    with pytest.raises(ValueError, match="holds 2 gaps, not 3"):
        read_wide_gaps(digits.tobytes() + PAD, 3)
    with pytest.raises(ValueError, match="longer than 128 bits"):
        read_wide_gaps(b"\x80" * 19 + b"\x01" + PAD, 1)


def _leb128(value: int) -> bytes:
    """LEB128 of one Python integer, the plain way."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes([*out, value])

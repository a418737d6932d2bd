"""``bookgen.book.format.leb128``: integers 7 bits a byte, written and read over numpy arrays."""

import numpy as np
import pytest

from bookgen.book.format.leb128 import PAD, leb128, read_gaps


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

"""``bookgen.book.compiled_keys``: the compiled walk from moves to keys gives
``keys.key_of``'s keys, and ``locate`` finds what a binary search finds."""

import random

import numpy as np
import pytest
from test_keys import random_strings

from bookgen.book.compiled_keys import keys_of_many, locate
from bookgen.book.keys import ABSENT, NOT_A_GAME, key_of
from solver.bitboard import mirror_bits, mirror_moves

BAD = ["8", "0", "4a", "44444444", "1111111", "4é", " 4", "12\x00", "44x53"]


def test_keys_of_many_equal_key_of():
    strings = random_strings(3000, seed=5) + BAD
    random.Random(6).shuffle(strings)
    text = "".join(strings).encode("ascii", "replace")
    keys = keys_of_many(text, np.cumsum([len(s) for s in strings]))
    assert [None if k < 0 else int(k) for k in keys.tolist()] == [key_of(s) for s in strings]
    assert sum(k < 0 for k in keys.tolist()) == len(BAD)
    assert keys_of_many(b"", np.zeros(0, np.int64)).tolist() == []
    assert keys_of_many(b"", np.zeros(2, np.int64)).tolist() == [0, 0]   # two empty boards


def test_locate_finds_each_key_and_says_which_orientation_is_stored():
    strings = sorted(set(s for s in random_strings(400, seed=7) if len(s) == 9))
    stored = sorted({min(key_of(s), mirror_bits(key_of(s))) for s in strings})
    keys = np.array(stored, np.uint64)
    for moves in strings:
        for asked in (moves, mirror_moves(moves)):
            where = locate(asked.encode(), keys)
            key = key_of(asked)
            assert where >= 0 and stored[where >> 1] == min(key, mirror_bits(key))
            assert where & 1 == (mirror_bits(key) < key), asked


@pytest.mark.parametrize("moves, expected", [("4453", ABSENT), ("", ABSENT)]
                         + [(bad, NOT_A_GAME) for bad in BAD])
def test_locate_misses(moves, expected):
    keys = np.array([key_of("444"), key_of("4444")], np.uint64)
    assert locate(moves.encode("ascii", "replace"), keys) == expected
    assert locate(moves.encode("ascii", "replace"), keys[:0]) == expected

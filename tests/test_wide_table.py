"""Tests for ``solver.wide._table``: two-word entries, the table key (whole high word, or
a tag that with the bucket's index names it), and torn entries read as misses."""

import numpy as np
import pytest

from solver import Board, Solver
from solver.bitboard import TABLE_LOG2_MIN
from solver.errors import ArgumentError
from solver.wide import _table as tt
from solver.wide._words import words

WIDE = Board(8, 8)  # 72-bit keys: the high word fits the tag whole
WIDEST = Board(8, 15)  # 128-bit keys: the tag is the low bits of the mix
LOG2 = 20
SHIFT = np.uint64(64 - LOG2)


def mix(key):
    """The key's mix as a uint64 (numba hands a uint64 back to Python as an int)."""
    return np.uint64(tt.mix(key))


def fresh(log2=LOG2):
    return np.zeros(1 << log2, dtype=np.uint64)


def round_trip(board, table, key, kind, score, move, shift=SHIFT):
    mixed = mix(key)
    slot = tt.bucket(mixed, shift)
    tt.store(board, table, slot, key, mixed, kind, score, move, 9)
    entry = np.uint64(tt.probe(board, table, slot, key, mixed))
    return tt.entry_type(entry), tt.entry_score(board, entry), tt.entry_move(board, entry)


@pytest.mark.parametrize("board", [WIDE, WIDEST], ids=str)
def test_entry_round_trip(board):
    table = fresh()
    key = words((1 << board.key_bits) - 1)  # the largest key
    for kind, score, move in (
        (tt.UPPER, board.min_score, 0),
        (tt.LOWER, board.max_score, board.width - 1),
        (tt.EXACT, 0, (1 << board.column_bits) - 1),
    ):
        table[:] = 0
        assert round_trip(board, table, key, kind, score, move) == (kind, score, move)


def test_keys_that_differ_in_one_word_only_do_not_match():
    table = fresh()
    key = (np.uint64(12345), np.uint64(0x77))
    round_trip(WIDE, table, key, tt.EXACT, 3, 2)
    for other in ((key[0] ^ np.uint64(1 << 40), key[1]), (key[0], key[1] ^ np.uint64(1))):
        mixed = mix(other)
        assert tt.probe(WIDE, table, tt.bucket(mix(key), SHIFT), other, mixed) == 0


def test_the_bucket_index_names_the_rest_of_a_wide_tag():
    # Keys past 111 bits keep 47 bits of the mix; the index must give the other 17.
    assert tt.min_table_log2(WIDE) == 0
    assert tt.min_table_log2(WIDEST) == 19 > TABLE_LOG2_MIN
    assert tt.whole_high(111) and not tt.whole_high(112)
    with pytest.raises(ArgumentError, match=r"table_log2 must be in 19\.\.32 on 8x15"):
        Solver(board=WIDEST, table_log2=18)
    # The mix is a bijection of the high word once the low one is known.
    low = np.uint64(987654321)
    mixes = {int(mix((low, np.uint64(high)))) for high in range(1 << 12)}
    assert len(mixes) == 1 << 12


def test_a_torn_entry_is_a_miss():
    table = fresh()
    key = words((5 << 64) | 99)
    mixed = mix(key)
    slot = tt.bucket(mixed, SHIFT)
    tt.store(WIDE, table, slot, key, mixed, tt.LOWER, 4, 1, 3)
    assert tt.probe(WIDE, table, slot, key, mixed) != 0
    table[slot + 1] ^= np.uint64(1 << 7)  # another write's second word
    assert tt.probe(WIDE, table, slot, key, mixed) == 0


def test_bounds_meet_and_the_cheaper_entry_is_replaced():
    table = fresh(10)  # 256 buckets: keys that share one are easy to find
    shift = np.uint64(64 - 10)
    key = words(7 << 64 | 7)
    mixed = mix(key)
    slot = tt.bucket(mixed, shift)
    tt.store(WIDE, table, slot, key, mixed, tt.UPPER, 2, 1, 5)
    tt.store(WIDE, table, slot, key, mixed, tt.LOWER, 2, 1, 5)
    assert tt.entry_type(np.uint64(tt.probe(WIDE, table, slot, key, mixed))) == tt.EXACT
    # Two more keys in the same bucket: the second replaces the cheaper of the two slots.
    others = []
    for high in range(8, 100_000):
        other = words(high << 64 | 7)
        if tt.bucket(mix(other), shift) == slot:
            others.append(other)
            if len(others) == 2:
                break
    first, second = others
    tt.store(WIDE, table, slot, first, mix(first), tt.EXACT, 1, 0, 2)  # the empty slot
    tt.store(WIDE, table, slot, second, mix(second), tt.EXACT, 1, 0, 9)
    assert tt.probe(WIDE, table, slot, key, mixed) != 0  # work 5 kept
    assert tt.probe(WIDE, table, slot, first, mix(first)) == 0  # work 2 replaced
    assert tt.probe(WIDE, table, slot, second, mix(second)) != 0

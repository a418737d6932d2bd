"""``bookgen.book.format.wide_keys``: keys past 64 bits as rows of two words, their order,
gaps and sums across the words, and their 16-byte SQL form, with numpy alone."""

import itertools
import random
import sqlite3
import subprocess
import sys
from bisect import bisect_left
from contextlib import closing

import numpy as np
import pytest

from bookgen.book.format.wide_keys import (
    KeyList,
    blob_list,
    blob_literal,
    contains,
    gaps,
    increasing,
    ints_of,
    key_ints,
    order,
    rows_of,
    rows_of_blobs,
    running_sum,
    searchsorted,
    stones_of,
    union,
)
from solver import Position
from solver.bitboard import Board

# Keys that differ in the high word alone, and gaps that borrow from it and carry into it.
EDGES = [0, 1, (1 << 64) - 1, 1 << 64, (1 << 64) + 1, 3 << 64, (3 << 64) | 1, (1 << 128) - 1]


def some_keys(count: int = 3000, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    return sorted({rng.getrandbits(rng.choice((40, 72, 128))) for _ in range(count)} | set(EDGES))


def test_rows_are_low_then_high_and_refuse_what_is_not_two_words():
    assert rows_of([5 | 7 << 64]).tolist() == [[5, 7]]
    assert ints_of(rows_of(EDGES)) == EDGES
    for bad in (-1, 1 << 128):
        with pytest.raises(ValueError, match="not a key of two words"):
            rows_of([bad])


def test_gaps_and_running_sums_cross_the_words():
    keys = some_keys()
    rows = rows_of(keys)
    steps = gaps(rows)
    assert ints_of(steps) == [keys[0], *(b - a for a, b in itertools.pairwise(keys))]
    assert ints_of(running_sum(steps)) == keys


def test_order_and_increasing_compare_the_high_word_first():
    keys = some_keys()
    shuffled = rows_of(random.Random(2).sample(keys, len(keys)))
    assert ints_of(shuffled[order(shuffled)]) == keys
    assert increasing(rows_of(keys))
    assert not increasing(rows_of([1 << 64, 2]))  # a larger low word, a smaller key
    assert not increasing(rows_of([5 << 64, 5 << 64]))


def test_blobs_sort_in_sql_as_the_numbers_do(tmp_path):
    keys = some_keys()
    blobs = blob_list(rows_of(keys))
    assert all(len(b) == 16 for b in blobs)  # trailing zero bytes kept
    assert blobs[1] == (1).to_bytes(16, "big")
    assert ints_of(rows_of_blobs(blobs)) == keys
    with closing(sqlite3.connect(tmp_path / "keys.db")) as conn:
        conn.execute("CREATE TABLE t (key BLOB PRIMARY KEY) WITHOUT ROWID")
        conn.executemany("INSERT INTO t VALUES (?)", [(b,) for b in reversed(blobs)])
        back = [k for (k,) in conn.execute("SELECT key FROM t ORDER BY key")]
        assert back == blobs
        low, high = keys[10], keys[20]
        ranged = conn.execute(
            f"SELECT key FROM t WHERE key >= {blob_literal(low, 'sqlite')} "
            f"AND key < {blob_literal(high, 'sqlite')} ORDER BY key"
        ).fetchall()
        assert [int.from_bytes(k, "big") for (k,) in ranged] == keys[10:20]
    with pytest.raises(ValueError, match="not 16 bytes"):
        rows_of_blobs([b"\x01" * 15])
    assert blob_literal(1 << 64, "postgresql") == "'\\x00000000000000010000000000000000'::bytea"


def test_searches_and_unions():
    keys = some_keys()
    rows = rows_of(keys)
    needles = [keys[7], keys[7] + 1, 0, (1 << 128) - 1, 2 << 64]
    assert searchsorted(rows, rows_of(needles)).tolist() == [bisect_left(keys, n) for n in needles]
    assert ints_of(union(rows[::2], rows[:50])) == sorted(set(keys[::2]) | set(keys[:50]))
    assert contains(rows, rows_of(needles)).tolist() == [True, False, True, True, False]
    assert not contains(rows[:0], rows[:3]).any()
    assert key_ints(rows[:3]) == keys[:3] and key_ints(np.array([7, 9], np.uint64)) == [7, 9]
    listed = KeyList(rows)
    assert len(listed) == len(keys) and listed[-1] == keys[-1]
    assert all(bisect_left(listed, k) == at for at, k in enumerate(keys[:200]))


@pytest.mark.parametrize("size", ["8x8", "9x7", "5x12"])
def test_stones_of_a_key(size):
    board = Board.parse(size)
    moves = "".join(str(1 + i % board.width) for i in range(board.width * 3))
    position = Position.from_moves(moves[:-1], board)
    assert stones_of(position.key, board) == position.ply


def test_reading_keys_past_64_bits_needs_no_numba():
    code = (
        "import sys; from bookgen.book.format import wide_keys, blocks, segment, rows; "
        "assert 'numba' not in sys.modules, 'numba loaded'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_blobs_are_a_copy_of_the_keys():
    rows = rows_of([1 << 70, 1 << 71])
    blobs = blob_list(rows)
    rows[0, 1] = 0
    assert ints_of(rows_of_blobs(blobs)) == [1 << 70, 1 << 71]
    assert np.array_equal(rows_of_blobs(blobs), [[0, 64], [0, 128]])

"""``MemoryIndex``: a book's rows in memory, found by either orientation's key."""

import sqlite3

import numpy as np
import pytest

import bookgen.book.memory as memory
from bookgen.book.keys import keys_of
from bookgen.book.memory import MemoryIndex


def canonical(moves: str) -> int:
    return min(keys_of(moves))


# Stored rows as a book holds them: canonical keys, ascending.  "4" is its own
# mirror image; "1" and "7" are one row, as are "12" and "76".
ROWS = sorted([(canonical("4"), 1, "4", None), (canonical("1"), -2, "35", b"\x40" * 7),
               (canonical("12"), 1, "4", None), (canonical("4453"), 0, "1", None)])


def test_rows_share_kinds_and_either_orientation_is_found():
    index = MemoryIndex([ROWS[:2], [], ROWS[2:]])  # batches, one of them empty
    assert len(index) == 4 and repr(index) == "<MemoryIndex of 4 rows, 3 kinds>"
    assert len(index.keys) == 7 and index.nbytes == 7 * 12   # "4" only once
    kind = {row[0]: index.columns.index(row[1:]) for row in ROWS}
    for moves, mirrored in [("4", "4"), ("1", "7"), ("12", "76"), ("4453", "4435")]:
        key, mirror = keys_of(moves)
        stored = min(key, mirror)
        assert index.find(key) == 2 * kind[stored] + (key != stored)
        assert index.find(mirror) == 2 * kind[stored] + (mirror != stored)
    assert index.find(keys_of("2")[0]) is None and index.find(0) is None
    assert index.find(2 ** 49) is None


def test_find_many_equals_find():
    index = MemoryIndex([ROWS])
    asked = [keys_of(m)[0] for m in ("7", "2", "4", "4435", "76", "12", "")] + [0, 2 ** 49]
    assert index.find_many(np.array(asked, dtype=np.uint64)).tolist() == \
        [-1 if index.find(k) is None else index.find(k) for k in asked]
    assert MemoryIndex([]).find_many(np.array(asked, dtype=np.uint64)).tolist() == [-1] * 9
    assert MemoryIndex([]).find(3) is None


@pytest.mark.parametrize("rows", [[ROWS[1], ROWS[0]], [ROWS[0], ROWS[0]]])
def test_rows_out_of_key_order_are_refused(rows):
    with pytest.raises(ValueError, match="ascending key order"):
        MemoryIndex([rows])


def test_from_cursor_reads_a_real_cursor_in_batches(monkeypatch):
    monkeypatch.setattr(memory, "_FETCH", 3)  # four rows: two batches
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE positions (key INTEGER PRIMARY KEY, score, best_moves, move_scores)")
    conn.executemany("INSERT INTO positions VALUES (?, ?, ?, ?)", ROWS[::-1])
    cursor = conn.execute("SELECT key, score, best_moves, move_scores FROM positions ORDER BY key")
    index = MemoryIndex.from_cursor(cursor)
    whole = MemoryIndex([ROWS])
    assert (index.keys, index.codes, index.columns) == (whole.keys, whole.codes, whole.columns)

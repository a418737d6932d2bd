"""``bookgen.book.format.rows``: one ply's columns, as the statements and parameters the store binds,
and read back from a real SQLite table, every row checked against its checksum."""

import sqlite3
from contextlib import closing

import numpy as np
import pytest

from bookgen import CorruptBookError
from bookgen.book.format.names import COLUMNS
from bookgen.book.format.rows import Rows, read_rows
from bookgen.book.format.scores import pack_scores
from bookgen.book.format.wide_keys import ints_of, rows_of

KEYS = np.array([5, 9, 12], dtype=np.uint64)
SCORES = np.array([-2, 0, 7], dtype=np.int8)
BEST = np.array([0b10, 0b1011, 0b1000000], dtype=np.uint8)
PACKED = [
    pack_scores([0, 16, 2, None, 16, 0, None]),  # a full last column: a zero byte
    pack_scores([-3, None, 1, 1, 0, -1, -2]),
    pack_scores([None] * 6 + [5]),
]


def written(rows: Rows, per_statement: int) -> list[tuple]:
    """What ``rows`` become in a real SQLite table, statement by statement."""
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute(f"CREATE TABLE positions ({', '.join(COLUMNS)})")
        for count, params in rows.statements(per_statement):
            conn.executemany(rows.insert(count), params)
        return conn.execute("SELECT * FROM positions ORDER BY key").fetchall()


def test_frontier_rows_bind_key_score_wdl_best_nodes_and_checksum():
    rows = Rows(12, KEYS, SCORES, BEST, nodes=np.array([7, 8, 9]))
    assert len(rows) == 3
    assert rows.insert(2).endswith(
        " VALUES (?, 12, ?, ?, ?, NULL, ?, ?), (?, 12, ?, ?, ?, NULL, ?, ?)"
    )
    c = rows.checksums().tolist()
    assert rows.values() == [
        5,
        -2,
        -1,
        "2",
        7,
        c[0],
        9,
        0,
        0,
        "124",
        8,
        c[1],
        12,
        7,
        1,
        "7",
        9,
        c[2],
    ]
    assert all(type(v) in (int, str) for v in rows.values())
    expected = [
        (5, 12, -2, -1, "2", None, 7, c[0]),
        (9, 12, 0, 0, "124", None, 8, c[1]),
        (12, 12, 7, 1, "7", None, 9, c[2]),
    ]
    assert written(rows, 2) == written(rows, 3) == written(rows, 100) == expected


def test_derived_rows_bind_their_move_scores_once_a_statement_and_store_no_nodes():
    rows = Rows(8, KEYS, SCORES, BEST, np.frombuffer(b"".join(PACKED), np.uint8).reshape(3, 7))
    c = rows.checksums().tolist()
    assert rows.values() == [5, -2, -1, "2", c[0], 9, 0, 0, "124", c[1], 12, 7, 1, "7", c[2]]
    assert list(rows.statements(2)) == [
        (2, [(b"".join(PACKED[:2]), 5, -2, -1, "2", c[0], 9, 0, 0, "124", c[1])]),
        (1, [(PACKED[2], 12, 7, 1, "7", c[2])]),
    ]
    expected = [
        (5, 8, -2, -1, "2", PACKED[0], 0, c[0]),
        (9, 8, 0, 0, "124", PACKED[1], 0, c[1]),
        (12, 8, 7, 1, "7", PACKED[2], 0, c[2]),
    ]
    assert written(rows, 1) == written(rows, 2) == written(rows, 3) == expected
    assert PACKED[0].endswith(b"\x00") and written(rows, 2)[0][5] == PACKED[0]


def test_statements_group_rows_then_take_the_rest_in_one():
    rows = Rows(12, KEYS, SCORES, BEST, nodes=np.array([7, 8, 9]))
    c = rows.checksums().tolist()
    assert list(rows.statements(2)) == [
        (2, [(5, -2, -1, "2", 7, c[0], 9, 0, 0, "124", 8, c[1])]),
        (1, [(12, 7, 1, "7", 9, c[2])]),
    ]
    assert list(rows.statements(3)) == [(3, [tuple(rows.values())])]
    assert list(rows.statements(5)) == [(3, [tuple(rows.values())])]
    assert [(c, len(p)) for c, p in rows.statements(1)] == [(1, 3)]
    assert list(rows[:0].statements(2)) == []


def test_a_slice_is_rows_of_the_same_ply():
    rows = Rows(12, KEYS, SCORES, BEST, nodes=np.array([7, 8, 9]))
    part = rows[1:]
    assert part.ply == 12 and len(part) == 2 and part.values() == rows.values()[6:]


def test_rows_with_both_move_scores_and_nodes():
    rows = Rows(
        8,
        KEYS,
        SCORES,
        BEST,
        np.frombuffer(b"".join(PACKED), np.uint8).reshape(3, 7),
        np.array([7, 8, 9]),
    )
    c = rows.checksums().tolist()
    assert written(rows, 2) == [
        (5, 8, -2, -1, "2", PACKED[0], 7, c[0]),
        (9, 8, 0, 0, "124", PACKED[1], 8, c[1]),
        (12, 8, 7, 1, "7", PACKED[2], 9, c[2]),
    ]


# -- keys past 64 bits ---------------------------------------------------------------

TWO_WORDS = [5, 5 | 1 << 64, 4 | 3 << 64]  # the first two differ in the high word alone


def test_rows_past_64_bits_bind_16_byte_keys_and_read_back_checked(tmp_path):
    rows = Rows(50, rows_of(TWO_WORDS), SCORES, BEST, nodes=np.array([7, 8, 9]))
    values = rows.values()
    assert values[0] == (5).to_bytes(16, "big") and values[6] == (5 | 1 << 64).to_bytes(16, "big")
    checksums = rows.checksums().tolist()
    assert len(set(checksums)) == 3  # the high word is in the checksum
    assert (
        checksums[0] != Rows(50, KEYS[:1], SCORES[:1], BEST[:1], nodes=np.array([7])).checksums()[0]
    )
    path = tmp_path / "rows.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(
            f"CREATE TABLE positions ({', '.join(COLUMNS)}, PRIMARY KEY (key)) WITHOUT ROWID"
        )
        for count, params in rows.statements(2):
            conn.executemany(rows.insert(count), params)
        plies, back = read_rows(conn, "", "rows.db", 8, wide=True)
        assert plies.tolist() == [50] * 3 and ints_of(back.keys) == TWO_WORDS
        assert back.scores.tolist() == SCORES.tolist() and back.best.tolist() == BEST.tolist()
        # A key changed in its high word alone: its row fails its checksum.
        conn.execute(
            "UPDATE positions SET key = ? WHERE key = ?",
            ((5 | 2 << 64).to_bytes(16, "big"), (5 | 1 << 64).to_bytes(16, "big")),
        )
        with pytest.raises(CorruptBookError, match=r"ply 50 is damaged: its row of key .* fails"):
            read_rows(conn, "", "rows.db", 8, wide=True)
        conn.execute("UPDATE positions SET key = 7 WHERE ply = 50 AND score = 7")  # not a blob
        with pytest.raises(CorruptBookError, match="fails its checksum"):
            read_rows(conn, "", "rows.db", 8, wide=True)

"""``bookgen.book.format.rows``: one ply's columns, as the statements and parameters the store binds,
and read back from a real SQLite table, every row checked against its checksum."""

import sqlite3
from contextlib import closing

import numpy as np

from bookgen.book.format.names import COLUMNS
from bookgen.book.format.rows import Rows
from bookgen.book.format.scores import pack_scores

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

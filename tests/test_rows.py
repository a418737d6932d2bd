"""``bookgen.book.rows``: one ply's columns, as the values and statements the store binds."""

import numpy as np

from bookgen.book.rows import Rows
from bookgen.book.schema import pack_scores

KEYS = np.array([5, 9, 12], dtype=np.uint64)
SCORES = np.array([-2, 0, 7], dtype=np.int8)
BEST = np.array([0b10, 0b1011, 0b1000000], dtype=np.uint8)


def test_frontier_rows_bind_key_score_wdl_best_and_nodes():
    rows = Rows(12, KEYS, SCORES, BEST, nodes=np.array([7, 8, 9]))
    assert len(rows) == 3
    assert rows.template() == "(?, 12, ?, ?, ?, NULL, ?)"
    assert rows.values() == [5, -2, -1, "2", 7, 9, 0, 0, "124", 8, 12, 7, 1, "7", 9]
    assert all(type(v) in (int, str) for v in rows.values())


def test_derived_rows_bind_their_move_scores_and_store_no_nodes():
    packed = pack_scores([0, 16, 2, None, 16, 0, None])  # a full last column: a zero byte
    rows = Rows(8, KEYS[:2], SCORES[:2], BEST[:2],
                np.frombuffer(packed * 2, np.uint8).reshape(2, 7))
    assert rows.template() == "(?, 8, ?, ?, ?, ?, 0)"
    assert rows.values() == [5, -2, -1, "2", packed, 9, 0, 0, "124", packed]
    assert len(packed) == 7 and packed.endswith(b"\x00")


def test_statements_group_rows_then_take_the_rest_one_each():
    rows = Rows(12, KEYS, SCORES, BEST, nodes=np.array([7, 8, 9]))
    assert list(rows.statements(2)) == [(2, [(5, -2, -1, "2", 7, 9, 0, 0, "124", 8)]),
                                        (1, [(12, 7, 1, "7", 9)])]
    assert list(rows.statements(3)) == [(3, [tuple(rows.values())])]
    assert [count for count, _ in rows.statements(5)] == [1]
    assert list(rows[:0].statements(2)) == []


def test_a_slice_is_rows_of_the_same_ply():
    rows = Rows(12, KEYS, SCORES, BEST, nodes=np.array([7, 8, 9]))
    part = rows[1:]
    assert part.ply == 12 and len(part) == 2 and part.values() == rows.values()[5:]

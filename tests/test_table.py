"""Tests for ``solver._table``: entries, two-slot buckets and which entry a new one replaces."""

from pathlib import Path

import numpy as np

from solver import STANDARD as B
from solver import _table as tt  # the transposition table

SHIFT = np.uint64(64 - 10)
NO_MOVE = tt.no_move(B)


def fresh():
    return np.zeros(1 << 10, dtype=np.uint64)


def keys_in_one_bucket(count):
    """``count`` different 49-bit keys that hash to the same bucket."""
    wanted, found = None, []
    for key in range(1, 100_000):
        slot = tt.bucket(np.uint64(key), SHIFT)
        wanted = slot if wanted is None else wanted
        if slot == wanted:
            found.append(np.uint64(key))
            if len(found) == count:
                return int(wanted), found
    raise AssertionError("no such keys")


def test_entry_round_trip():
    table = fresh()
    key = np.uint64((1 << 49) - 1)  # the largest key still fits beside the payload
    slot = tt.bucket(key, SHIFT)
    for kind, score, move in ((tt.UPPER, -21, 0), (tt.LOWER, 21, 6), (tt.EXACT, 0, NO_MOVE)):
        table[:] = 0
        tt.store(B, table, slot, key, kind, score, move, 9)
        entry = tt.probe(B, table, slot, key)
        assert (tt.entry_type(entry), tt.entry_score(B, entry), tt.entry_move(B, entry)) == (
            kind,
            score,
            move,
        )
        assert tt.probe(B, table, slot, key - np.uint64(1)) == 0


def test_key_zero_is_not_an_empty_slot():
    # The empty board's key is 0, the same as the key bits of an unused slot.
    table = fresh()
    slot = tt.bucket(np.uint64(0), SHIFT)
    assert tt.probe(B, table, slot, np.uint64(0)) == 0
    tt.store(B, table, slot, np.uint64(0), tt.UPPER, -3, NO_MOVE, 0)
    assert tt.entry_score(B, tt.probe(B, table, slot, np.uint64(0))) == -3


def test_bounds_that_meet_become_exact():
    table = fresh()
    slot, (key,) = keys_in_one_bucket(1)
    tt.store(B, table, slot, key, tt.LOWER, 3, 2, 1)
    tt.store(B, table, slot, key, tt.UPPER, 3, 2, 1)
    assert tt.entry_type(tt.probe(B, table, slot, key)) == tt.EXACT
    tt.store(B, table, slot, key, tt.UPPER, 1, 2, 1)  # nothing overwrites an exact score
    assert (
        tt.entry_type(tt.probe(B, table, slot, key)),
        tt.entry_score(B, tt.probe(B, table, slot, key)),
    ) == (
        tt.EXACT,
        3,
    )


def test_bucket_keeps_the_costlier_entry():
    table = fresh()
    slot, (deep, shallow, newer) = keys_in_one_bucket(3)
    tt.store(B, table, slot, deep, tt.LOWER, 5, 3, 12)
    tt.store(B, table, slot, shallow, tt.UPPER, -2, 1, 1)
    assert tt.probe(B, table, slot, deep) and tt.probe(B, table, slot, shallow)  # both slots in use
    tt.store(B, table, slot, newer, tt.UPPER, 0, 1, 3)
    assert tt.probe(B, table, slot, deep) and tt.probe(B, table, slot, newer)
    assert tt.probe(B, table, slot, shallow) == 0  # the cheaper one made room
    tt.store(B, table, slot, newer, tt.LOWER, 1, 4, 2)  # the same key is updated in place
    assert tt.entry_type(tt.probe(B, table, slot, newer)) == tt.LOWER
    assert tt.probe(B, table, slot, deep)


def test_work_is_about_log4_of_nodes():
    assert [tt.work_of(np.uint64(n)) for n in (0, 1, 3, 4, 15, 16, 1 << 20)] == [
        0,
        0,
        0,
        1,
        1,
        2,
        10,
    ]
    assert tt.work_of(np.uint64(1 << 62)) == 15  # capped to four bits


def test_solver_table_bounds_hold():
    from solver import Position, Solver
    from solver._search import table_bounds

    solver = Solver(table_log2=16)
    # A Middle-Medium position (Test_L2_R2 line 1): searched, so its root is stored.
    p = Position.from_moves((Path(__file__).parent / "data" / "Test_L2_R2").read_text().split()[0])
    assert table_bounds(B, np.uint64(p.current), np.uint64(p.mask), *solver.search_tables()) == (
        -42,
        42,
    )
    score = solver.solve(p)
    low, high = table_bounds(B, np.uint64(p.current), np.uint64(p.mask), *solver.search_tables())
    assert low <= score <= high and (low, high) != (-42, 42)
    m = p.mirror()  # the mirror image shares the entry
    assert table_bounds(B, np.uint64(m.current), np.uint64(m.mask), *solver.search_tables()) == (
        low,
        high,
    )


def test_deep_positions_use_the_threads_own_near_table():
    from solver import Position, Solver
    from solver._search import near_base, scratch_size
    from solver._table import NEAR_EMPTIES, NEAR_SLOTS

    near_ply = B.cells - NEAR_EMPTIES

    solver = Solver(table_log2=16)
    twin = solver.fork()
    tables, twins = solver.search_tables(), twin.search_tables()
    base = near_base(B)
    assert len(tables.table) == 1 << 16 and scratch_size(B) == base + NEAR_SLOTS
    # Middle-Medium positions from before NEAR_PLY, whose searches go past it.
    lines = (Path(__file__).parent / "data" / "Test_L2_R2").read_text().splitlines()
    shallow = [line.split() for line in lines if len(line.split()[0]) < near_ply - 4][:5]
    assert len(shallow) == 5
    for moves, score in shallow:
        assert solver.solve(Position.from_moves(moves)) == int(score)
    assert np.count_nonzero(tables.table) > 0
    assert np.count_nonzero(tables.scratch[base:]) > 0
    # The fork shares the big table, not the near one.
    assert twins.table is tables.table and np.count_nonzero(twins.scratch[base:]) == 0
    solver.clear()
    assert np.count_nonzero(tables.table) == 0 == np.count_nonzero(tables.scratch[base:])

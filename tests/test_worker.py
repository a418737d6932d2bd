"""Tests for ``bookgen.worker``: batches solved on real Ray workers, threads sharing a table."""

import pytest

from bookgen.enumerate import positions_by_ply
from bookgen.frontier import solve_frontier
from bookgen.worker import solve_batch, warm_up, worker_solvers
from solver import Position, Solver

from conftest import SMALL_ROOT

FIELDS = ("key", "ply", "moves", "score", "wdl", "best_moves")


@pytest.fixture(scope="module")
def frontier() -> list[str]:
    """60 neighbouring ply-12 positions below SMALL_ROOT, in build order."""
    return [p.moves for p in positions_by_ply(Position.from_moves(SMALL_ROOT), 12)[12][:60]]


@pytest.fixture(scope="module")
def expected(frontier) -> list[tuple]:
    solver = Solver(table_log2=20)
    return [tuple(solve_frontier(solver, m)[f] for f in FIELDS) for m in frontier]


def test_worker_solvers_share_one_table_and_persist():
    first = worker_solvers(12, 3)
    assert len(first) == 3
    assert all(s._table is first[0]._table for s in first)
    assert worker_solvers(12, 2) == first[:2]  # the same solvers, table kept warm
    assert worker_solvers(13, 1)[0].table_log2 == 13  # a new size starts afresh


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_rows_are_exact_and_in_order(ray_session, frontier, expected, threads):
    import ray

    task = solve_batch.options(num_cpus=threads)
    rows, seconds, pid = ray.get(task.remote(frontier, 20, threads))
    assert [tuple(r[f] for f in FIELDS) for r in rows] == expected
    assert all(r["nodes"] >= 0 for r in rows) and seconds > 0 and pid > 0


def test_warm_up_starts_a_worker_process(ray_session):
    import os

    import ray

    pid = ray.get(warm_up.options(num_cpus=2).remote(16, 2))
    assert pid != os.getpid()

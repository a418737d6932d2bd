"""Tests for ``bookgen.builder.worker``: batches solved on real Ray workers, threads sharing a table."""

import numpy as np
import pytest
from conftest import SMALL_ROOT

from bookgen.builder.listing import keys_by_ply
from bookgen.builder.solve_position import solve_position
from bookgen.builder.worker import solve_batch, worker_solvers
from solver import Position, Solver
from solver.packed import moves_of_keys


@pytest.fixture(scope="module")
def frontier():
    """60 neighbouring ply-12 positions below SMALL_ROOT, in build order (keys)."""
    return keys_by_ply(Position.from_moves(SMALL_ROOT), 12)[12][:60]


@pytest.fixture(scope="module")
def expected(frontier) -> list[tuple]:
    """(score, best columns as bits) of each, solved here by moves."""
    solver = Solver(table_log2=20)
    return [solve_position(solver, m)[:2] for m in moves_of_keys(frontier)]


def test_worker_solvers_share_one_table_and_persist():
    first = worker_solvers(12, 3)
    assert len(first) == 3
    assert all(s.search_tables().table is first[0].search_tables().table for s in first)
    assert worker_solvers(12, 2) == first[:2]  # the same solvers, table kept warm
    assert worker_solvers(13, 1)[0].table_log2 == 13  # a new size starts afresh


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_rows_are_exact_and_in_order(ray_session, frontier, expected, threads):
    import ray

    task = solve_batch.options(num_cpus=threads)
    result = ray.get(task.remote(frontier, 20, threads))
    assert list(zip(result.scores.tolist(), result.best.tolist(), strict=True)) == expected
    assert result.scores.dtype == np.int8 and result.best.dtype == np.uint8
    assert (result.nodes >= 0).all() and result.seconds > 0 and result.pid > 0

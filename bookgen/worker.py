"""What a Ray worker does: solve batches of frontier positions.

Ray reuses worker processes between tasks, so each process keeps one
``Solver`` (and its transposition table, warm from the previous batch of
neighbouring positions) in a module global.  Tasks rather than actors: when
a worker or a whole node dies, Ray reruns the lost task wherever there is a
free core, with no actor to restart or re-home.
"""

from __future__ import annotations

import os
import time

import ray

from solver import Solver

from .frontier import solve_frontier

TASK_RETRIES = 20  # a batch whose worker dies (killed, node lost) is rerun

_solver: Solver | None = None


def worker_solver(table_log2: int) -> Solver:
    global _solver
    if _solver is None or _solver.table_log2 != table_log2:
        _solver = Solver(table_log2=table_log2)
    return _solver


@ray.remote(num_cpus=1, max_retries=TASK_RETRIES)
def warm_up(table_log2: int) -> int:
    """Start a worker process and load the compiled kernels, before any real batch."""
    worker_solver(table_log2).solve("4444443")
    time.sleep(0.5)  # hold the core, so the next warm-up task lands on another process
    return os.getpid()


@ray.remote(num_cpus=1, max_retries=TASK_RETRIES)
def solve_batch(moves_list: list[str], table_log2: int) -> tuple[list[dict], float, int]:
    """Rows for a batch, the seconds spent solving it, and this worker's pid."""
    solver = worker_solver(table_log2)
    start = time.perf_counter()
    rows = [solve_frontier(solver, moves) for moves in moves_list]
    return rows, time.perf_counter() - start, os.getpid()

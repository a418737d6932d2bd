"""What a Ray worker does: solve batches of frontier positions.

Ray reuses worker processes between tasks, so each process keeps its
solvers (and their transposition table, warm from the previous batch of
neighbouring positions) in a module global.  A task asks for ``threads``
CPUs and runs that many solver threads over one shared table: neighbouring
frontier positions share most of their subtrees, so a table shared by the
threads of a node saves about a fifth of the nodes that separate tables
would search.  Tasks rather than actors: when a worker or a whole node dies,
Ray reruns the lost task wherever there are free cores, with no actor to
restart or re-home.
"""

from __future__ import annotations

import itertools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import ray

from solver import STANDARD, Board, Solver
from solver.parent_bounds import Bounds

from .solve_position import solve_position

TASK_RETRIES = 20  # a batch whose worker dies (killed, node lost) is rerun

_solvers: list[Solver] = []


def worker_solvers(table_log2: int, threads: int, board: Board = STANDARD) -> list[Solver]:
    """This process's solvers, one per thread, all sharing one table; only the board's
    kernels are loaded, before the first batch's clock starts (its time is solving only:
    it sizes the next batches)."""
    global _solvers  # noqa: PLW0603 - this worker process's solvers, kept between its tasks
    if not _solvers or _solvers[0].table_log2 != table_log2 or _solvers[0].board is not board:
        _solvers = [Solver(table_log2=table_log2, board=board)]
        _solvers[0].load_kernels()
    while len(_solvers) < threads:
        _solvers.append(_solvers[0].fork())
    return _solvers[:threads]


class BatchResult(NamedTuple):
    """What a batch sends back: arrays in the order of the keys it was given."""

    scores: np.ndarray  # int8
    best: np.ndarray  # uint8 (uint16 on width 9), bit c set when column c + 1 is best
    nodes: np.ndarray  # int64
    seconds: float  # core-seconds spent solving
    pid: int


def solve_keys(
    solvers: list[Solver], keys: np.ndarray, bounds: Bounds | None = None
) -> BatchResult:
    """Solve every key with ``solvers`` (one thread each, sharing their table).

    ``bounds`` holds what the book's previous ply proves about each key.
    The threads take positions in order from one counter, so they work on
    neighbours at the same time.
    """
    board = solvers[0].board
    if board.is_wide:  # keys of two words: ``(n, 2)`` rows
        from solver.wide.packed import positions_of_keys
    else:
        from solver.packed import positions_of_keys
    positions = positions_of_keys(keys, "", board)
    scores = np.zeros(len(keys), dtype=np.int8)
    best = np.zeros(len(keys), dtype=board.column_set_type)
    nodes = np.zeros(len(keys), dtype=np.int64)
    counter = itertools.count()  # next() on it is atomic under the GIL

    def run(solver: Solver) -> float:
        start = time.perf_counter()
        while (i := next(counter)) < len(positions):
            known = bounds.known(i) if bounds is not None else ()
            scores[i], best[i], nodes[i] = solve_position(solver, positions[i], *known)
        return time.perf_counter() - start

    if len(solvers) == 1:
        seconds = run(solvers[0])
    else:
        with ThreadPoolExecutor(len(solvers), thread_name_prefix="solver") as pool:
            seconds = sum(pool.map(run, solvers))
    return BatchResult(scores, best, nodes, seconds, os.getpid())


@ray.remote(num_cpus=1, max_retries=TASK_RETRIES)
def solve_batch(
    keys: np.ndarray,
    table_log2: int,
    threads: int = 1,
    bounds: Bounds | None = None,
    board: Board = STANDARD,
) -> BatchResult:
    """Scores, best moves and nodes for a batch of packed keys (``solver.packed``).

    Submit it with ``.options(num_cpus=threads)``.  Keys (and their bounds)
    go out and arrays come back: a batch of 20,000 positions is 160 kB each way.
    """
    return solve_keys(worker_solvers(table_log2, threads, board), keys, bounds)

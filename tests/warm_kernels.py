"""Compile the search kernels that the tests will need, ahead of them, in a process of
its own (``conftest.pytest_collection_finish`` starts it).

A board's first search compiles its kernels: 5-30 s each on a cold numba cache, as on a
fresh clone or in CI. The test process then waits for numba on one core while the
machine's other core is often idle. This process compiles them on that core, niced, in
the order the default run first needs them; numba's cache hands them to the tests, to
their subprocesses and to Ray's workers. It checks nothing (the tests do): a job that
fails or comes too late only leaves that compile to the test, as without it.

Run as ``python tests/warm_kernels.py JOB...`` (names from ``JOBS``).
"""

import os
import signal
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def search(size: str) -> None:
    """The solver's kernels on ``size``: an exact solve of a position 10 cells before the
    end (``load_kernels``' position takes a minute of search on 8x7)."""
    import random

    from conftest import endgame

    from solver import Board, Solver

    board = Board.parse(size)
    Solver(board=board, table_log2=20).solve(endgame(board, 10, random.Random(1)))


def anytime(size: str) -> None:
    """The anytime search's kernels (``root_values``, the evaluation) on ``size``."""
    from solver import Position, Solver
    from solver.anytime import AnytimeSearch

    board = Solver(board=size, table_log2=20).board
    search = AnytimeSearch(Solver(board=board, table_log2=20), eval_table_log2=14)
    search.choose(Position.from_moves("1" if board.is_wide else "4453", board), nodes=2000)


def race(size: str, moves: str) -> None:
    """Two threads on one position of ``size``, past a lone thread's first nodes
    (``Solver._race``: its own entry to the kernels)."""
    from solver import Solver

    Solver(board=size, table_log2=20, threads=2).solve(moves)


def typed_wide() -> None:
    """7x6 through the two-word kernels (``conftest.WideView``): the solver's and the
    evaluation's, which test_wide_search and test_wide_evaluate hold to the one-word ones."""
    import numpy as np
    from conftest import WideView

    from solver import Board, Position
    from solver import _evaluate as narrow
    from solver.wide import _evaluate as wide
    from solver.wide import _search as wide_search
    from solver.wide._words import words

    board = Board(7, 6)
    view = WideView(board)
    p = Position.from_moves("44444433")
    pair = (words(p.current), words(p.mask))
    table = np.zeros(1 << 16, dtype=np.uint64)
    near = np.zeros(wide_search.scratch_size(view), dtype=np.uint64)
    shift = np.uint64(64 - 16)
    wide_search.solve_window(view, *pair, p.ply, -21, 21, table, near, shift)
    cols = np.array([c - 1 for c in p.legal_moves()], dtype=np.int64)
    values = np.zeros(cols.size, dtype=np.int64)
    keys, data = np.zeros(2 << 14, dtype=np.uint64), np.zeros(1 << 14, dtype=np.uint64)
    scratch = np.zeros(narrow.scratch_size(board), dtype=np.uint64)
    wide.root_values(view, *pair, p.ply, 4, cols, values, keys, data, table, near, shift, scratch)


# Name: (what it compiles, the test modules whose tests need it first), in the order the
# default run first needs them. 7x6's solver has no job of its own: the session's first
# book compiles it in Ray's workers, at once (anytime-7x6 needs it too).
JOBS = {
    "anytime-7x6": (lambda: anytime("7x6"), ["test_anytime"]),
    "8x8": (lambda: search("8x8"), ["test_anytime"]),
    "anytime-8x8": (lambda: anytime("8x8"), ["test_anytime"]),
    "6x5": (lambda: search("6x5"), ["test_cli"]),
    "race-6x5": (lambda: race("6x5", "3"), ["test_cli"]),
    "4x4": (lambda: search("4x4"), ["test_cli", "test_engine"]),
    "5x12": (lambda: search("5x12"), ["test_cli", "test_wide_search"]),
    "race-7x6": (lambda: race("7x6", "4453371226"), ["test_docs", "test_engine"]),
    "8x7": (lambda: search("8x7"), ["test_engine", "test_implied"]),
    "anytime-6x5": (lambda: anytime("6x5"), ["test_fastpath", "test_web_app"]),
    "typed-wide-7x6": (typed_wide, ["test_wide_evaluate", "test_wide_search"]),
    "9x7": (lambda: search("9x7"), ["test_wide_search"]),
    "anytime-5x12": (lambda: anytime("5x12"), ["test_wide_evaluate"]),
}


def run(name: str) -> None:
    try:
        JOBS[name][0]()
    except Exception as error:  # noqa: BLE001 - the test that needs it will say
        print(f"warm_kernels: {name}: {error!r}", file=sys.stderr)


def main(names: list[str]) -> None:
    os.nice(10)  # the tests first: this only takes a core they leave idle
    signal.alarm(15 * 60)  # (whatever happens, never past the run it is for)
    sys.path.insert(0, str(TESTS))
    for name in names:
        run(name)


if __name__ == "__main__":
    main(sys.argv[1:])

"""``Solver``: the typed Python face of the numba search kernels."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _search
from ._bits import winning_cells
from ._table import new_table
from .bitboard import CELLS, TABLE_LOG2_MAX, TABLE_LOG2_MIN, WIDTH, win_score
from .errors import GameOverError, IllegalMoveError, SearchLimitError
from .position import Position

DEFAULT_TABLE_LOG2 = 24  # 16M slots, 128 MiB
# A search with threads first runs alone up to this many nodes (about 30 ms):
# most positions are solved by then, without paying to start the others.
SOLO_NODES = 100_000
# Helper threads order moves with a little noise down to this many plies below
# the root, so that they search different subtrees first and fill the shared
# table with what the main thread will need next.  Measured on the empty board
# (2 threads, wall, with an MTD(f) driver since dropped): 8 plies 26 s, 5: 24 s,
# 4: 21 s, 3: 20 s, 2: 26 s; on 30 ply-8 positions 4 plies took 10% less than 3 or 8.
JITTER_DEPTH = 4


def machine_threads() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_threads(threads: int) -> int:
    """``threads``, if it is a whole number of at least 1; else a ValueError naming it."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a whole number of at least 1, got {threads!r}")
    return threads


class Solver:
    """Strong and weak Connect 4 solver with a persistent transposition table.

    ``Solver().solve(Position.from_moves("4453"))`` gives the exact score.
    The table (``2**table_log2`` slots of 8 bytes, and a 1 MiB near table
    for deep positions) is kept across calls.
    With ``threads=N`` a hard position is searched by N threads that share
    the table (``None``: one per core); answers are the same, only sooner.
    """

    def __init__(self, table_log2: int = DEFAULT_TABLE_LOG2, threads: int | None = 1) -> None:
        if isinstance(table_log2, bool) or not isinstance(table_log2, int) \
                or not TABLE_LOG2_MIN <= table_log2 <= TABLE_LOG2_MAX:
            raise ValueError(f"table_log2 must be in {TABLE_LOG2_MIN}..{TABLE_LOG2_MAX}, "
                             f"got {table_log2!r}")
        threads = machine_threads() if threads is None else check_threads(threads)
        self.table_log2 = table_log2
        self.threads = threads
        self._table = new_table(table_log2)
        self._scratch = _new_scratch()
        self._shift = np.uint64(64 - table_log2)
        self._helpers: list[Solver] = []
        self._pool: ThreadPoolExecutor | None = None

    def __repr__(self) -> str:
        if self.threads == 1:
            return f"Solver(table_log2={self.table_log2})"
        return f"Solver(table_log2={self.table_log2}, threads={self.threads})"

    def fork(self) -> Solver:
        """A single-thread solver for another thread that shares this one's table.

        The kernels release the GIL, so forks search in parallel threads and
        each one reuses what the others proved.  Entries are single 64-bit
        words holding the whole key, so a concurrent write is never read torn
        or mistaken for another position.  Node counts and limits stay per fork.
        """
        twin = Solver.__new__(Solver)
        twin.table_log2 = self.table_log2
        twin.threads = 1
        twin._table = self._table
        twin._shift = self._shift
        twin._scratch = _new_scratch()
        twin._helpers = []
        twin._pool = None
        return twin

    # -- bookkeeping -------------------------------------------------------
    @property
    def nodes(self) -> int:
        """Nodes explored since creation or the last ``reset_nodes``."""
        return int(self._scratch[0])

    def reset_nodes(self) -> None:
        self._scratch[0] = 0

    def clear(self) -> None:
        """Empty the transposition table."""
        self._table.fill(0)
        for solver in (self, *self._helpers):  # their near tables
            solver._scratch[_search.NEAR_BASE:] = 0

    def set_node_limit(self, nodes: int | None) -> None:
        """Stop any search after ``nodes`` more nodes (``None``: no limit).

        A search that hits the limit raises ``SearchLimitError``; what the
        table learnt before that stays valid.
        """
        self._scratch[1] = 0 if nodes is None else self._scratch[0] + max(1, int(nodes))

    def _checked(self, result) -> int:
        if self._scratch[_search.STOPPED]:
            self._scratch[_search.STOPPED] = 0
            raise SearchLimitError("search stopped at its node limit")
        return int(result)

    def _solve_window(self, position: Position, low: int, high: int) -> int:
        """The kernel's answer; with threads, a race that the first finisher ends."""
        args = (*self._args(position), int(low), int(high))
        if self.threads == 1 or self._scratch[_search.LIMIT]:
            return self._checked(_search.solve_window(*args, self._table, self._scratch,
                                                      self._shift))
        # Alone first, within a small node budget: most positions end here.
        self._scratch[_search.LIMIT] = self._scratch[_search.NODES] + SOLO_NODES
        result = _search.solve_window(*args, self._table, self._scratch, self._shift)
        self._scratch[_search.LIMIT] = 0
        if not self._scratch[_search.STOPPED]:
            return int(result)
        self._scratch[_search.STOPPED] = 0
        return self._race(args, position.ply)

    def _race(self, args: tuple, ply: int) -> int:
        """All threads solve the same position; the first answer stops the others.

        Helpers jitter their move order near the root, so each explores other
        subtrees first; the table they share passes every proof to the rest.
        """
        if not self._helpers:
            self._helpers = [self.fork() for _ in range(self.threads - 1)]
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="c4solver")
        runners = [self, *self._helpers]
        answers: list[int] = []
        lock = threading.Lock()

        def run(solver: Solver) -> None:
            scratch = solver._scratch
            result = _search.solve_window(*args, solver._table, scratch, solver._shift)
            if not scratch[_search.STOPPED]:
                with lock:
                    answers.append(int(result))
                for other in runners:  # a node limit of 1: each stops at its next node
                    if other is not solver:
                        other._scratch[_search.LIMIT] = 1

        for number, helper in enumerate(self._helpers, start=1):
            helper._scratch[_search.JITTER] = 0x9E3779B97F4A7C15 * number % (1 << 64)
            helper._scratch[_search.JITTER_PLY] = ply + JITTER_DEPTH
            helper._scratch[_search.NODES] = 0
            # Helper n shifts its first probe by n: the threads prove different
            # bounds, and each bound helps the others (empty board, 2 threads:
            # 30.7 s against 32.9 s unshifted).
            helper._scratch[_search.FIRST_PROBE_SHIFT] = number
        futures = [self._pool.submit(run, helper) for helper in self._helpers]
        run(self)
        for future in futures:
            future.result()
        for solver in runners:
            solver._scratch[_search.LIMIT] = 0
            solver._scratch[_search.STOPPED] = 0
        self._scratch[_search.NODES] += sum(int(h._scratch[_search.NODES]) for h in self._helpers)
        return answers[0]

    # -- search ------------------------------------------------------------
    def solve(self, position: Position | str, weak: bool = False) -> int:
        """Exact score (Pons' convention), or with ``weak`` only its sign."""
        if weak:
            return self.solve_window(position, -1, 1)
        return self.solve_window(position, -CELLS, CELLS)

    def solve_window(self, position: Position | str, low: int, high: int) -> int:
        """The exact score clamped to ``[low, high]``; cheaper the narrower it is."""
        position = _playable(position)
        if low > high:
            raise ValueError(f"empty window [{low}; {high}]")
        return self._solve_window(position, low, high)

    def negamax(self, position: Position | str, alpha: int, beta: int) -> int:
        """One fail-soft alpha-beta search within ``(alpha, beta)``.

        The result ``r`` says: ``r <= alpha`` means score <= r; ``r >= beta``
        means score >= r; otherwise score == r.
        """
        position = _playable(position)
        if alpha >= beta:
            raise ValueError(f"empty window ({alpha}; {beta})")
        if any(position.is_winning_move(col) for col in range(1, WIDTH + 1)):
            return win_score(position.ply)
        current, mask, ply = self._args(position)
        threats = np.uint64(winning_cells(current ^ mask, mask))
        return self._checked(_search.negamax(current, mask, ply, int(alpha), int(beta), threats,
                                             self._table, self._scratch, self._shift))

    def analyze(self, position: Position | str) -> list[int | None]:
        """Exact score of each column 1-7 for the player to move; ``None`` if full."""
        return _playable(position).move_scores(self.solve)

    def is_best_move(self, position: Position | str, col: int, score: int) -> bool:
        """Whether ``col`` reaches ``score``, the position's known exact score.

        One null-window search of the child, much cheaper than solving it.
        """
        position = _playable(position)
        if not position.can_play(col):
            return False
        if position.is_winning_move(col):
            return win_score(position.ply) >= score
        child = position.play(col)
        if child.is_full:
            return score <= 0
        # -child >= score  <=>  child <= -score
        return self.solve_window(child, -score, -score + 1) <= -score

    @staticmethod
    def _args(position: Position) -> tuple:
        return np.uint64(position.current), np.uint64(position.mask), position.ply


def _new_scratch() -> np.ndarray:
    return np.zeros(_search.SCRATCH_SIZE, dtype=np.uint64)


def _playable(position: Position | str) -> Position:
    if isinstance(position, str):
        position = Position.from_moves(position)
    elif not isinstance(position, Position):
        raise IllegalMoveError(f"expected a Position or a move string, got {position!r}")
    if position.is_game_over:
        raise GameOverError(f"the game is over after {position.moves!r}: nothing to solve",
                            position.moves)
    return position

"""``Solver``: the typed Python face of the numba search kernels."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from . import _search
from ._bits import winning_cells
from ._table import min_table_log2, new_table
from .bitboard import (
    DEFAULT_TABLE_LOG2,
    MAX_THREADS,
    STANDARD,
    TABLE_LOG2_MAX,
    TABLE_LOG2_MIN,
    Board,
)
from .errors import ArgumentError, GameOverError, SearchLimitError, is_whole
from .position import Position, position_on
from .wide._words import words

# A search with threads first runs alone up to this many nodes: easy
# positions are solved by then, without paying to start the others.
SOLO_NODES = 20_000


def machine_threads() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def smallest_table_log2(board: Board) -> int:
    """The smallest table a solver of ``board`` takes (``_table.min_table_log2``)."""
    if board.is_wide:
        return max(TABLE_LOG2_MIN, _kernels(board).min_table_log2(board))
    return max(TABLE_LOG2_MIN, min_table_log2(board))


def _kernels(board: Board):
    """The search kernels of ``board``: ``_search``, or past 64 bits ``wide._search`` (two
    words a bitboard), loaded only by a process that plays such a board."""
    if board.is_wide:
        from .wide import _search as wide

        return wide
    return _search


def _threats(board: Board, current, mask):
    """The opponent's winning cells, as ``board``'s kernels take them (``_args``' words)."""
    if board.is_wide:  # (numba hands uint64 words back to Python as ints)
        low, high = _kernels(board).threats_of(board, current, mask)
        return np.uint64(low), np.uint64(high)
    return np.uint64(winning_cells(board, current ^ mask, mask))


def kernel_args(board: Board, position: Position) -> tuple:
    """``position`` as ``board``'s kernels take it: stones, mask (past 64 bits each a pair of
    words), ply."""
    if board.is_wide:
        return words(position.current), words(position.mask), position.ply
    return np.uint64(position.current), np.uint64(position.mask), position.ply


def check_threads(threads: int) -> int:
    """``threads``, if it is a whole number from 1 to ``MAX_THREADS``; else an
    ``ArgumentError`` naming it."""
    if not is_whole(threads) or not 1 <= threads <= MAX_THREADS:
        raise ArgumentError(
            f"threads must be a whole number from 1 to {MAX_THREADS}, got {threads!r}"
        )
    return threads


class SearchTables(NamedTuple):
    """A solver's tables, as the search kernels take them (``_search.table_bounds``)."""

    table: np.ndarray  # the big table, shared with the solver's forks
    scratch: np.ndarray  # the solver's own scratch array, which holds its near table
    shift: np.uint64  # 64 - table_log2: the big table's bucket shift


class Solver:
    """Strong and weak Connect 4 solver with a persistent transposition table.

    ``Solver().solve(Position.from_moves("4453"))`` gives the exact score.
    The table (``2**table_log2`` slots of 8 bytes, and a 1 MiB near table
    for deep positions) is kept across calls.
    With ``threads=N`` a hard position is searched by N threads that share
    the table (``None``: one per core); answers are the same, only sooner.
    A solver plays one ``board`` (a ``Board`` or ``"WxH"``; 7x6 by default).

    Threads may share a solver: its searches run one at a time, in turn (a
    lock), so each answer is the one a lone search gives.  To search in
    parallel, give each thread a ``fork()``: forks share the table.
    ``set_node_limit`` takes no lock: it is how another thread stops a search.
    """

    def __init__(
        self,
        table_log2: int = DEFAULT_TABLE_LOG2,
        threads: int | None = 1,
        board: Board | str | None = None,
    ) -> None:
        board = Board.parse(board)
        smallest = smallest_table_log2(board)
        if not is_whole(table_log2) or not smallest <= table_log2 <= TABLE_LOG2_MAX:
            raise ArgumentError(
                f"table_log2 must be in {smallest}..{TABLE_LOG2_MAX}"
                f"{'' if board is STANDARD else f' on {board}'}, got {table_log2!r}"
            )
        threads = machine_threads() if threads is None else check_threads(threads)
        self.board = board
        self.table_log2 = table_log2
        self.threads = threads
        self._search = _kernels(board)
        self._table = new_table(table_log2)
        self._scratch = _new_scratch(board)
        self._shift = np.uint64(64 - table_log2)
        # Which shallow nodes the threads are searching (see _search.negamax).
        self._busy = np.zeros(1 << _search.BUSY_LOG2, dtype=np.uint64) if threads > 1 else None
        self._helpers: list[Solver] = []
        self._pool: ThreadPoolExecutor | None = None
        # One search at a time: the scratch (node count, limit, near table) and the
        # race's helpers are this solver's alone.  Reentrant: analyze calls solve, and
        # the anytime search holds it across the solves of one move.
        self.lock = threading.RLock()

    def __repr__(self) -> str:
        threads = "" if self.threads == 1 else f", threads={self.threads}"
        board = "" if self.board is STANDARD else f", board={str(self.board)!r}"
        return f"Solver(table_log2={self.table_log2}{threads}{board})"

    def fork(self) -> Solver:
        """A single-thread solver for another thread that shares this one's table.

        The kernels release the GIL, so forks search in parallel threads and
        each one reuses what the others proved.  Entries are single 64-bit
        words holding the whole key, so a concurrent write is never read torn
        or mistaken for another position.  Node counts and limits stay per fork.
        """
        twin = Solver.__new__(Solver)
        twin.board = self.board
        twin.table_log2 = self.table_log2
        twin.threads = 1
        twin._search = self._search
        twin._table = self._table
        twin._shift = self._shift
        twin._busy = self._busy
        twin._scratch = _new_scratch(self.board)
        twin._helpers = []
        twin._pool = None
        twin.lock = threading.RLock()
        return twin

    def load_kernels(self) -> float:
        """Load the search kernels now (compiled the first time after an install or a
        change: tens of seconds), so that no timed search pays for it; the seconds it took.

        It solves one position a few stones in: the table keeps a few entries.
        """
        started = time.perf_counter()
        board = self.board
        if board.is_wide:  # a win at once: deeper, a wide board's positions take too long
            self.solve("12" * 3)
            return time.perf_counter() - started
        middle = str(board.column_order[0] + 1)
        self.solve(middle * board.height + str(board.column_order[1] + 1))
        return time.perf_counter() - started

    def search_tables(self) -> SearchTables:
        """This solver's tables, for another search's kernels to read its proofs.

        The anytime search's leaves read them; only this solver's kernels write them.
        """
        return SearchTables(self._table, self._scratch, self._shift)

    # -- bookkeeping -------------------------------------------------------
    @property
    def nodes(self) -> int:
        """Nodes explored since creation or the last ``reset_nodes``."""
        return int(self._scratch[_search.NODES])

    def reset_nodes(self) -> None:
        self._scratch[_search.NODES] = 0

    def clear(self) -> None:
        """Empty the transposition table."""
        with self.lock:
            self._table.fill(0)
            near = self._search.near_base(self.board)
            for solver in (self, *self._helpers):  # their near tables
                solver._scratch[near:] = 0

    def set_node_limit(self, nodes: int | None) -> None:
        """Stop any search after ``nodes`` more nodes (``None``: no limit).

        A search that hits the limit raises ``SearchLimitError``; what the
        table learnt before that stays valid.
        """
        self._scratch[_search.LIMIT] = (
            0 if nodes is None else self._scratch[_search.NODES] + max(1, int(nodes))
        )

    def _checked(self, result) -> int:
        if self._scratch[_search.STOPPED]:
            self._scratch[_search.STOPPED] = 0
            raise SearchLimitError("search stopped at its node limit")
        return int(result)

    def _solve_window(self, position: Position, low: int, high: int) -> int:
        """The kernel's answer; with threads, a race that the first finisher ends."""
        with self.lock:
            return self._solve_window_alone(position, low, high)

    def _solve_window_alone(self, position: Position, low: int, high: int) -> int:
        args = (*self._args(position), int(low), int(high))
        if self.threads == 1 or self._scratch[_search.LIMIT]:
            return self._checked(
                self._search.solve_window(
                    self.board, *args, self._table, self._scratch, self._shift
                )
            )
        # Alone first, within a small node budget: most positions end here.
        self._scratch[_search.LIMIT] = self._scratch[_search.NODES] + SOLO_NODES
        result = self._search.solve_window(
            self.board, *args, self._table, self._scratch, self._shift
        )
        self._scratch[_search.LIMIT] = 0
        if not self._scratch[_search.STOPPED]:
            return int(result)
        self._scratch[_search.STOPPED] = 0
        return self._race(args)

    def _race(self, args: tuple) -> int:
        """All threads narrow the same window together; see ``_Race``."""
        if self._pool is None:
            self._helpers = [self.fork() for _ in range(self.threads - 1)]
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="c4solver")
        for helper in self._helpers:
            helper._scratch[_search.NODES] = 0
        race = _Race([self, *self._helpers], *args)
        futures = [self._pool.submit(race.run, helper) for helper in self._helpers]
        race.run(self)
        for future in futures:
            future.result()
        for solver in race.runners:  # a stop meant for a test that had already ended
            solver._scratch[_search.LIMIT] = 0
            solver._scratch[_search.STOPPED] = 0
        self._scratch[_search.NODES] += sum(int(h._scratch[_search.NODES]) for h in self._helpers)
        return race.answer()

    # -- search ------------------------------------------------------------
    def solve(self, position: Position | str, weak: bool = False) -> int:
        """Exact score (Pons' convention), or with ``weak`` only its sign."""
        if weak:
            return self.solve_window(position, -1, 1)
        return self.solve_window(position, -self.board.cells, self.board.cells)

    def solve_window(self, position: Position | str, low: int, high: int) -> int:
        """The exact score clamped to ``[low, high]``; cheaper the narrower it is."""
        position = self._playable(position)
        if low > high:
            raise ArgumentError(f"empty window [{low}; {high}]")
        return self._solve_window(position, low, high)

    def negamax(self, position: Position | str, alpha: int, beta: int) -> int:
        """One fail-soft alpha-beta search within ``(alpha, beta)``.

        The result ``r`` says: ``r <= alpha`` means score <= r; ``r >= beta``
        means score >= r; otherwise score == r.
        """
        position = self._playable(position)
        if alpha >= beta:
            raise ArgumentError(f"empty window ({alpha}; {beta})")
        board = self.board
        if any(position.is_winning_move(col) for col in range(1, board.width + 1)):
            return board.win_score(position.ply)
        current, mask, ply = self._args(position)
        threats = _threats(board, current, mask)
        with self.lock:
            return self._checked(
                self._search.negamax(
                    board,
                    current,
                    mask,
                    ply,
                    int(alpha),
                    int(beta),
                    threats,
                    self._table,
                    self._scratch,
                    self._shift,
                    None,
                )
            )

    def analyze(self, position: Position | str) -> list[int | None]:
        """Exact score of each column (from 1) for the player to move; ``None`` if full."""
        return self._playable(position).move_scores(self.solve)

    def is_best_move(self, position: Position | str, col: int, score: int) -> bool:
        """Whether ``col`` reaches ``score``, the position's known exact score.

        One null-window search of the child, much cheaper than solving it.
        """
        position = self._playable(position)
        if not position.can_play(col):
            return False
        if position.is_winning_move(col):
            return self.board.win_score(position.ply) >= score
        child = position.play(col)
        if child.is_full:
            return score <= 0
        # -child >= score  <=>  child <= -score
        return self.solve_window(child, -score, -score + 1) <= -score

    def _args(self, position: Position) -> tuple:
        return kernel_args(self.board, position)

    def _playable(self, position: Position | str) -> Position:
        """``position`` (a move string is read on this solver's board), checked: of this
        board, and not over."""
        position = position_on(position, self.board, "this solver plays")
        if position.is_game_over:
            raise GameOverError(
                f"the game is over after {position.moves!r}: nothing to solve", position.moves
            )
        return position


class _Race:
    """Threads narrowing one window together, test by test, on one shared table.

    Every thread runs the same driver (``_search.next_test``) on the bounds
    proved so far by any of them, so they mostly test the same value at
    once, and split its tree as ABDADA does (``_search.negamax``, step 5):
    what one proves goes into the shared table for the others.  When a result settles
    the test another thread is still running, that thread is stopped (the
    table keeps its work) and goes on to the next test at once.
    """

    def __init__(self, runners: list[Solver], current, mask, ply: int, low: int, high: int):
        self.runners = runners
        self.board = board = runners[0].board
        self.position = (current, mask, ply)
        self.threats = _threats(board, current, mask)
        self.high = high
        self.lo, self.hi = (int(bound) for bound in _search.score_range(board, ply, low, high))
        self.testing: dict[int, int] = {}  # runner index -> the value it tests
        self.lock = threading.Lock()

    def answer(self) -> int:
        # Fail-soft results may overshoot the asked window; clamp back into it.
        return min(self.lo, self.high)

    def run(self, solver: Solver) -> None:
        me = self.runners.index(solver)
        scratch = solver._scratch
        guess = 0
        while True:
            with self.lock:
                lo, hi = self.lo, self.hi
                if lo >= hi:
                    return
                med = _search.next_test(self.board, lo, hi, guess)
                self.testing[me] = med
            result = solver._search.negamax(
                self.board,
                *self.position,
                med,
                med + 1,
                self.threats,
                solver._table,
                scratch,
                solver._shift,
                solver._busy,
            )
            with self.lock:
                del self.testing[me]
                if scratch[_search.STOPPED]:  # settled by another thread meanwhile
                    scratch[_search.STOPPED] = 0
                    scratch[_search.LIMIT] = 0
                    continue
                guess = _search.next_guess(self.board, lo, hi, med, result, guess)
                if result <= med:
                    self.hi = min(self.hi, result)
                else:
                    self.lo = max(self.lo, result)
                for other, value in self.testing.items():
                    if not self.lo <= value < self.hi:  # its answer no longer matters
                        self.runners[other]._scratch[_search.LIMIT] = 1


def _new_scratch(board: Board) -> np.ndarray:
    return np.zeros(_kernels(board).scratch_size(board), dtype=np.uint64)

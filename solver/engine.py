"""``Solver``: the typed Python face of the numba search kernels."""

from __future__ import annotations

import numpy as np

from . import _search
from .bitboard import CELLS, TABLE_LOG2_MAX, TABLE_LOG2_MIN, WIDTH, win_score
from .errors import GameOverError, IllegalMoveError, SearchLimitError
from .position import Position

DEFAULT_TABLE_LOG2 = 24  # 16M slots, 128 MiB


class Solver:
    """Strong and weak Connect 4 solver with a persistent transposition table.

    ``Solver().solve(Position.from_moves("4453"))`` gives the exact score.
    The table (``2**table_log2`` slots of 8 bytes) is kept across calls.
    """

    def __init__(self, table_log2: int = DEFAULT_TABLE_LOG2) -> None:
        if not TABLE_LOG2_MIN <= table_log2 <= TABLE_LOG2_MAX:
            raise ValueError(f"table_log2 must be in {TABLE_LOG2_MIN}..{TABLE_LOG2_MAX}, "
                             f"got {table_log2!r}")
        self.table_log2 = table_log2
        self._table = np.zeros(1 << table_log2, dtype=np.uint64)
        self._scratch = np.zeros(_search.SCRATCH_SIZE, dtype=np.uint64)
        self._shift = np.uint64(64 - table_log2)

    def __repr__(self) -> str:
        return f"Solver(table_log2={self.table_log2})"

    def fork(self) -> Solver:
        """A solver for another thread that shares this one's transposition table.

        The kernels release the GIL, so forks search in parallel threads and
        each one reuses what the others proved.  Entries are single 64-bit
        words holding the whole key, so a concurrent write is never read torn
        or mistaken for another position.  Node counts and limits stay per fork.
        """
        twin = Solver.__new__(Solver)
        twin.table_log2 = self.table_log2
        twin._table = self._table
        twin._shift = self._shift
        twin._scratch = np.zeros(_search.SCRATCH_SIZE, dtype=np.uint64)
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

    def set_node_limit(self, nodes: int | None) -> None:
        """Stop any search after ``nodes`` more nodes (``None``: no limit).

        A search that hits the limit raises ``SearchLimitError``; what the
        table learnt before that stays valid.
        """
        self._scratch[1] = 0 if nodes is None else self._scratch[0] + max(1, int(nodes))

    def _checked(self, result) -> int:
        if self._scratch[2]:
            self._scratch[2] = 0
            raise SearchLimitError("search stopped at its node limit")
        return int(result)

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
        return self._checked(_search.solve_window(*self._args(position), int(low), int(high),
                                                  self._table, self._scratch, self._shift))

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
        return self._checked(_search.negamax(*self._args(position), int(alpha), int(beta),
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


def _playable(position: Position | str) -> Position:
    if isinstance(position, str):
        position = Position.from_moves(position)
    elif not isinstance(position, Position):
        raise IllegalMoveError(f"expected a Position or a move string, got {position!r}")
    if position.is_game_over:
        raise GameOverError(f"the game is over after {position.moves!r}: nothing to solve",
                            position.moves)
    return position

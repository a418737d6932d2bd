"""``Player``: a perfect Connect 4 AI that reads the book before it searches."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from solver import Position, win_score
from solver.bitboard import COLUMN_ORDER
from solver.errors import GameOverError, SearchLimitError

from .book import Book, as_position
from .derive import best_of

CENTRE_FIRST = tuple(col + 1 for col in COLUMN_ORDER)  # 4 3 5 2 6 1 7


@dataclass(frozen=True)
class Decision:
    """The move chosen and how: ``source`` is ``"book"``, ``"search"`` or
    ``"heuristic"`` (time ran out); ``proven`` says the move is optimal."""

    column: int
    score: int | None
    source: str
    proven: bool
    seconds: float

    def to_json(self) -> dict:
        return {"column": self.column, "score": self.score, "source": self.source,
                "proven": self.proven, "seconds": round(self.seconds, 6)}


class Player:
    """Plays the best move: the fastest win, the slowest loss, never losing a draw.

    ``time_budget`` (seconds) caps a search outside the book: when it runs
    out the player answers with a safe heuristic move, marked not proven.
    ``node_budget`` caps it in explored nodes instead (or as well), which,
    unlike time, gives the same answers on any machine under any load.
    """

    def __init__(self, book: Book | None = None, time_budget: float | None = None,
                 table_log2: int = 24, node_budget: int | None = None):
        if time_budget is not None and not (math.isfinite(time_budget) and time_budget > 0):
            raise ValueError(f"time_budget must be a positive number of seconds, "
                             f"got {time_budget!r}")
        if node_budget is not None and (isinstance(node_budget, bool)
                                        or not isinstance(node_budget, int) or node_budget < 1):
            raise ValueError(f"node_budget must be a positive whole number of nodes, "
                             f"got {node_budget!r}")
        self.book = book
        self.time_budget = time_budget
        self.node_budget = node_budget
        self.table_log2 = table_log2
        self._solver = None
        self._nodes_per_second = 5e6  # refined after each search
        self.last: Decision | None = None

    def __repr__(self) -> str:
        nodes = "" if self.node_budget is None else f", node_budget={self.node_budget!r}"
        return f"Player(book={self.book!r}, time_budget={self.time_budget!r}{nodes})"

    def best_move(self, moves: str | Position) -> int:
        """The column (1-7) to play."""
        return self.choose(moves).column

    def choose(self, moves: str | Position) -> Decision:
        started = time.perf_counter()
        position = as_position(moves)
        if position.is_game_over:
            raise GameOverError(f"the game is over after {position.moves!r}: no move to play",
                                position.moves)
        column, score, source, proven = self._decide(position)
        self.last = Decision(column, score, source, proven, time.perf_counter() - started)
        return self.last

    def _decide(self, position: Position) -> tuple[int, int | None, str, bool]:
        entry = self.book.get(position) if self.book is not None else None
        if entry is not None and entry.best_moves:
            return _centre_most(entry.best_moves), entry.score, "book", True
        for col in CENTRE_FIRST:
            if position.is_winning_move(col):
                return col, win_score(position.ply), "search", True
        known = self._from_children(position) if self.book is not None else None
        if known is not None:
            return (*known, "book", True)
        try:
            return (*self._search(position), "search", True)
        except SearchLimitError:
            return _safe_move(position), None, "heuristic", False

    def _from_children(self, position: Position) -> tuple[int, int] | None:
        """``(column, score)`` from the book's entries of every child, when it has
        them all though not the position itself (a build stopped before deriving it)."""
        children = {col: position.play(col) for col in position.legal_moves()}
        entries = dict(zip(children, self.book.get_many(list(children.values()))))
        if not any(entries.values()) or any(entry is None and not children[col].is_game_over
                                            for col, entry in entries.items()):
            return None
        score, best = best_of(position.move_scores(
            lambda child: entries[int(child.moves[-1])].score))
        return _centre_most(tuple(int(col) for col in best)), score

    def _search(self, position: Position) -> tuple[int, int]:
        solver = self._get_solver()
        limits = [int(self.time_budget * self._nodes_per_second)] \
            if self.time_budget is not None else []
        if self.node_budget is not None:
            limits.append(self.node_budget)
        if limits:
            solver.set_node_limit(min(limits))
        before, started = solver.nodes, time.perf_counter()
        try:
            score = solver.solve(position)
            for col in CENTRE_FIRST:
                if solver.is_best_move(position, col, score):
                    return col, score
            raise AssertionError(f"no move reaches the score {score} of {position!r}")
        finally:
            solver.set_node_limit(None)
            elapsed = time.perf_counter() - started
            if elapsed > 0.05:
                self._nodes_per_second = (solver.nodes - before) / elapsed

    def _get_solver(self):
        if self._solver is None:
            from solver import Solver

            self._solver = Solver(table_log2=self.table_log2)
        return self._solver


def _centre_most(columns: tuple[int, ...]) -> int:
    return min(columns, key=CENTRE_FIRST.index)


def _safe_move(position: Position) -> int:
    """Block the opponent's immediate win, else avoid handing one over; centre first."""
    legal = [c for c in CENTRE_FIRST if position.can_play(c)]
    blocks = [c for c in legal if position.is_opponent_winning_move(c)]
    if blocks:
        return blocks[0]
    safe = [c for c in legal
            if not any(position.play(c).is_winning_move(r) for r in range(1, 8))]
    return (safe or legal)[0]

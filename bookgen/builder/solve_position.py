"""Solving one frontier position: weak search for the sign, then strong within it."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from solver import Position

from ..book.format.scores import best_text

if TYPE_CHECKING:
    from solver import Solver


class Solved(NamedTuple):
    """A frontier position's exact score, its best columns (bit c = column c + 1), nodes."""

    score: int
    best: int
    nodes: int

    @property
    def best_moves(self) -> str:
        return best_text(self.best)


def solve_position(
    solver: Solver, position: Position | str, low: int | None = None, exact: bool = False
) -> Solved:
    """Weak search for the sign, then strong within it; then which moves reach the score.

    ``low`` is a proven lower bound on the score (``bounds``: from the
    parents' book entries), ``exact`` says it is the score: the windows
    shrink to what is still unknown, and an exact score needs no search.
    """
    if isinstance(position, str):
        position = Position.from_moves(position, solver.board)
    cells = solver.board.cells
    before = solver.nodes
    floor = -cells if low is None else max(low, -cells)
    if exact:
        score = floor
    elif floor >= 1:  # a proven win: only its speed is unknown
        score = solver.solve_window(position, floor, cells)
    else:
        wdl = solver.solve_window(position, max(floor, -1), 1)
        if wdl > 0:
            score = solver.solve_window(position, 1, cells)
        elif wdl < 0:
            score = solver.solve_window(position, floor, -1)
        else:
            score = 0  # a draw needs no strong search
    best = sum(
        1 << (col - 1)
        for col in position.legal_moves()
        if solver.is_best_move(position, col, score)
    )
    return Solved(score, best, solver.nodes - before)

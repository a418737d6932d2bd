"""Solving one frontier position: weak search for the sign, then strong within it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from solver import Position
from solver.bitboard import CELLS

if TYPE_CHECKING:
    from solver import Solver


def solve_frontier(solver: Solver, moves: str) -> dict:
    """One frontier row: weak search for the sign, then strong within it."""
    position = Position.from_moves(moves)
    before = solver.nodes
    wdl = solver.solve(position, weak=True)
    if wdl > 0:
        score = solver.solve_window(position, 1, CELLS)
    elif wdl < 0:
        score = solver.solve_window(position, -CELLS, -1)
    else:
        score = 0  # a draw needs no strong search
    best = "".join(str(col) for col in position.legal_moves()
                   if solver.is_best_move(position, col, score))
    return {"key": position.key, "ply": position.ply, "moves": moves, "score": score,
            "wdl": wdl, "best_moves": best, "move_scores": None,
            "nodes": solver.nodes - before}

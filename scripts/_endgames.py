"""Tense random endgames: the positions ``solve_boards.py --reach`` times and the tests
solve on boards whose random games mostly end early."""

from __future__ import annotations

import random

from bookgen.builder.extrapolate import calm_move, hands_a_win
from solver import Board, Position

__all__ = ["endgame", "hands_a_win"]


def endgame(board: Board, empty: int, rng: random.Random) -> Position:
    """An unfinished position ``empty`` cells before the end, the player to move unable to
    win at once, by ``calm_move`` from the empty board."""
    while True:
        position = Position(board)
        while position.ply < board.cells - empty and not position.is_game_over:
            position = position.play(calm_move(position, rng))
        if not position.is_game_over and not hands_a_win(position):
            return position

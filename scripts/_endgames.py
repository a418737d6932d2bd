"""Tense random endgames: the positions ``solve_boards.py --reach`` times and the tests
solve on boards whose random games mostly end early."""

from __future__ import annotations

import random

from solver import Board, Position


def endgame(board: Board, empty: int, rng: random.Random) -> Position:
    """An unfinished position ``empty`` cells before the end, the player to move unable to
    win at once: random play that neither takes a win nor hands one over while it has
    another move (plain random play mostly ends early on big boards)."""
    while True:
        position = Position(board)
        while position.ply < board.cells - empty and not position.is_game_over:
            moves = position.legal_moves()
            quiet = [c for c in moves if not position.is_winning_move(c)] or moves
            calm = [c for c in quiet if not hands_a_win(position.play(c))] or quiet
            position = position.play(rng.choice(calm))
        if not position.is_game_over and not hands_a_win(position):
            return position


def hands_a_win(position: Position) -> bool:
    """Whether the player to move can win at once."""
    moves = () if position.is_game_over else position.legal_moves()
    return any(position.is_winning_move(c) for c in moves)

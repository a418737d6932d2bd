"""Listing every position up to a ply, mirror images counted once."""

from __future__ import annotations

from solver import Position
from solver.bitboard import WIDTH


def canonical(position: Position) -> Position:
    """The orientation of ``position`` whose key is its canonical key."""
    return position if position.is_canonical else position.mirror()


def children(position: Position) -> list[tuple[int, Position]]:
    """``(column, child)`` for each legal move; the child may be a finished game."""
    return [(col, position.play(col)) for col in range(1, WIDTH + 1) if position.can_play(col)]


def positions_by_ply(root: Position, max_ply: int) -> dict[int, list[Position]]:
    """Every unfinished position from ``root`` up to ``max_ply``, by ply.

    Each is listed once per mirror pair, in canonical orientation, and each
    ply's list is sorted by move string so that siblings sit together.
    """
    if root.is_game_over:
        return {}
    levels = {root.ply: [canonical(root)]}
    for ply in range(root.ply, max_ply):
        seen: dict[int, Position] = {}
        for position in levels[ply]:
            for _, child in children(position):
                if not child.is_game_over:
                    seen.setdefault(child.canonical_key, child)
        levels[ply + 1] = sorted((canonical(p) for p in seen.values()), key=lambda p: p.moves)
    return levels

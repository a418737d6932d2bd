"""Levels of play, from a beginner who makes human-looking mistakes up to perfect.

A level below perfect looks ``depth`` plies ahead with the anytime search's
evaluation (threats with row parity, open lines, centre) and picks at random,
with its own seeded generator, among the moves valued within ``margin`` of
the best: moves that look about as good, as a person's choice would.  The
lower levels see less far and accept worse-looking moves, so their mistakes
are plausible ones (a move that loses at once never looks near-equal).
``expert`` plays the anytime search with a fixed node budget: strong, but not
always exact.  ``perfect`` is exact.  Only ``perfect`` reads the book: with
it, any level plays its first dozen plies perfectly (an expert with the book
scored 44% against perfect play even at 1,000 nodes a move).  Each level's
``elo`` is measured (``scripts/rate_levels.py``, docs/ai.md), ``perfect``'s
the anchor of the scale.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from solver import Position
from solver.errors import C4Error


class LevelError(C4Error, ValueError):
    """A level name that does not exist."""


def lookahead(depth: int) -> str:
    """How far a search looks, in the words of every text that says it (a ply is one
    side's move: 4 plies are two moves each)."""
    return f"{depth} plies ahead"


@dataclass(frozen=True)
class Level:
    """How a level plays: ``depth`` and ``margin`` for the evaluation, or ``nodes`` for
    the anytime search (both ``None``: exact play, after the book); ``elo``, its rating."""

    name: str
    depth: int | None
    margin: int
    nodes: int | None
    elo: int

    @property
    def about(self) -> str:
        """How it plays, in words made from its numbers (``play --help``, the explorer,
        docs/ai.md's table: tests/test_levels.py holds the docs to it)."""
        if self.depth is not None:
            return (
                f"looks {lookahead(self.depth)} with the evaluation, then picks at random "
                f"among the moves within {self.margin} points of the best"
            )
        if self.nodes is not None:
            return f"the anytime search with {self.nodes:,} nodes a move, without the book"
        return "the book, then the exact solver"

    @property
    def reads_book(self) -> bool:
        """Whether its moves come from the book where it can: exact play only."""
        return self.depth is None and self.nodes is None

    @property
    def rated(self) -> str:
        """Its name and rating, as menus show it."""
        return f"{self.name} (Elo {self.elo})"


LEVELS = {
    level.name: level
    for level in (
        # Measured by scripts/rate_levels.py (docs/ai.md); perfect play is the anchor.
        Level("beginner", 2, 35, None, 1660),
        Level("casual", 4, 25, None, 1880),
        Level("club", 6, 20, None, 2070),
        Level("expert", None, 0, 30_000, 2270),
        Level("perfect", None, 0, None, 2500),
    )
}
DEFAULT_LEVEL = "perfect"


def get_level(name: object) -> Level:
    """The level called ``name``; a ``ValueError`` naming the levels otherwise."""
    level = LEVELS.get(name) if isinstance(name, str) else None
    if level is None:
        raise LevelError(f"unknown level {name!r}: choose one of {', '.join(LEVELS)}")
    return level


def pick_near_best(values: dict[int, int], margin: int, rng: random.Random) -> int:
    """A random column among those valued within ``margin`` of the best."""
    best = max(values.values())
    near = sorted(col for col, value in values.items() if value >= best - margin)
    return rng.choice(near)


def level_move(search, position: Position, level: Level, rng: random.Random) -> tuple[int, int]:
    """(column, its value) for an evaluation level."""
    values = search.move_values(position, level.depth)
    return (col := pick_near_best(values, level.margin, rng)), values[col]

"""One ply of negamax over book entries: exact scores without search.

A position's score is the best of its children's scores, negated.  When every
child is in the book (or ends the game at once), the parent's score, best
moves and per-move scores follow exactly, at the cost of a few lookups.
"""

from __future__ import annotations

from collections.abc import Callable

from solver import Position


class MissingChildError(KeyError):
    """A child that is neither in the book nor a finished game."""


def move_scores_from_children(position: Position,
                              child_score: Callable[[Position], int | None]) -> list[int | None]:
    """Score of each column 1-7 (``None`` if full), from ``child_score(child)``.

    ``child_score`` gives ``None`` for a child the book does not hold, which
    raises ``MissingChildError``.
    """
    def known(child: Position) -> int:
        value = child_score(child)
        if value is None:
            raise MissingChildError(f"{child.moves!r} (child of {position.moves!r}) is not in the book")
        return value

    return position.move_scores(known)


def best_of(move_scores: list[int | None]) -> tuple[int, str]:
    """``(score, best columns as a digit string)`` from per-move scores."""
    score = max(s for s in move_scores if s is not None)
    best = "".join(str(col) for col, s in enumerate(move_scores, start=1) if s == score)
    return score, best


def sign(score: int) -> int:
    return (score > 0) - (score < 0)

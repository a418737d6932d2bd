"""Small helpers over per-move scores, with no numba behind them (the book reader uses them)."""

from __future__ import annotations


def best_of(move_scores: list[int | None]) -> tuple[int, str]:
    """``(score, best columns as a digit string)`` from per-move scores."""
    score = max(s for s in move_scores if s is not None)
    best = "".join(str(col) for col, s in enumerate(move_scores, start=1) if s == score)
    return score, best


def sign(score: int) -> int:
    return (score > 0) - (score < 0)

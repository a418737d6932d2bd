"""The colours of scores, for the explorer and the notebook's SVG alike.

Okabe and Ito's blue for wins and vermillion for losses, a grey for draws: a
pair that the common colour-vision deficiencies keep apart (red-green ones
made the old green and orange one mustard).  A quicker result is deeper.
``tests/test_palette.py`` simulates protanopia, deuteranopia and tritanopia
and checks that wins, draws and losses stay apart; scores are also always
written out, the colour only repeats them.
"""

from __future__ import annotations

from .bitboard import STANDARD, Board

WIN = ("#3d8fc6", "#005a8e")  # (the slowest win, the quickest)
LOSS = ("#e07b2a", "#a34700")  # (the slowest loss, the quickest)
DRAW = "#8c8c8c"


def score_colour(score: int, board: Board = STANDARD) -> str:
    """The colour of ``score`` (Pons' convention) on ``board``, as ``#rrggbb``."""
    if score == 0:
        return DRAW
    quickest = (board.cells + 1) // 2 - 3  # a win with the first player's 4th stone
    fast = min(1.0, (abs(score) - 1) / max(1, quickest - 1))
    slow, deep = WIN if score > 0 else LOSS
    mixed = (
        round(int(slow[i : i + 2], 16) * (1 - fast) + int(deep[i : i + 2], 16) * fast)
        for i in (1, 3, 5)
    )
    return "#" + "".join(f"{channel:02x}" for channel in mixed)


def score_colours(board: Board = STANDARD) -> dict[int, str]:
    """Every score a position of ``board`` can have, and its colour (for the explorer)."""
    most = (board.cells + 1) // 2
    return {score: score_colour(score, board) for score in range(-most, most + 1)}

"""What one ply of negamax shares over one word and two (``derive``, ``derive_wide``)."""

from __future__ import annotations

from numba import njit

from ..book.format.scores import FULL_COLUMN, SCORE_OFFSET


@njit(cache=True)
def best_bits(move_scores, top):
    """Bit ``c`` set when column ``c + 1`` scores ``top``: ``move_scores`` is one position's
    packed row (``scores.pack_scores``), ``top`` its best score."""
    bits = 0
    for col in range(len(move_scores)):
        if move_scores[col] != FULL_COLUMN and move_scores[col] == top + SCORE_OFFSET:
            bits |= 1 << col
    return bits

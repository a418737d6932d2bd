"""How a book writes scores down: packed move scores, entry codes and best-move text.

Every layer that packs or unpacks a score imports it from here: the segments and
rows on disk, the compiled kernels (which bake these numbers into numba's cache,
so the kernels' fingerprint covers this folder), the reader and the export.

A packed move score is one byte a column: ``FULL_COLUMN`` for a move that cannot
be played, else the move's score + ``SCORE_OFFSET``.  A compiled lookup answers
with plain scores, where ``FULL_COLUMN_SCORE`` marks a full column.
"""

from __future__ import annotations

from solver.bitboard import MAX_WIDTH, STANDARD

SCORE_OFFSET = 64  # a packed move score is the score + 64: every score fits a byte
FULL_COLUMN = 0  # a packed move score: no move (no score + 64 is 0)
FULL_COLUMN_SCORE = -128  # a full column in a compiled lookup's plain scores (no score is)

# Best columns as stored, "1" .. "123456789", for each set of columns as bits
# (bit c set when column c + 1 is best), on a board of any width.
BEST_TEXT = tuple(
    "".join(str(col + 1) for col in range(MAX_WIDTH) if bits >> col & 1)
    for bits in range(1 << MAX_WIDTH)
)
BEST_BITS = {text: bits for bits, text in enumerate(BEST_TEXT)}  # and back


def best_text(bits: int) -> str:
    return BEST_TEXT[bits]


def pack_scores(scores: list[int | None]) -> bytes:
    """Move scores (``None``: a full column) packed a byte a column."""
    return bytes(FULL_COLUMN if s is None else s + SCORE_OFFSET for s in scores)


def unpack_scores(packed: bytes | None) -> list[int | None] | None:
    if packed is None:
        return None
    return [None if b == FULL_COLUMN else b - SCORE_OFFSET for b in packed]


def entry_code(score: int, best: int, width: int = STANDARD.width) -> int:
    """A score and its best-move bits in one small integer (0 to 13,695 on 7x6): the index
    of its decoded form in the reader's table."""
    return (score + SCORE_OFFSET) << width | best


def best_of(move_scores: list[int | None]) -> tuple[int, str]:
    """``(score, best columns as a digit string)`` from per-move scores."""
    score = max(s for s in move_scores if s is not None)
    best = "".join(str(col) for col, s in enumerate(move_scores, start=1) if s == score)
    return score, best


def sign(score: int) -> int:
    return (score > 0) - (score < 0)

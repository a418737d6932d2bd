"""What a position's stones alone say of its score and best moves: what a sealed ply leaves out.

The rules of the game settle three kinds of position without search:

* the player to move wins at once: the score is ``board.win_score(ply)``, and
  the best moves are exactly the winning columns;
* every move loses at once (two threats to block, or the only block under
  another threat, or every playable cell under a threat): the score is
  ``board.loss_score(ply)``, and every playable column is a best move (each
  loses alike);
* one move alone does not lose at once: it is the only best move (it loses
  later, if at all), though its score needs search.

Version 2 of the block codec (``blocks``) stores no score for the first two
kinds and no best moves for any of the three (docs/book-format.md, "What the
stones say").  ``implied`` works them out again from the keys, a numpy pass
over a block (over a whole ply, for bulk work, ``compiled_blocks`` has its
compiled twin); ``leave_out`` refuses a ply whose entries
disagree with the rules (a wrong book is never sealed).  These rules are the
codec's version 2: a change to what they say is a new version.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from solver.bitboard import Board

from . import wide_cells as wb
from .keys import walker
from .wide_keys import key_ints


class Implied(NamedTuple):
    """Per position of a sorted run of keys: what its stones say."""

    score_known: np.ndarray  # bool
    scores: np.ndarray  # int8: the score where known, else 0
    best_known: np.ndarray | None  # bool (None: not asked for)
    best: np.ndarray | None  # the board's column-set type: the best moves where known, else 0


# Keys worked on at once: a whole ply's temporaries (tens of numpy arrays of its size)
# would cost more in page faults and memory traffic than the work itself.
AT_ONCE = 1 << 14
# Past 64 bits, fewer: twice the words, and numpy's pair temporaries spill the cache sooner
# (docs/benchmarks.md, "What the stones say past 64 bits").
WIDE_AT_ONCE = 1 << 12


def implied(keys: np.ndarray, ply: int, board: Board, best: bool = True) -> Implied:
    """What the stones of each of ``keys`` (positions of ``ply`` on ``board``) say: of their
    best moves too if ``best`` (a ply that keeps none is spared that part of the work)."""
    at_once = AT_ONCE if keys.ndim == 1 else WIDE_AT_ONCE
    if len(keys) <= at_once:
        return _implied(keys, ply, board, best)
    parts = [
        _implied(keys[at : at + at_once], ply, board, best) for at in range(0, len(keys), at_once)
    ]
    known, scores, best_known, best_moves = zip(*parts, strict=True)
    return Implied(
        np.concatenate(known), np.concatenate(scores), _joined(best_known), _joined(best_moves)
    )


def _joined(arrays: tuple) -> np.ndarray | None:
    return None if arrays[0] is None else np.concatenate(arrays)


def _implied(keys: np.ndarray, ply: int, board: Board, best: bool) -> Implied:
    if keys.ndim == 2:
        return _implied_wide(keys, ply, board, best)
    u, count = np.uint64, len(keys)
    current, mask = walker(board).boards_of_keys(keys)
    # (stones outside the mask: a column of all ones, or bits past the last: no position)
    if count and not ((np.bitwise_count(mask) == ply) & (current & ~mask == 0)).all():
        raise ValueError(f"a key is not a position of {ply} stones")
    playable = (mask + u(board.bottom)) & u(board.all_cells)
    # Both players' winning cells in one pass: numpy's cost is a call's more than an item's.
    both = board.winning_cells(np.stack((current, current ^ mask)), mask)  # (mask broadcast)
    wins, threats = both[0] & playable, both[1]
    forced = playable & threats  # (safe: ``_bits.safe_moves``, elementwise)
    safe = np.where(forced != 0, forced, playable) & ~(threats >> u(1))
    safe[(forced & (forced - u(1))) != 0] = 0  # two threats at once: nothing is safe
    win_now = wins != 0
    lose_now = ~win_now & (safe == 0)
    scores = np.zeros(count, np.int8)
    scores[win_now] = board.win_score(ply)
    scores[lose_now] = board.loss_score(ply)
    if not best:
        return Implied(win_now | lose_now, scores, None, None)
    only = ~win_now & ~lose_now & ((safe & (safe - u(1))) == 0)
    best_known = win_now | lose_now | only
    cells = np.where(win_now, wins, np.where(lose_now, playable, safe))
    cells[~best_known] = 0
    return Implied(win_now | lose_now, scores, best_known, _columns(cells, board))


def _implied_wide(keys: np.ndarray, ply: int, board: Board, best: bool) -> Implied:
    """``_implied`` (its twin) of ``(n, 2)`` keys, past 64 bits: the same steps over pairs
    of words (``wide_cells``)."""
    count = len(keys)
    current, mask = wb.boards_of_keys(board, wb.of_rows(keys))
    if count and not (wb.popcount(mask) == ply).all():
        raise ValueError(f"a key is not a position of {ply} stones")
    playable = wb.add(mask, wb.constant(board.bottom)) & wb.constant(board.all_cells)
    # Each player's in its own pass: stacked as ``_implied``'s, they take twice as long.
    wins = wb.winning_cells(board, current, mask) & playable
    threats = wb.winning_cells(board, current ^ mask, mask)
    forced = playable & threats
    safe = np.where(wb.nonzero(forced), forced, playable) & ~wb.shr(threats, 1)
    safe[:, wb.several(forced)] = 0  # two threats at once: nothing is safe
    win_now = wb.nonzero(wins)
    lose_now = ~win_now & ~wb.nonzero(safe)
    scores = np.zeros(count, np.int8)
    scores[win_now] = board.win_score(ply)
    scores[lose_now] = board.loss_score(ply)
    if not best:
        return Implied(win_now | lose_now, scores, None, None)
    only = ~win_now & ~lose_now & ~wb.several(safe)
    best_known = win_now | lose_now | only
    cells = np.where(win_now, wins, np.where(lose_now, playable, safe))
    cells[:, ~best_known] = 0
    return Implied(win_now | lose_now, scores, best_known, wb.columns(board, cells))


def _columns(cells: np.ndarray, board: Board) -> np.ndarray:
    """The set of columns (bit ``c`` for column ``c``) that holds any of each item's ``cells``."""
    u = np.uint64
    # A column's cells (its low ``height`` bits) plus all ones there carry into the bit above
    # them (the key's spare bit, never past it) if any is set: that bit, moved down.
    tops = (cells + u(board.all_cells)) & u(board.bottom << board.height)
    bottoms = tops >> u(board.height)
    gather = _gather(board)
    if gather is not None:
        multiplier, shift = gather
        columns = ((bottoms * multiplier) >> shift) & np.uint64((1 << board.width) - 1)
        return columns.astype(board.column_set_type)
    out = np.zeros(len(cells), board.column_set_type)
    for col, bottom in enumerate(board.bottom_cells):
        out |= ((bottoms & u(bottom)) != 0).astype(out.dtype) << col
    return out


@cache
def _gather(board: Board) -> tuple[np.uint64, np.uint64] | None:
    """``(multiplier, shift)`` that moves each column's bottom cell (bit ``c * h1``) to bit
    ``c``, at once: the multiplier's ``j``-th term is ``2**(j * height)``, and column ``c``'s
    term ``W - 1 - c`` lands it on bit ``(W - 1) * height + c``.  No two terms of the
    product meet (no carry) while ``W <= height + 1``; wider boards take a loop (None)."""
    if board.width > board.height + 1:
        return None
    terms = sum(1 << (j * board.height) for j in range(board.width))
    return np.uint64(terms & (1 << 64) - 1), np.uint64((board.width - 1) * board.height)


def leave_out(
    keys: np.ndarray, scores: np.ndarray, best: np.ndarray | None, ply: int, board: Board
) -> tuple[Implied, np.ndarray, np.ndarray | None]:
    """What the positions' stones say, and ``(scores, best)`` without it; ``ValueError``
    naming the first position whose entry disagrees with its stones."""
    said = implied(keys, ply, board, best is not None)
    count = len(keys)
    best_known, said_best = (
        (np.zeros(count, bool), np.zeros(count, np.uint8)) if best is None else _best_of(said)
    )
    wrong = said.score_known & (scores != said.scores)
    if best is not None:
        wrong |= best_known & (best != said_best)
    if wrong.any():
        at = int(np.argmax(wrong))
        held = f"score {int(scores[at])}"
        says = "score " + (str(int(said.scores[at])) if said.score_known[at] else "unknown")
        if best is not None:
            held += f" and best moves {int(best[at])}"
            says += ", best moves " + (str(int(said_best[at])) if best_known[at] else "unknown")
        raise ValueError(
            f"ply {ply}: position {key_ints(keys[at : at + 1])[0]:#x} holds {held}, but its stones say {says}"
        )
    kept_best = None if best is None else best[~best_known]
    return said, scores[~said.score_known], kept_best


def _best_of(said: Implied) -> tuple[np.ndarray, np.ndarray]:
    """``(best_known, best)`` of ``said``, which must have been asked for them."""
    if said.best_known is None or said.best is None:
        raise ValueError("what the stones say of the best moves was not asked for")
    return said.best_known, said.best


def fill_in(
    said: Implied, scores: np.ndarray, best: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """``leave_out`` undone: every position's score and best moves (``None`` if the ply keeps
    none), from what they say (``implied``; its arrays are filled in).  ``ValueError`` if the
    kept values are not as many as the positions that need them."""
    unknown = ~said.score_known
    if len(scores) != int(np.count_nonzero(unknown)):
        raise ValueError(f"it keeps {len(scores)} scores for {np.count_nonzero(unknown)}")
    said.scores[unknown] = scores
    if best is None:
        return said.scores, None
    best_known, full = _best_of(said)
    unknown = ~best_known
    if len(best) != int(np.count_nonzero(unknown)):
        raise ValueError(f"it keeps {len(best)} best moves for {np.count_nonzero(unknown)}")
    full[unknown] = best
    return said.scores, full

"""One ply of negamax over book entries: exact scores without search.

A position's score is the best of its children's scores, negated.  When every
child is in the book (or ends the game at once), the parent's score, best
moves and per-move scores follow exactly, at the cost of a few lookups.

Here that runs on whole plies at once: parents are a sorted key array, the
children's entries two arrays (sorted keys, scores), and one numba kernel
looks each child up by binary search.  Build and verify both derive this way.
Past 64 bits keys are ``(n, 2)`` rows and the kernel is ``derive_wide``'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from solver._kernel_cache import SOLVER, drop_stale, fingerprint
from solver.bitboard import STANDARD, Board
from solver.packed import MOVE_FULL, MOVE_READ, decode, move_rule

from ..book.format.scores import FULL_COLUMN, SCORE_OFFSET
from ._negamax import best_bits
from .listing import key_ints

_HERE = Path(__file__).resolve().parent
_FORMAT = _HERE.parent / "book" / "format"
drop_stale(_HERE, fingerprint(SOLVER, _FORMAT, _HERE))  # kernels inlined from each


class MissingChildError(KeyError):
    """A child that is neither in the book nor a finished game."""


class Derived(NamedTuple):
    """One ply's derived entries, one row per parent, parents' order."""

    keys: np.ndarray  # uint64 (``(n, 2)`` rows past 64 bits)
    scores: np.ndarray  # int8
    best: np.ndarray  # uint8 (uint16 on width 9): bit c set when column c + 1 is best
    move_scores: np.ndarray  # (n, width) uint8, packed as ``scores.pack_scores``
    missing: np.ndarray  # uint64: a child not in the book, or 0 when none is missing

    @property
    def complete(self) -> np.ndarray:
        """Which parents had every child; the others' rows are meaningless."""
        none = self.missing == 0
        return none if none.ndim == 1 else none.all(axis=1)


@njit(cache=True)
def _derive(board, parents, child_keys, child_scores, scores, best, move_scores, missing):
    for i in range(len(parents)):
        current, mask, ply = decode(board, parents[i])
        top = -board.cells - 1
        missing[i] = 0
        for col in range(board.width):
            kind, value, child = move_rule(board, current, mask, ply, col)
            if kind == MOVE_FULL:
                move_scores[i, col] = FULL_COLUMN
                continue
            if kind == MOVE_READ:
                at = np.searchsorted(child_keys, child)
                if at == len(child_keys) or child_keys[at] != child:
                    missing[i] = child  # keys are never 0 below the empty board's children
                else:
                    value = -np.int64(child_scores[at])
            move_scores[i, col] = value + SCORE_OFFSET
            top = max(top, value)
        scores[i] = top
        best[i] = best_bits(move_scores[i], top)


def derive(
    parents: np.ndarray,
    child_keys: np.ndarray,
    child_scores: np.ndarray,
    *,
    strict: bool = True,
    board: Board = STANDARD,
) -> Derived:
    """Entries of ``parents`` (canonical keys) from their children's entries.

    ``child_keys`` must be sorted, ``child_scores`` in the same order.  A
    child neither there nor a finished game raises ``MissingChildError``, or
    with ``strict=False`` is named in ``missing`` (for ``verify``).
    """
    n = len(parents)
    out = Derived(
        np.ascontiguousarray(parents, dtype=np.uint64),
        np.empty(n, dtype=np.int8),
        np.empty(n, dtype=board.column_set_type),
        np.empty((n, board.width), dtype=np.uint8),
        np.empty((n, 2) if board.is_wide else n, dtype=np.uint64),
    )
    kernel = _derive
    if board.is_wide:
        from .derive_wide import derive_wide as kernel
    kernel(
        board,
        out.keys,
        np.ascontiguousarray(child_keys, dtype=np.uint64),
        np.ascontiguousarray(child_scores, dtype=np.int8),
        out.scores,
        out.best,
        out.move_scores,
        out.missing,
    )
    if strict and n and not out.complete.all():
        at = int(np.argmin(out.complete))
        missing, parent = key_ints(out.missing[[at]]) + key_ints(out.keys[[at]])
        raise MissingChildError(
            f"{moves_of(missing, board)!r} (child of {moves_of(parent, board)!r}) is not in "
            "the book"
        )
    return out


def moves_of(key: int, board: Board, root: str = "") -> str:
    """The move string of one key (``solver.packed.moves_of_key``, or its twin past 64 bits)."""
    if board.is_wide:
        from solver.wide.packed import moves_of_key as wide_moves_of_key

        return wide_moves_of_key(key, root, board)
    from solver.packed import moves_of_key

    return moves_of_key(key, root, board)

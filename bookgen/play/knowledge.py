"""What the player knows about a position before it searches: bounds from the book and from its own proofs.

* **Just past the book.**  Every parent of a position one ply past the book
  (the position with one of the last mover's top stones taken back) is in
  the book, and the last mover could have played into this position from
  each: so its score, for the player to move, is at least minus the smallest
  parent score.  A parent that was lost for its mover makes this position
  a proven win.  When the position follows one of a parent's best moves,
  the bound is its exact score.
* **Proofs carry over.**  A move proven to keep a result keeps it after any
  reply: the Pons score counts the winner's stones, so a won position stays
  won at least as fast after any answer.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver import Position

FLOOR_MEMORY = 100_000  # positions remembered; forgotten all at once past it


class ParentBound(NamedTuple):
    """What the parents' book entries prove: the score is at least ``low``, exactly ``low`` if ``exact``."""

    low: int
    exact: bool


def book_bound(book, position: Position) -> ParentBound | None:
    """A lower bound on the score from the book entries of the position's parents, if any.

    It is the exact score when the position follows one of a parent's best moves
    (``solver.parent_bounds``, as the builder bounds its frontier).
    """
    # Parents past the book's last ply are not in it: no lookup.
    if book is None or position.ply == 0 or position.ply - 1 > book.info.max_ply:
        return None
    if position.board.is_wide:
        return _wide_book_bound(book, position)
    from solver.parent_bounds import Parents, parents_of

    board = position.board
    keys, scores, best = book.entries_of_keys(parents_of(position.key, board).tolist())
    if not keys:
        return None
    parents = Parents(
        np.array(keys, dtype=np.uint64),
        np.array(scores, dtype=np.int8),
        np.array(best, dtype=board.column_set_type),
        board,
    )
    low, exact = parents.bounds(np.array([position.key], dtype=np.uint64)).known(0)
    return None if low is None else ParentBound(low, exact)


def _wide_book_bound(book, position: Position) -> ParentBound | None:
    """``book_bound`` past 64 bits: the parents' keys are ``(n, 2)`` rows
    (``solver.wide.parent_bounds``, through ``Parents``)."""
    from solver.parent_bounds import Parents, parents_of

    from ..book.format.wide_keys import ints_of, rows_of

    board = position.board
    keys, scores, best = book.entries_of_keys(ints_of(parents_of(position.key, board)))
    if not keys:
        return None
    parents = Parents(
        rows_of(keys), np.array(scores, np.int8), np.array(best, board.column_set_type), board
    )
    low, exact = parents.bounds(rows_of([position.key])).known(0)
    return None if low is None else ParentBound(low, exact)


def book_leaves(book, position: Position) -> tuple[np.ndarray, np.ndarray]:
    """The book's exact scores of the position's children, for the search's leaves.

    (sorted canonical keys, scores), empty past the book's last ply.  Useful
    when the book holds the children but not the position itself (a book
    built from another root, or one still being built).
    """
    found: dict[int, int] = {}
    # (Past 64 bits none: the search's known leaves are keys of one word.)
    if book is not None and not position.board.is_wide and position.ply < book.info.max_ply:
        for col in position.legal_moves():
            child = position.play(col)
            entry = None if child.is_game_over else book.get(child)
            if entry is not None:
                found[child.canonical_key] = entry.score
    keys = sorted(found)
    return (np.array(keys, dtype=np.uint64), np.array([found[k] for k in keys], dtype=np.int64))


class Floors:
    """Lower bounds on positions' scores, learnt from the player's own proven moves."""

    def __init__(self) -> None:
        self._floors: dict[int, int] = {}

    def get(self, position: Position) -> int | None:
        return self._floors.get(position.key)

    def after_move(self, position: Position, column: int, floor: int) -> None:
        """The mover's move ``column`` is proven to score at least ``floor``: so does every reply."""
        child = position.play(column)
        if child.is_game_over:
            return
        if len(self._floors) > FLOOR_MEMORY:
            self._floors.clear()
        for reply in child.legal_moves():
            grandchild = child.play(reply)
            if not grandchild.is_game_over:
                key = grandchild.key
                self._floors[key] = max(floor, self._floors.get(key, floor))

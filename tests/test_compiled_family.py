"""``bookgen.book.compiled_family``: the compiled ``derive_many`` gives numpy's answers and
refuses what numpy refuses: on the books' own plies, on a width-9 board checked by
minimax, on endgames that reach the last cell, and on damaged families."""

import numpy as np
import pytest
from conftest import PLY10, SHIPPED, minimax
from test_family import endgames, segment_of

from bookgen import Book, CorruptBookError
from bookgen.book import compiled_family, family
from bookgen.book.segment import Segment
from solver import Board, Position


def both(board: Board, parents: Segment, below: Segment, ply: int):
    """``(packed, best)`` from the compiled kernels, after checking numpy's are the same."""
    args = (board, parents.keys, parents.scores, below.keys, below.scores, ply)
    packed, best = compiled_family.derive_many(*args)
    expected_packed, expected_best = family.derive_many(*args)
    assert packed.tolist() == expected_packed.tolist()
    assert best.dtype == expected_best.dtype and best.tolist() == expected_best.tolist()
    return packed, best


@pytest.mark.parametrize(
    "path, plies, sample",
    [(PLY10, range(10), 30_000), (SHIPPED, [10, 11], 20_000)],
    ids=["ply10 book, plies 0-9", "shipped book, plies 10-11"],
)
def test_the_books_plies_derive_as_numpy_derives_them(path, plies, sample):
    if not path.exists():
        pytest.skip(f"no {path.name}")
    with Book.open(path) as book:
        segments = book._plies.segments
        for ply in plies:
            view, below = segments[ply], segments[ply + 1]
            count = len(view.keys)
            at = np.sort(np.random.default_rng(ply).choice(count, min(count, sample), False))
            both(book.board, Segment(view.keys[at], view.scores[at], None), below, ply)


def test_a_wide_board_and_the_last_cell() -> None:
    # Width 9: best-move bits past the eighth.  4x4 at ply 14: the last cell's move is
    # a draw or a four, read from no child.
    for board, ply, seed in ((Board(9, 4), 30, 9), (Board(4, 4), 14, 4), (Board(4, 4), 13, 5)):
        parents = endgames(board, ply, 40, seed)
        children: dict[int, Position] = {}
        for parent in parents:
            for col in parent.legal_moves():
                child = parent.play(col)
                if not parent.is_winning_move(col) and child.ply < board.cells:
                    children.setdefault(child.canonical_key, child)
        below = segment_of(list(children.values()), [minimax(c) for c in children.values()])
        packed, best = both(board, segment_of(parents, [minimax(p) for p in parents]), below, ply)
        assert len(packed) == len(parents) and best.all()


def test_a_damaged_family_is_refused_as_numpy_refuses_it():
    board = Board()
    parents = endgames(board, 30, 10, seed=3)
    children = {
        parent.play(col).canonical_key: parent.play(col)
        for parent in parents
        for col in parent.legal_moves()
        if not parent.is_winning_move(col)
    }
    scores = [minimax(p) for p in parents]
    whole = segment_of(list(children.values()), [minimax(c) for c in children.values()])
    lacking = Segment(whole.keys[1:], whole.scores[1:], None)  # a child gone
    off = segment_of(parents, [s + 1 for s in scores])  # no move scores these
    for parent_segment, below, why in [
        (segment_of(parents, scores), lacking, "ply 31 lacks a child of a ply-30 position"),
        (off, whole, "a ply-30 position's score is no move's score"),
    ]:
        args = (board, parent_segment.keys, parent_segment.scores, below.keys, below.scores, 30)
        for derive in (compiled_family.derive_many, family.derive_many):
            with pytest.raises(CorruptBookError, match=why):
                derive(*args, "some.db")

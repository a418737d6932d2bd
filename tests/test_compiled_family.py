"""``bookgen.book.compiled_family``: ``family.derive_many(..., compiled=True)`` gives
numpy's answers: on the books' own plies, on a width-9 board checked by minimax, and on
endgames that reach the last cell.  It refuses what numpy refuses: test_family's damaged
families."""

import numpy as np
import pytest
from conftest import PLY10, SHIPPED, minimax
from test_family import endgames, segment_of

from bookgen import Book
from bookgen.book.family import derive_many
from bookgen.book.segment import Segment
from solver import Board, Position


def both(board: Board, parents: Segment, below: Segment, ply: int):
    """``(packed, best)`` from the compiled kernels, after checking numpy's are the same."""
    args = (board, parents.keys, parents.scores, below.keys, below.scores, ply)
    packed, best = derive_many(*args, compiled=True)
    expected_packed, expected_best = derive_many(*args)
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

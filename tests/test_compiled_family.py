"""``bookgen.book.read.compiled_family``: ``derive_many`` gives the plain-Python
``Family``'s answers (test_family's ``both_ways``): on the books' own plies (test_family),
on a width-9 board checked by minimax, and on endgames that reach the last cell.  It
refuses what ``Family`` refuses: test_family's damaged families."""

from conftest import minimax
from test_family import both_ways, endgames, segment_of

from solver import Board, Position


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
        packed, best = both_ways(
            board, segment_of(parents, [minimax(p) for p in parents]), below, ply
        )
        assert len(packed) == len(parents) and best.all()

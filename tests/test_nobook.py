"""``NoBook``: a book of no positions, which the player and the analysis read as a book."""

import pytest

from bookgen import Player
from bookgen.book.read.nobook import NoBook
from bookgen.play.analysis import analyze
from bookgen.play.knowledge import book_bound, book_leaves
from solver import Board, Position, Solver

LATE_8X8 = "32528887428177185426111174714884"  # best moves 3, 5 and 7 (score 3)


def test_no_book_holds_nothing_on_its_board():
    book = NoBook("8x8")
    assert book.board is Board(8, 8) and NoBook().board is Board(7, 6)
    assert book.get("45") is None and book.get_many(["", "4", "45"]) == [None] * 3
    assert book.best_move("45") is None
    with pytest.raises(ValueError, match=r"prefer=\[1\]: give every column 1-8 once"):
        book.best_move("45", [1])
    assert book.entries_of_keys([1, 2]) == ([], [], [])
    assert "" not in book and len(book) == 0 and book.db is None
    assert (book.info.width, book.info.height, book.info.root) == (8, 8, "")
    assert book.info.max_ply == -1 and book.info.plies_complete == ()
    assert repr(book) == "NoBook('8x8')"
    book.close()


def test_past_64_bits_the_player_and_the_analysis_read_it_as_a_book_of_nothing():
    book = NoBook("8x8")
    position = Position.from_moves(LATE_8X8, book.board)
    # No parent's lookup: a key of two words never reaches the one-word kernels.
    assert book_bound(book, position) is None and len(book_leaves(book, position)[0]) == 0
    found = analyze(position, book)
    assert found.source == "search"
    assert list(found.move_scores) == Solver(board="8x8", table_log2=20).analyze(position)
    decision = Player(book, time_budget=5.0).choose(position)
    assert decision.column in (3, 5, 7) and decision.proven and decision.score == 3
    assert Player(book, time_budget=0.2).choose("45").source in ("anytime", "search")

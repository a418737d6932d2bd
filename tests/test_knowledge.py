"""``bookgen.play.knowledge``: bounds from the book's parents and from the player's own proofs."""

import random
from pathlib import Path

import pytest

from bookgen import Book
from bookgen.play.knowledge import Floors, book_bound, book_leaves
from solver import Board, Position, Solver
from solver.position import random_position

SHIPPED = Path(__file__).resolve().parent.parent / "book.db"


@pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")
def test_book_bound_just_past_the_book_is_a_true_lower_bound_and_exact_after_a_best_move():
    rng = random.Random(3)
    solver = Solver(table_log2=22)
    exact = 0
    with Book.open(str(SHIPPED)) as book:
        for _ in range(12):
            position = random_position(rng, book.info.max_ply + 1)
            bound = book_bound(book, position)
            assert bound is not None, position.moves  # every parent is in the book
            score = solver.solve(position)
            assert score >= bound.low, position.moves
            if bound.exact:
                assert score == bound.low, position.moves
                exact += 1
        # Just past the book along its best line: the score is known exactly.
        position = Position()
        for _ in range(book.info.max_ply + 1):
            position = position.play(int(book.get(position).best_moves[0]))
        assert book_bound(book, position) == (-book.get(position.moves[:-1]).score, True)
        assert book_bound(book, Position.from_moves("4" * 6 + "3" * 6 + "5" * 6)) is None
        assert book_bound(book, Position()) is None
    assert exact >= 3  # often the bound is the score itself


def test_book_bound_past_64_bits_from_an_8x8_book(wide_book_path):
    from conftest import WIDE_PLY, WIDE_ROOT

    board = Board(8, 8)
    solver = Solver(table_log2=20, board=board)
    rng = random.Random(5)
    exact = tried = 0
    with Book.open(wide_book_path) as book:
        assert book.info.max_ply == WIDE_PLY
        for _ in range(40):  # one stone past the book, from its root (or a game ended)
            position = Position.from_moves(WIDE_ROOT, board)
            while position.ply <= WIDE_PLY and not position.is_game_over:
                position = position.play(rng.choice(position.legal_moves()))
            if position.is_game_over:
                continue
            tried += 1
            bound = book_bound(book, position)
            assert bound is not None, position.moves  # every parent is in the book
            score = solver.solve(position)
            assert score >= bound.low, position.moves
            if bound.exact:
                assert score == bound.low, position.moves
                exact += 1
        position = Position.from_moves(WIDE_ROOT, board)
        while position.ply <= WIDE_PLY:  # along the book's best line: exact
            position = position.play(int(book.get(position).best_moves[0]))
        parent = book.get(position.moves[:-1])
        assert book_bound(book, position) == (-parent.score, True)
        assert book_bound(book, Position.from_moves("1188", board)) is None  # none in the book
    assert tried >= 10 and exact >= 1


def test_book_bound_without_a_book():
    assert book_bound(None, Position.from_moves("4453")) is None


def test_floors_carry_a_proven_score_to_every_reply():
    floors = Floors()
    position = Position.from_moves("4453")
    floors.after_move(position, 4, 3)
    child = position.play(4)
    for reply in child.legal_moves():
        assert floors.get(child.play(reply)) == 3
    assert floors.get(position) is None and floors.get(child) is None
    floors.after_move(position, 4, 1)  # a weaker bound never lowers a known one
    assert floors.get(child.play(1)) == 3


@pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")
def test_book_leaves_are_the_childrens_scores():
    with Book.open(str(SHIPPED)) as book:
        position = Position.from_moves("4453")
        keys, scores = book_leaves(book, position)
        assert list(keys) == sorted(keys) and len(keys) == len(scores) == 7
        for col in range(1, 8):
            child = position.play(col)
            i = list(keys).index(child.canonical_key)
            assert scores[i] == book.get(child).score
        last = Position.from_moves("44533712623517"[: book.info.max_ply])
        assert last.ply == book.info.max_ply  # a deeper book needs a longer line here
        assert [len(a) for a in book_leaves(book, last)] == [0, 0]  # children past the book
    assert [len(a) for a in book_leaves(None, position)] == [0, 0]

"""``bookgen.play.analysis``: book first, search for the rest, against the real small book.

Every expected score comes from ``Solver`` directly (or from Pons' benchmark
files), never from the book or from ``analyze`` itself.
"""

from pathlib import Path

import pytest
from conftest import SMALL_PLY, SMALL_ROOT, book_moves

from bookgen.play.analysis import Analysis, analyze, describe_score, ordinal
from solver import C4Error, GameOverError, IllegalMoveError, Position, Solver, win_score

DATA = Path(__file__).parent / "data"

# Root: x to move and win with the 6th stone by playing 2 or 5 (three in the bottom row).
ROOT_SCORES = (0, 16, 2, None, 16, 0, 2)

# Not in the book (column 3 holds one stone), but playing 3 transposes to
# 44444433 + 6172, a frontier position of the book.
OUTSIDE_WITH_BOOK_CHILD = "44444431627"
ITS_BOOK_CHILD = "444444336172"

# A ply-41 End-Easy position: one cell left, filling it draws. Nothing to search.
LAST_CELL = "71255763773133525731261364622167124446454"


def pons_lines(name: str, step: int, limit: int) -> list[tuple[str, int]]:
    lines = (DATA / name).read_text().split("\n")
    picked = [line.split() for line in lines[::step] if line.strip()][:limit]
    return [(moves, int(score)) for moves, score in picked]


def mirrored(moves: str) -> str:
    return "".join(str(8 - int(c)) for c in moves)


def expected(solver: Solver, moves: str) -> tuple[int, tuple[int, ...], tuple]:
    """(score, best moves, move scores) by direct search."""
    position = Position.from_moves(moves)
    scores = tuple(solver.analyze(position))
    score = solver.solve(position)
    assert score == max(s for s in scores if s is not None)
    best = tuple(col for col, s in enumerate(scores, start=1) if s == score)
    return score, best, scores


def check_against_solver(result: Analysis, solver: Solver, moves: str) -> None:
    score, best, scores = expected(solver, moves)
    position = Position.from_moves(moves)
    assert result.moves == position.moves
    assert result.ply == position.ply
    assert result.score == score
    assert result.wdl == (score > 0) - (score < 0)
    assert result.best_moves == best
    assert result.move_scores == scores


# -- source "book" ------------------------------------------------------------


def test_root_comes_from_the_book_without_any_search(book, solver):
    fresh = Solver(table_log2=10)
    result = analyze(SMALL_ROOT, book, fresh)
    assert result.source == "book"
    assert fresh.nodes == 0  # answered from the book alone
    assert result == Analysis(SMALL_ROOT, 8, 16, 1, (2, 5), ROOT_SCORES, "book")
    check_against_solver(result, solver, SMALL_ROOT)


def test_mirror_image_of_the_root_is_read_in_its_own_orientation(book, solver):
    moves = mirrored(SMALL_ROOT)  # 44444455
    result = analyze(moves, book, Solver(table_log2=10))
    assert result.source == "book"
    assert result.best_moves == (3, 6)
    assert result.move_scores == ROOT_SCORES[::-1]
    check_against_solver(result, solver, moves)


def test_inner_book_positions_match_a_direct_solve(book, solver, small_book_path):
    """Every stored orientation and its mirror, a fixed sample of plies 9-11."""
    picked = (
        book_moves(small_book_path, 9)
        + book_moves(small_book_path, 10)[::9]
        + book_moves(small_book_path, 11)[::34]
    )
    assert len(picked) >= 12
    fresh = Solver(table_log2=10)
    for moves in picked:
        for variant in (moves, mirrored(moves)):
            result = analyze(variant, book, fresh)
            assert result.source == "book", variant
            check_against_solver(result, solver, variant)
    assert fresh.nodes == 0


def test_analysis_accepts_a_position_object(book):
    result = analyze(Position.from_moves(SMALL_ROOT), book)
    assert (result.moves, result.score, result.source) == (SMALL_ROOT, 16, "book")


def test_to_json_holds_the_answer(book):
    data = analyze(SMALL_ROOT, book).to_json()
    assert data == {
        "moves": SMALL_ROOT,
        "score": 16,
        "wdl": 1,
        "best_moves": [2, 5],
        "move_scores": list(ROOT_SCORES),
        "source": "book",
    }


# -- mixed and searched -------------------------------------------------------


def test_frontier_position_is_book_plus_search(book, solver, small_book_path):
    """Frontier entries hold no move scores: the children are searched."""
    for moves in book_moves(small_book_path, SMALL_PLY)[::115]:
        entry = book.get(moves)
        assert entry is not None and entry.move_scores is None
        result = analyze(moves, book, solver)
        assert result.source == "book+search", moves
        check_against_solver(result, solver, moves)
        assert result.score == entry.score


def test_position_outside_the_book_with_a_child_in_it(book, solver):
    assert book.get(OUTSIDE_WITH_BOOK_CHILD) is None
    assert Position.from_moves(OUTSIDE_WITH_BOOK_CHILD).play(3) == Position.from_moves(
        ITS_BOOK_CHILD
    )
    assert book.get(OUTSIDE_WITH_BOOK_CHILD + "3") is not None
    result = analyze(OUTSIDE_WITH_BOOK_CHILD, book, solver)
    assert result.source == "book+search"
    check_against_solver(result, solver, OUTSIDE_WITH_BOOK_CHILD)
    assert result.move_scores[2] == -book.get(ITS_BOOK_CHILD).score


def test_no_book_means_search(solver):
    result = analyze(SMALL_ROOT, None, solver)
    assert result.source == "search"
    assert result == Analysis(SMALL_ROOT, 8, 16, 1, (2, 5), ROOT_SCORES, "search")


def test_no_book_and_no_solver_given_creates_one():
    moves, score = pons_lines("Test_L3_R1", 1, 1)[0]
    result = analyze(moves)
    assert (result.score, result.source) == (score, "search")


def test_position_unrelated_to_the_book_is_searched(book, solver):
    moves, score = pons_lines("Test_L2_R1", 97, 1)[0]
    result = analyze(moves, book, solver)
    assert result.source == "search"
    assert result.score == score
    check_against_solver(result, solver, moves)


@pytest.mark.parametrize("name, step, limit", [("Test_L3_R1", 83, 12), ("Test_L2_R1", 199, 5)])
def test_benchmark_scores(solver, name, step, limit):
    for moves, score in pons_lines(name, step, limit):
        result = analyze(moves, None, solver)
        assert result.score == score, moves
        assert result.wdl == (score > 0) - (score < 0)
        position = Position.from_moves(moves)
        for col in result.best_moves:
            assert result.move_scores[col - 1] == score
        for col, move_score in enumerate(result.move_scores, start=1):
            assert (move_score is None) == (not position.can_play(col))


def test_immediate_win_scores_the_winning_column(solver):
    # x holds three in column 1, o three in column 2: x wins now with its 4th stone.
    result = analyze("121212", None, solver)
    assert result.score == win_score(6) == 18
    assert result.best_moves == (1,)
    assert result.move_scores[0] == 18
    check_against_solver(result, solver, "121212")


def test_last_cell_draw_scores_zero():
    result = analyze(LAST_CELL)
    assert (result.score, result.wdl, result.best_moves) == (0, 0, (5,))
    assert result.move_scores == (None, None, None, None, 0, None, None)


def test_no_book_is_never_reported_as_book():
    assert analyze(LAST_CELL, None).source != "book"


# -- bad input ----------------------------------------------------------------


@pytest.mark.parametrize("moves", ["4a", "0", "8", "4444444", "12121212"])
def test_illegal_moves_raise_naming_the_input(book, moves):
    with pytest.raises(IllegalMoveError) as caught:
        analyze(moves, book)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, C4Error)
    assert repr(moves) in str(caught.value)


def test_finished_game_cannot_be_analyzed(book):
    with pytest.raises(GameOverError) as caught:
        analyze("1212121", book)
    assert isinstance(caught.value, ValueError)
    assert "'1212121'" in str(caught.value)


def test_not_a_move_string(book):
    with pytest.raises(IllegalMoveError, match="42"):
        analyze(42, book)


# -- words --------------------------------------------------------------------


@pytest.mark.parametrize(
    "score, ply, words",
    [
        (1, 0, "first player wins with the 21st stone"),
        (-1, 0, "second player wins with the 21st stone"),
        (0, 0, "draw"),
        (0, 17, "draw"),
        (16, 8, "first player wins with the 6th stone"),
        (-16, 9, "first player wins with the 6th stone"),
        (18, 6, "first player wins with the 4th stone"),
        (2, 1, "second player wins with the 20th stone"),
        (-2, 1, "first player wins with the 20th stone"),
        (-9, 10, "second player wins with the 13th stone"),
        (11, 13, "second player wins with the 11th stone"),
        (-10, 2, "second player wins with the 12th stone"),
        (19, 4, "first player wins with the 3rd stone"),
        (20, 3, "second player wins with the 2nd stone"),
    ],
)
def test_describe_score(score, ply, words):
    assert describe_score(score, ply) == words


def test_describe_score_of_real_positions(book):
    assert describe_score(book.get(SMALL_ROOT).score, 8) == "first player wins with the 6th stone"
    # 444444332: o to move, x wins with its 6th stone whatever o does.
    entry = book.get("444444332")
    assert entry.score == -16
    assert describe_score(entry.score, 9) == "first player wins with the 6th stone"


@pytest.mark.parametrize(
    "n, text",
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (5, "5th"),
        (10, "10th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (14, "14th"),
        (20, "20th"),
        (21, "21st"),
        (22, "22nd"),
        (23, "23rd"),
        (101, "101st"),
        (111, "111th"),
        (112, "112th"),
        (113, "113th"),
    ],
)
def test_ordinal(n, text):
    assert ordinal(n) == text

"""``c4book query`` (``bookgen.cli.query``): the board, the score in words, the best moves
and each move's score, from the small book or searched, as text and as JSON.

Expected scores come from ``Solver`` directly or from Pons' benchmark files.
"""

import json
import os

import pytest
from conftest import SMALL_PLY, SMALL_ROOT, analyzed, book_moves, c4book, pons_lines

from solver import Position

ROOT_BOARD = """\
. . . o . . .
. . . x . . .
. . . o . . .
. . . x . . .
. . o o . . .
. . x x . . .
1 2 3 4 5 6 7"""
ROOT_SCORES = [0, 16, 2, None, 16, 0, 2]

# A ply-41 End-Easy position: one cell left, filling it draws.
LAST_CELL = "71255763773133525731261364622167124446454"


def signed(score):
    return "full" if score is None else f"{score:+d}" if score else "0"


def test_query_book_position(small_book_path, solver):
    score, best, scores = analyzed(solver, SMALL_ROOT)
    assert (score, best, scores) == (16, [2, 5], ROOT_SCORES)
    result = c4book("query", SMALL_ROOT, "--db", small_book_path)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == (
        f"{ROOT_BOARD}\n\n"
        "moves  44444433  (ply 8, x to play)\n"
        "score  +16: first player wins with the 6th stone  [from the book]\n"
        "best   2 5\n"
        "moves  1:0  2:+16  3:+2  4:full  5:+16  6:0  7:+2\n"
    )


def test_query_mirrored_book_position(small_book_path, solver):
    moves = "44444455"
    score, best, scores = analyzed(solver, moves)
    result = c4book("query", moves, "--db", small_book_path)
    assert result.returncode == 0
    assert (
        f"score  {signed(score)}: first player wins with the 6th stone  [from the book]"
        in result.stdout
    )
    assert f"best   {' '.join(map(str, best))}\n" in result.stdout
    assert "best   3 6\n" in result.stdout
    assert (
        "moves  " + "  ".join(f"{c}:{signed(s)}" for c, s in enumerate(scores, 1)) in result.stdout
    )


def test_query_json(small_book_path, solver):
    moves = "444444332"  # o to move, lost: x wins with its 6th stone
    score, best, scores = analyzed(solver, moves)
    result = c4book("query", moves, "--db", small_book_path, "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert set(data) == {"moves", "score", "wdl", "best_moves", "move_scores", "source"}
    assert data == {
        "moves": moves,
        "score": score,
        "wdl": -1,
        "best_moves": best,
        "move_scores": scores,
        "source": "book",
    }
    assert score == -16


@pytest.mark.parametrize("options, source", [((), "book"), (("--no-book",), "search")])
def test_query_json_of_the_root(small_book_path, options, source):
    data = json.loads(
        c4book("query", SMALL_ROOT, "--db", small_book_path, *options, "--json").stdout
    )
    assert data == {
        "moves": SMALL_ROOT,
        "score": 16,
        "wdl": 1,
        "best_moves": [2, 5],
        "move_scores": ROOT_SCORES,
        "source": source,
    }


def test_book_given_as_an_sqlalchemy_url(small_book_path):
    url = f"sqlite:///{os.path.abspath(small_book_path)}"
    data = json.loads(c4book("query", SMALL_ROOT, "--db", url, "--json").stdout)
    assert (data["score"], data["best_moves"], data["source"]) == (16, [2, 5], "book")


def test_query_second_player_words(small_book_path, solver):
    result = c4book("query", "444444332", "--db", small_book_path)
    assert "moves  444444332  (ply 9, o to play)" in result.stdout
    assert "score  -16: first player wins with the 6th stone  [from the book]" in result.stdout


def test_query_outside_the_book_searches(small_book_path, solver):
    moves, score = pons_lines("Test_L3_R1", 137, 1)[0]
    _, best, scores = analyzed(solver, moves)
    text = c4book("query", moves, "--db", small_book_path)
    assert text.returncode == 0
    assert str(Position.from_moves(moves)) in text.stdout
    assert f"score  {signed(score)}: " in text.stdout
    assert "[not in the book: searched]" in text.stdout
    data = json.loads(c4book("query", moves, "--db", small_book_path, "--json").stdout)
    assert data == {
        "moves": moves,
        "score": score,
        "wdl": (score > 0) - (score < 0),
        "best_moves": best,
        "move_scores": scores,
        "source": "search",
    }


def test_query_frontier_is_partly_searched(small_book_path, solver):
    moves = book_moves(small_book_path, SMALL_PLY)[200]
    score, best, scores = analyzed(solver, moves)
    text = c4book("query", moves, "--db", small_book_path)
    assert "[partly from the book, the rest searched]" in text.stdout
    data = json.loads(c4book("query", moves, "--db", small_book_path, "--json").stdout)
    assert (data["score"], data["best_moves"], data["move_scores"], data["source"]) == (
        score,
        best,
        scores,
        "book+search",
    )


def test_query_draw_words(solver):
    result = c4book("query", LAST_CELL, "--no-book")
    assert result.returncode == 0
    assert "moves  " + LAST_CELL + "  (ply 41, o to play)" in result.stdout
    assert "score  0: draw  " in result.stdout
    assert "best   5\n" in result.stdout
    assert "moves  1:full  2:full  3:full  4:full  5:0  6:full  7:full\n" in result.stdout


def test_query_without_a_book_never_claims_the_book():
    result = c4book("query", LAST_CELL, "--no-book")
    assert "[from the book]" not in result.stdout


def test_query_past_64_bits_searches_without_a_book():
    # 8x8 (two-word keys): no book to read, the wide solver answers; the board drawn 8 wide.
    from conftest import endgames_without_wins

    from solver import Board, Solver

    board = Board(8, 8)
    late = endgames_without_wins(1, 9, 14, board)[0]
    answer = json.loads(c4book("query", late.moves, "--board", "8x8", "--json").stdout)
    scores = Solver(board=board, table_log2=20).analyze(late)
    assert answer["source"] == "search" and answer["move_scores"] == scores
    text = c4book("query", late.moves, "--board", "8x8").stdout
    assert text.startswith(str(late)) and "(ply 50," in text

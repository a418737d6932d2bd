"""``c4book move`` (``bookgen.cli.move``): the AI's column, and how it found it (book,
search or anytime, score, time, proof), as text and as JSON."""

import json
import re

import pytest
from conftest import SMALL_ROOT, analyzed, c4book, pons_lines

from bookgen.progress import SEARCH_NOTICE


def test_move_from_the_book(small_book_path):
    result = c4book("move", SMALL_ROOT, "--db", small_book_path)
    assert result.returncode == 0 and result.stderr == ""
    assert re.fullmatch(r"5  \(book, score \+16, \d+\.\d ms\)\n", result.stdout), result.stdout


def test_move_json_from_the_book(small_book_path):
    data = json.loads(c4book("move", "44444455", "--db", small_book_path, "--json").stdout)
    assert set(data) == {
        "moves",
        "column",
        "score",
        "source",
        "proven",
        "seconds",
        "depth",
        "keeps",
    }
    assert (data["moves"], data["column"], data["score"], data["source"], data["proven"]) == (
        "44444455",
        3,
        16,
        "book",
        True,
    )
    assert 0 <= data["seconds"] < 5


def test_move_searched(small_book_path, solver):
    moves, score = pons_lines("Test_L2_R1", 211, 1)[0]
    _, best, _ = analyzed(solver, moves)
    text = c4book("move", moves, "--db", small_book_path)
    match = re.fullmatch(r"([1-7])  \(search, score ([+-]?\d+), \d+\.\d ms\)\n", text.stdout)
    assert match, text.stdout
    assert int(match[1]) in best and int(match[2]) == score
    data = json.loads(c4book("move", moves, "--db", small_book_path, "--json").stdout)
    assert data["column"] in best
    assert (data["moves"], data["score"], data["source"], data["proven"]) == (
        moves,
        score,
        "search",
        True,
    )


def test_move_with_a_time_budget(small_book_path):
    # A second: enough to look 4 plies ahead on a loaded machine, far too little to prove
    # anything about the opening (0.3 s once went to loading the kernels under load).
    data = json.loads(c4book("move", "4", "--db", small_book_path, "--time", "1", "--json").stdout)
    assert (data["moves"], data["score"], data["source"], data["proven"]) == (
        "4",
        None,
        "anytime",
        False,
    )
    assert 1 <= data["column"] <= 7 and data["depth"] >= 4
    assert data["seconds"] < 5
    text = c4book("move", "4", "--db", small_book_path, "--time", "1")
    assert re.fullmatch(
        r"[1-7]  \(anytime, \d+\.\d ms, not proven: time ran out, "
        r"best found looking \d+ plies ahead\)\n",
        text.stdout,
    ), text.stdout
    assert data["keeps"] is None  # nothing proven about the opening


def test_move_past_64_bits_without_a_book():
    # 8x8: no book (the one found by default is 7x6), the wide kernels searching.
    from conftest import endgames_without_wins

    from solver import Board, Solver

    board = Board(8, 8)
    timed = c4book("move", "45", "--board", "8x8", "--no-book", "--time", "0.5", "--json")
    data = json.loads(timed.stdout)
    assert (data["moves"], data["source"], data["proven"]) == ("45", "anytime", False)
    assert 1 <= data["column"] <= 8 and data["depth"] >= 2
    # On a fresh install the wide kernels compile here first, and the wait is said.
    assert timed.stderr in ("", SEARCH_NOTICE + "\n"), timed.stderr
    text = c4book("move", "45", "--board", "8x8", "--time", "0.5").stdout
    assert re.fullmatch(r"[1-8]  \(anytime, \d+\.\d ms, not proven: .*\)\n", text), text
    late = endgames_without_wins(1, 7, 14, board)[0]
    exact = json.loads(c4book("move", late.moves, "--board", "8x8", "--json").stdout)
    score = Solver(board=board, table_log2=20).solve(late)
    assert (exact["source"], exact["proven"], exact["score"]) == ("search", True, score)
    assert Solver(board=board, table_log2=20).is_best_move(late, exact["column"], score)


@pytest.mark.parametrize("budget", ["nan", "inf"])
def test_move_odd_time_budget_is_handled(budget):
    moves, _ = pons_lines("Test_L3_R1", 137, 1)[0]
    result = c4book("move", moves, "--no-book", "--time", budget)
    assert "Traceback" not in result.stderr
    if result.returncode != 0:
        assert len(result.stderr.strip().splitlines()) == 1
    else:
        assert re.match(r"[1-7]  \(", result.stdout)

"""``bookgen.play.review``: a game's moves marked, against a naive rule of this file's own.

The expected scores come from the shipped book's entries and from ``Solver.analyze``
(what ``c4book query`` prints), never from ``review`` or ``analyze``; the marks from
``naive_mark`` below, written apart from the module's rules.  The command line is run as
a real process over the shipped book.
"""

from __future__ import annotations

import json
import random
import subprocess
import time

import pytest
from conftest import SHIPPED, c4book_command, win_now

from bookgen import PlayerSummary, Review, ReviewedMove, review
from bookgen.play.review import mark
from solver import (
    Board,
    BoardSizeError,
    GameOverError,
    IllegalMoveError,
    Position,
    Solver,
)

# A draw to the last cell: the first player's first move (3) throws the win away, and
# every other move keeps the draw (both sides play the solver's moves after it).
DRAWN_42 = "344444634323335556555222226666111111777777"
# x stacks three in column 1 and o three in column 2; then x wins at once with 1 (+18).
THREE_EACH = "121213"


def naive_mark(best: int, played: int) -> str:
    """The marks as a table of results: win, draw or loss before and after."""
    before = "win" if best > 0 else "draw" if best == 0 else "loss"
    after = "win" if played > 0 else "draw" if played == 0 else "loss"
    if (before, after) == ("win", "loss"):
        return "blunder"
    if (before, after) in (("win", "draw"), ("draw", "loss")):
        return "mistake"
    return "best" if played == best else "inaccuracy"


def query_scores(book, solver: Solver, moves: str) -> list[int | None]:
    """Each move's score as ``c4book query`` gives it: the book's entry, else the solver's."""
    entry = book.get(moves)
    if entry is not None and entry.move_scores is not None:
        return list(entry.move_scores)
    return solver.analyze(Position.from_moves(moves))


def random_game(rng: random.Random) -> str:
    """A random game to its end, moves that win at once avoided two times in three (games
    run longer, past the book)."""
    position = Position()
    while not position.is_game_over:
        moves = position.legal_moves()
        quiet = [c for c in moves if not position.is_winning_move(c)]
        position = position.play(rng.choice(quiet if quiet and rng.random() < 2 / 3 else moves))
    return position.moves


def c4book(*args: str):
    return subprocess.run([*c4book_command(), *args], capture_output=True, text=True, timeout=300)


# -- the rules ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "best, played, expected",
    [
        (1, -2, "blunder"),  # the empty board's 1 (README: -2 -1 0 1 0 -1 -2)
        (18, -1, "blunder"),
        (1, 0, "mistake"),  # the empty board's 3
        (0, -3, "mistake"),
        (18, 2, "inaccuracy"),  # a slower win
        (-2, -5, "inaccuracy"),  # a quicker loss
        (1, 1, "best"),
        (0, 0, "best"),
        (-4, -4, "best"),
    ],
)
def test_each_rule_is_the_table_of_results(best, played, expected):
    assert mark(best, played) == expected == naive_mark(best, played)


# -- against the naive rule -----------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_random_games_agree_move_by_move_with_the_naive_rule_on_querys_scores(
    shipped_book, solver, seed
):
    moves = random_game(random.Random(seed))
    result = review(moves, shipped_book)
    assert result.moves == moves and len(result.played) == len(moves)
    for number, reviewed in enumerate(result.played, start=1):
        before, column = moves[: number - 1], int(moves[number - 1])
        scores = query_scores(shipped_book, solver, before)
        best = max(s for s in scores if s is not None)
        played = scores[column - 1]
        assert played is not None
        assert reviewed.number == number and reviewed.column == column
        assert reviewed.player == ("first" if number % 2 else "second")
        assert reviewed.move_scores == tuple(scores), before
        assert reviewed.score_before == best and reviewed.score == played, before
        assert reviewed.best_moves == tuple(c for c, s in enumerate(scores, 1) if s == best)
        assert reviewed.mark == naive_mark(best, played), before
    for summary in (result.first, result.second):
        marks = [m.mark for m in result.played if m.player == summary.player]
        assert summary.moves == len(marks)
        counts = (summary.best, summary.inaccuracy, summary.mistake, summary.blunder)
        assert counts == tuple(marks.count(m) for m in ("best", "inaccuracy", "mistake", "blunder"))
        assert summary.accuracy == round(100 * marks.count("best") / len(marks), 1)
    position = Position.from_moves(moves)
    assert result.finished
    assert result.winner == (
        None if not position.is_won else "first" if len(moves) % 2 else "second"
    )


# -- known games ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "moves, last_mark, last_score, best_score",
    [
        ("4", "best", 1, 1),  # the empty board's moves: -2 -1 0 1 0 -1 -2 (README)
        ("3", "mistake", 0, 1),
        ("2", "blunder", -1, 1),
        (THREE_EACH + "1", "best", win_now(6), win_now(6)),  # the win at once
        (THREE_EACH + "2", "inaccuracy", 2, win_now(6)),  # misses it, still wins later
        (THREE_EACH + "4", "mistake", 0, win_now(6)),  # misses it, and only draws
        (THREE_EACH + "41", "best", 0, 0),  # o blocks: the draw kept
        (THREE_EACH + "42", "mistake", -win_now(8), 0),  # o does not: x wins at once
    ],
)
def test_a_missed_win_and_known_moves_are_marked_so(
    shipped_book, moves, last_mark, last_score, best_score
):
    last = review(moves, shipped_book).played[-1]
    assert (last.mark, last.score, last.score_before) == (last_mark, last_score, best_score)


def test_a_whole_drawn_game_has_one_mistake_and_a_missed_block_is_a_blunder(shipped_book):
    result = review(DRAWN_42, shipped_book)
    assert result.finished and result.winner is None
    assert [m.mark for m in result.played] == ["mistake"] + ["best"] * 41
    assert result.first == PlayerSummary("first", 21, 20, 0, 1, 0, 95.2)
    assert result.second == PlayerSummary("second", 21, 21, 0, 0, 0, 100.0)
    assert {m.source for m in result.played[:12]} == {"book"}  # the book's plies: no search
    # x three high in column 1 before o's 6th move: o, winning by blocking, loses at once.
    game = review("1212121", shipped_book)
    assert game.winner == "first" and game.played[5].mark == "blunder"
    assert game.played[5].score == -win_now(6)


def test_no_moves_no_marks_and_without_a_book_every_position_is_searched():
    empty = review("")
    assert empty.played == () and not empty.finished
    assert empty.first == PlayerSummary("first", 0, 0, 0, 0, 0, None)
    small = Solver(table_log2=20, board="4x4")
    game = "12341234"  # on 4x4, no book: each position searched, here and by the test
    result = review(Position.from_moves(game, "4x4"))
    assert result.board is Board(4, 4) and {m.source for m in result.played} == {"search"}
    for number, reviewed in enumerate(result.played, start=1):
        scores = small.analyze(Position.from_moves(game[: number - 1], "4x4"))
        best = max(s for s in scores if s is not None)
        assert reviewed.move_scores == tuple(scores)
        assert reviewed.mark == naive_mark(best, scores[int(game[number - 1]) - 1])


def test_the_repr_pastes_back_and_the_json_is_plain(shipped_book):
    result = review(THREE_EACH + "2", shipped_book)
    assert eval(repr(result)) == result  # noqa: S307 - the repr is meant to paste back
    assert isinstance(result.played[0], ReviewedMove) and isinstance(result, Review)
    data = json.loads(json.dumps(result.to_json()))
    assert data["played"][-1] == {
        "number": 7,
        "player": "first",
        "column": 2,
        "score_before": win_now(6),
        "score": 2,
        "best_moves": [1],
        "mark": "inaccuracy",
        "symbol": "?!",
        "move_scores": list(result.played[-1].move_scores),
        "source": result.played[-1].source,
    }
    assert data["summary"]["first"]["inaccuracy"] == 1 and data["board"] == {
        "width": 7,
        "height": 6,
    }


# -- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "moves, error, says",
    [
        ("4453x", IllegalMoveError, "'x' at position 5 of '4453x'"),
        ("4444444", IllegalMoveError, "column 4 is full at move 7"),
        ("12121213", GameOverError, "move 3 at position 8 of '12121213' comes after the game"),
        (4453, IllegalMoveError, "4453"),
        (Position.from_moves("44", Board(6, 5)), BoardSizeError, "6x5"),
    ],
)
def test_bad_input_raises_the_projects_error_naming_it(shipped_book, moves, error, says):
    with pytest.raises(error) as raised:
        review(moves, shipped_book)
    assert isinstance(raised.value, ValueError)
    assert says in str(raised.value)


# -- the command line -----------------------------------------------------------------


def test_the_command_prints_what_review_gives(shipped_book):
    game = THREE_EACH + "42"
    text = c4book("review", game, "--db", str(SHIPPED))
    as_json = c4book("review", game, "--db", str(SHIPPED), "--json")
    assert text.returncode == as_json.returncode == 0, text.stderr + as_json.stderr
    assert json.loads(as_json.stdout) == review(game, shipped_book).to_json()
    lines = text.stdout.splitlines()
    assert lines[0] == f"moves  {game}  (8 moves; unfinished, x to play)"
    assert lines[-4].split() == ["8", "o", "2", "-17", "1:", "0", "mistake", "?"]
    assert lines[-1] == (
        "second player (o):  4 moves, 1 best, 1 inaccuracy, 1 mistake, 1 blunder; accuracy 25.0%"
    )


def test_a_whole_game_is_reviewed_within_3_s_as_a_whole_process():
    started = time.perf_counter()
    result = c4book("review", DRAWN_42, "--db", str(SHIPPED), "--json")
    seconds = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["played"]) == 42
    # 3 s on an idle machine (issue 53); a loaded one stretches it, so the test allows more.
    assert seconds < 12, seconds


@pytest.mark.parametrize(
    "moves, says",
    [
        ("4453x", "illegal move 'x' at position 5 of '4453x'"),
        ("4444444", "column 4 is full at move 7 of '4444444'"),
        ("12121213", "move 3 at position 8 of '12121213' comes after the game was won"),
    ],
)
def test_bad_moves_are_one_line_and_a_failure(moves, says):
    result = c4book("review", moves, "--db", str(SHIPPED))
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("c4book review: error: ")
    assert says in lines[0]


def test_the_board_follows_the_book_and_board_reads_another_without_one():
    result = c4book("review", "1111", "--board", "4x4", "--json")  # the shipped book is 7x6
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["board"] == {"width": 4, "height": 4}
    assert [m["source"] for m in data["played"]] == ["search"] * 4

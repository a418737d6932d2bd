"""``solver.anytime`` and its kernels (``solver._evaluate``), against the exact solver.

Budgets are given in nodes wherever an answer is checked, so that the tests
go the same way under any load.
"""

import random
from pathlib import Path

import numpy as np
import pytest

from solver import STANDARD as B
from solver import GameOverError, Position, Solver, win_score
from solver import _evaluate as ev
from solver._search import table_bounds
from solver.anytime import NO_KNOWN, AnytimeAnswer, AnytimeSearch

DATA = Path(__file__).parent / "data"


def pons_lines(name: str, step: int, limit: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in (DATA / name).read_text().split("\n") if line.strip()]
    return [(moves, int(score)) for moves, score in lines[::step][:limit]]


END_EASY = pons_lines("Test_L3_R1", 53, 12)
MIDDLE_MEDIUM = pons_lines("Test_L2_R2", 67, 15)


@pytest.fixture(scope="module")
def solver():
    return Solver(table_log2=20)


@pytest.fixture
def search():
    return AnytimeSearch(Solver(table_log2=20), eval_table_log2=14)


def args(position: Position):
    return np.uint64(position.current), np.uint64(position.mask), position.ply


def random_positions(count: int, seed: int, plies=range(4, 38)) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position, target = Position(), rng.choice(plies)
        while position.ply < target and not position.is_game_over:
            position = position.play(rng.choice(position.legal_moves()))
        if not position.is_game_over:
            found.append(position)
    return found


def loses_at_once(position: Position, col: int) -> bool:
    child = position.play(col)
    return not child.is_game_over and any(child.is_winning_move(c) for c in range(1, 8))


# -- the evaluation ---------------------------------------------------------------


def test_evaluation_is_the_same_for_the_mirror_image():
    for position in random_positions(200, 1):
        mirror = position.mirror()
        assert ev.evaluate(B, *args(position)) == ev.evaluate(B, *args(mirror)), position.moves


def test_evaluation_stays_heuristic():
    values = [ev.evaluate(B, *args(p)) for p in random_positions(300, 2)]
    assert all(abs(v) <= ev.HEURISTIC_MAX for v in values)
    assert len(set(values)) > 50  # it tells positions apart


def test_threats_count_more_on_their_owners_rows():
    # One threat cell in column 1: on row 1 (bit row 0, odd: the first player's
    # row), then on row 2 (even).  With the first player's rows, the odd one is good.
    odd, even = np.uint64(1 << 0), np.uint64(1 << 1)
    none = np.uint64(0)
    first_rows, second_rows = np.uint64(B.under_top_rows), np.uint64(B.top_rows)
    assert ev._threats(B, odd, none, first_rows) == ev.GOOD_THREAT
    assert ev._threats(B, even, none, first_rows) == ev.OTHER_THREAT
    assert ev._threats(B, even, none, second_rows) == ev.GOOD_THREAT
    # A threat above the opponent's threat in its column counts for little.
    assert ev._threats(B, even, odd, second_rows) == ev.SHADOWED


def test_full_depth_search_is_exact(solver):
    # With the depth past the end, no leaf is a guess: every move's value is
    # its proven exact score.
    search = AnytimeSearch(Solver(table_log2=10), eval_table_log2=14)
    for moves, _ in END_EASY:
        position = Position.from_moves(moves)
        exact = solver.analyze(position)
        values = search.move_values(position, 42)
        for col, score in enumerate(exact, start=1):
            if score is not None:
                assert values[col] == ev.proven_value(score), (moves, col)


def test_solver_table_bounds_are_read_right(solver):
    # The evaluation reads the exact solver's table: its bounds must hold.
    for moves, score in MIDDLE_MEDIUM[:8]:
        position = Position.from_moves(moves)
        solver.solve(position)
        low, high = table_bounds(B, *args(position)[:2], *solver.search_tables())
        assert (low, high) != (-42, 42), moves  # the root's bound was stored
        assert low <= score <= high, moves


def test_known_scores_are_used_at_the_leaves():
    position = Position.from_moves("4453")
    search = AnytimeSearch(Solver(table_log2=10), eval_table_log2=14)
    child = position.play(4)
    keys = np.array([child.canonical_key], dtype=np.uint64)
    scores = np.array([-7], dtype=np.int64)  # a made-up score: the child loses for its mover
    values = search.evaluate_moves(position, 3, [4], known=(keys, scores))
    assert values == {4: ev.proven_value(7)}


def test_static_bounds_clamp_the_leaves():
    # Where claimeven or dead lines prove a bound, a leaf's guess stays inside it.
    from solver._bits import non_losing_moves
    from solver._bounds import lower_bound, upper_bound

    empty_table = AnytimeSearch(Solver(table_log2=10), eval_table_log2=14)
    clamped = 0
    for position in random_positions(400, 5, plies=range(10, 36)):
        current, mask, ply = args(position)
        if any(position.is_winning_move(c) for c in position.legal_moves()):
            continue
        moves = non_losing_moves(B, current, mask)
        if moves & (moves - 1) == 0:
            continue  # a forced move is searched on, not guessed
        low, high = lower_bound(B, current, mask, moves, -42), upper_bound(B, current, mask, 42)
        guess = ev.evaluate(B, current, mask, ply)
        value = ev.search(
            B,
            current,
            mask,
            ply,
            0,
            -ev.INFINITY,
            ev.INFINITY,
            empty_table._tt_keys,
            empty_table._tt_data,
            *empty_table.solver.search_tables(),
            *NO_KNOWN,
            empty_table._scratch,
        )
        if low >= 0:
            assert value >= 0, position.moves
        if high <= 0:
            assert value <= 0, position.moves
        clamped += (low >= 0 and guess < 0) or (high <= 0 and guess > 0)
    assert clamped > 0  # the rule changed some guesses


# -- the anytime move ---------------------------------------------------------------


def test_never_loses_at_once_while_another_move_does_not():
    search = AnytimeSearch(Solver(table_log2=16), eval_table_log2=14)
    checked = 0
    for position in random_positions(400, 3):
        safe = [c for c in position.legal_moves() if not loses_at_once(position, c)]
        answer = search.choose(position, nodes=1)
        if safe:
            checked += 1
            assert answer.column in safe, position.moves
    assert checked > 300


def test_an_immediate_win_is_taken_and_proven():
    answer = AnytimeSearch(Solver(table_log2=10)).choose(Position.from_moves("121212"), nodes=1)
    assert answer == AnytimeAnswer(1, win_score(6), 1, True, True, 0, 0)


def test_a_lost_position_blocks_and_says_so():
    # o holds 3, 4 and 5 of the bottom row, open at both ends: every move loses.
    position = Position.from_moves("137415")
    assert not any(position.is_winning_move(c) for c in range(1, 8))
    answer = AnytimeSearch(Solver(table_log2=10)).choose(position, nodes=1)
    assert (answer.score, answer.result, answer.proven) == (-18, -1, True)


@pytest.mark.parametrize("moves, score", END_EASY[:6] + MIDDLE_MEDIUM[:4])
def test_enough_budget_gives_the_exact_move(solver, moves, score):
    position = Position.from_moves(moves)
    answer = AnytimeSearch(Solver(table_log2=20)).choose(position, nodes=50_000_000)
    exact = solver.analyze(position)
    assert answer.proven and answer.column in [c for c, s in enumerate(exact, 1) if s == score]
    assert answer.score in (score, None)


def test_a_known_win_is_never_thrown_away_however_long_it_takes_to_prove(solver):
    # Middle-Medium wins need tens of thousands of nodes; told that the
    # position is won, a 100-node budget still plays a winning move.
    from solver import SearchLimitError

    hard = 0
    for moves, _score in [(m, s) for m, s in MIDDLE_MEDIUM if s > 0]:
        position = Position.from_moves(moves)
        fresh = Solver(table_log2=20)
        fresh.set_node_limit(100)
        try:
            fresh.solve(position, weak=True)
            continue  # provable within the budget: not a test of this
        except SearchLimitError:
            hard += 1
        answer = AnytimeSearch(Solver(table_log2=20)).choose(position, nodes=100, low=1)
        exact = solver.analyze(position)
        assert exact[answer.column - 1] > 0, moves
        assert answer.keeps_result and answer.result == 1
    assert hard >= 4


@pytest.mark.parametrize("moves", ["36237473354", "63553124236"])
def test_the_evaluations_losing_favourite_is_refuted_before_it_is_played(solver, moves):
    # Drawn positions where the evaluation search 8 plies deep favours a move
    # that loses: within 100,000 nodes the check of that move refutes it, and
    # the move played draws.
    position = Position.from_moves(moves)
    scores = solver.analyze(position)
    drawing = {col for col, score in enumerate(scores, start=1) if score == 0}
    assert max(s for s in scores if s is not None) == 0
    values = AnytimeSearch(Solver(table_log2=20), eval_table_log2=14).evaluate_moves(position, 8)
    assert max(values, key=values.get) not in drawing
    answer = AnytimeSearch(Solver(table_log2=20), eval_table_log2=14).choose(
        position, nodes=100_000
    )
    assert answer.column in drawing


def test_a_position_whose_every_move_is_refuted_is_reported_lost(solver):
    # "4444443" is lost for the player to move; the weak search alone does not
    # prove it within the budget, but the checks refute every candidate.
    position = Position.from_moves("4444443")
    answer = AnytimeSearch(Solver(table_log2=20), eval_table_log2=14).choose(
        position, nodes=1_000_000
    )
    assert (answer.result, answer.keeps_result, answer.proven) == (-1, True, False)
    assert solver.solve_window(position, -1, 1) == -1


def test_node_budget_gives_the_same_answer_every_time():
    position = Position.from_moves("4453")
    answers = {
        AnytimeSearch(Solver(table_log2=16)).choose(position, nodes=30_000) for _ in range(2)
    }
    assert len(answers) == 1


def test_time_budget_is_kept():
    import time

    search = AnytimeSearch(Solver(table_log2=20))
    search.choose(Position.from_moves("4453"), seconds=0.01)  # load the kernels
    started = time.perf_counter()
    answer = search.choose(Position.from_moves("4"), seconds=0.2)
    assert time.perf_counter() - started < 2.0  # generous: the machine may be loaded
    assert not answer.proven and answer.depth >= 4


def test_needs_a_budget_and_a_game_to_play():
    search = AnytimeSearch(Solver(table_log2=10))
    with pytest.raises(ValueError, match="needs a budget"):
        search.choose(Position.from_moves("4"))
    with pytest.raises(GameOverError, match="'1212121'"):
        search.choose(Position.from_moves("1212121"), nodes=10)


# -- other boards ------------------------------------------------------------------


# Slow: each board compiles its own kernels (about 40 s in CI); the default run keeps 8x8
# (test_past_64_bits_the_move_keeps_the_result_the_wide_solver_proves).
@pytest.mark.parametrize("size", [pytest.param(s, marks=pytest.mark.slow) for s in ("6x5", "8x5")])
def test_anytime_search_on_other_boards_keeps_the_result(size):
    """On any board the anytime move never throws away a proven result, and a search
    with a budget past the end of the game gives an exactly optimal move."""
    from conftest import random_endgames

    from solver import Board

    board = Board.parse(size)
    exact = Solver(board=board, table_log2=20)
    search = AnytimeSearch(Solver(board=board, table_log2=20), eval_table_log2=14)
    assert search.board is board
    for position in random_endgames(12, seed=board.cells, min_empty=6, max_empty=14, board=board):
        score = exact.solve(position)
        answer = search.choose(position, nodes=20_000)
        assert position.can_play(answer.column), position.moves
        child = position.play(answer.column)
        got = (
            board.win_score(position.ply)
            if child.is_won
            else 0
            if child.is_full
            else -exact.solve(child)
        )
        assert (got > 0) - (got < 0) == (score > 0) - (score < 0), position.moves
        if answer.proven:
            assert got == score, position.moves
    with pytest.raises(Exception, match="this search plays"):
        search.choose(Position.from_moves("4"), nodes=100)


WIDE = ["8x8"] + [pytest.param(size, marks=pytest.mark.slow) for size in ("9x7", "5x12")]


@pytest.mark.parametrize("size", WIDE)
def test_past_64_bits_the_move_keeps_the_result_the_wide_solver_proves(size):
    # The two-word evaluation (solver.wide._evaluate) and the wide solver's proofs.
    from conftest import endgames_without_wins, hands_a_win

    from solver import Board
    from solver.wide import _evaluate as wide

    board = Board.parse(size)
    exact = Solver(board=board, table_log2=20)
    search = AnytimeSearch(Solver(board=board, table_log2=20), eval_table_log2=14)
    assert search._ev is wide and search.board is board
    late = endgames_without_wins(10, 1, 10, board) + endgames_without_wins(10, 2, 14, board)
    for position in late:
        score = exact.solve(position)
        answer = search.choose(position, nodes=20_000)
        assert position.can_play(answer.column), position.moves
        child = position.play(answer.column)
        got = 0 if child.is_full else -exact.solve(child)  # (no win at once: see the positions)
        sign = (score > 0) - (score < 0)
        assert (got > 0) - (got < 0) == sign, position.moves
        assert answer.result in (None, sign) and answer.score in (None, score), position.moves
        if answer.proven:
            assert got == score, position.moves
        safe = [c for c in position.legal_moves() if not hands_a_win(position.play(c))]
        assert not safe or answer.column in safe, position.moves
    # Earlier in the game, on a few hundred nodes: the evaluation's move, and only true claims.
    evaluated = 0
    for position in endgames_without_wins(10, 3, 20, board):
        answer = search.choose(position, nodes=300)
        child = position.play(answer.column)
        got = 0 if child.is_full else -exact.solve(child)
        if answer.keeps_result and answer.result is not None:
            assert (got > 0) - (got < 0) == answer.result, position.moves
        if answer.proven:
            assert got == exact.solve(position), position.moves
        safe = [c for c in position.legal_moves() if not hands_a_win(position.play(c))]
        assert not safe or answer.column in safe, position.moves
        evaluated += answer.depth > 0
    assert evaluated


def test_past_64_bits_a_time_budget_is_kept_and_known_scores_are_refused():
    import time

    from solver import Board
    from solver.errors import ArgumentError

    board = Board(8, 8)
    search = AnytimeSearch(Solver(board=board, table_log2=20), eval_table_log2=14)
    started = time.perf_counter()
    answer = search.choose(Position.from_moves("45", board), seconds=0.2)
    assert time.perf_counter() - started < 2.0  # generous: the machine may be loaded
    assert not answer.proven and answer.depth >= 4 and 1 <= answer.column <= 8
    known = (np.array([5], dtype=np.uint64), np.array([0], dtype=np.int64))
    with pytest.raises(ArgumentError, match="known scores take one-word keys: none on board 8x8"):
        search.choose(Position.from_moves("45", board), nodes=1000, known=known)

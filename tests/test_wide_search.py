"""Tests for ``solver.wide._search`` and the ``Solver`` of a board past 64 bits: exact
against plain minimax on late positions of 5x12, 8x8, 9x7 and others, the weak search's
sign, one ply of negamax, mirror images, threads; and on 7x6, through the two-word kernels,
Pons' published scores."""

import numpy as np
import pytest
from conftest import WideView, endgames_without_wins, minimax, pons_lines, scores_by_children

from solver import Board, Position, Solver
from solver import _search as narrow_search
from solver.wide import _search as wide_search
from solver.wide._words import words

# The boards in the default run; the rest (each a compile of 5-7 s and seconds of
# minimax) with -m slow.
LATE = ["5x12", "8x8", "9x7"] + [
    pytest.param(size, marks=pytest.mark.slow) for size in ("9x9", "7x9", "4x20", "8x15")
]


@pytest.fixture(scope="module")
def solvers():
    """One solver a board, kept across tests (its table too: answers must not depend on it)."""
    made: dict[str, Solver] = {}

    def solver(size: str) -> Solver:
        if size not in made:
            made[size] = Solver(board=Board.parse(size), table_log2=20)
        return made[size]

    return solver


def sign(score: int) -> int:
    return (score > 0) - (score < 0)


@pytest.mark.parametrize("size", LATE)
def test_late_positions_agree_with_minimax(size, solvers):
    solver = solvers(size)
    count = 4 if solver.board.cells > 100 else 12  # 8x15: slow to reach the end by random play
    for empty in (8, 12, 14):
        for p in endgames_without_wins(count, empty, empty, solver.board):
            exact = minimax(p)
            assert solver.solve(p) == exact, p.moves
            assert solver.solve(p, weak=True) == sign(exact), p.moves
            assert solver.solve_window(p, -1, 1) == sign(exact), p.moves


@pytest.mark.parametrize("size", ["8x8", "9x7", "5x12"])
def test_a_score_is_the_best_of_its_children_negated(size, solvers):
    # Deeper than minimax reaches: the solver against itself, one ply apart.
    solver = solvers(size)
    for p in endgames_without_wins(4, 3, 26, solver.board):
        scores = solver.analyze(p)
        assert scores == scores_by_children(p, solver.solve)
        assert solver.solve(p) == max(s for s in scores if s is not None)
        assert solver.solve(p.mirror()) == solver.solve(p)
        assert solver.analyze(p.mirror()) == scores[::-1]


def test_negamax_is_fail_soft(solvers):
    solver = solvers("8x8")
    for p in endgames_without_wins(6, 4, 20, solver.board):
        exact = solver.solve(p)
        for alpha, beta in ((exact - 3, exact - 1), (exact - 1, exact + 1), (exact + 1, exact + 4)):
            solver.clear()
            r = solver.negamax(p, alpha, beta)
            if r <= alpha:
                assert exact <= r
            elif r >= beta:
                assert exact >= r
            else:
                assert exact == r
        assert solver.is_best_move(p, solver.analyze(p).index(exact) + 1, exact)


@pytest.mark.parametrize("size", ["8x8", "5x12"])
def test_table_bounds_read_what_the_solver_proved(size, solvers):
    # The AI's evaluation (wide._evaluate) reads the solver's table: its bounds must hold.
    solver = solvers(size)
    board = solver.board
    stored = 0
    for p in endgames_without_wins(8, 8, 24, board):
        score = solver.solve(p)
        pair = words(p.current), words(p.mask)
        low, high = wide_search.table_bounds(board, *pair, *solver.search_tables())
        assert low <= score <= high, p.moves
        # (A root settled by its children's forced play or its bounds stores no entry.)
        stored += (low, high) != (-board.cells, board.cells)
        mirrored = p.mirror()  # one entry for a position and its mirror image
        pair = words(mirrored.current), words(mirrored.mask)
        assert wide_search.table_bounds(board, *pair, *solver.search_tables()) == (low, high)
    assert stored >= 2
    solver.clear()
    pair = words(p.current), words(p.mask)
    empty = wide_search.table_bounds(board, *pair, *solver.search_tables())
    assert empty == (-board.cells, board.cells)


def test_threads_give_the_same_answers():
    board = Board(8, 8)
    alone = Solver(board=board, table_log2=20)
    together = Solver(board=board, table_log2=20, threads=2)
    for p in endgames_without_wins(3, 5, 32, board):
        assert together.solve(p) == alone.solve(p)


def test_the_solver_picks_the_kernels_by_the_board():
    assert Solver(board="8x8", table_log2=16)._search is wide_search
    assert Solver(board="8x7", table_log2=20)._search is narrow_search
    wide = Solver(board="9x7", table_log2=16)  # (compiled by the tests above)
    assert len(wide._scratch) == wide_search.scratch_size(Board(9, 7))
    assert wide.fork()._search is wide_search
    assert wide.load_kernels() < 60  # loaded, not a search of a deep 9x7 position
    assert "board='9x7'" in repr(wide)


@pytest.mark.parametrize("name, step", [("Test_L3_R1", 50), ("Test_L2_R1", 100)])
def test_pons_scores_through_two_words(name, step):
    # 7x6 through the two-word kernels (a one-word board typed as a wide one): the
    # published scores of Pons' End-Easy and Middle-Easy sets.
    board = Board(7, 6)
    view = WideView(board)
    log2 = 20
    table = np.zeros(1 << log2, dtype=np.uint64)
    scratch = np.zeros(wide_search.scratch_size(view), dtype=np.uint64)
    for moves, score in pons_lines(name, step, 20):
        p = Position.from_moves(moves)
        args = (view, words(p.current), words(p.mask), p.ply)
        shift = np.uint64(64 - log2)
        assert wide_search.solve_window(*args, -21, 21, table, scratch, shift) == score, moves

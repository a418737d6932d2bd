"""Tests for ``solver.wide._evaluate``: on 7x6 through the two-word kernels, the very values
and node counts of the one-word evaluation search; past 64 bits (8x8, 5x12, 9x7), a search
to the end gives every move its exact score, the evaluation is the same for a position and
its mirror, and the columns found are the moves that win or lose at once."""

import numpy as np
import pytest
from conftest import WideView, endgames_without_wins, hands_a_win, random_endgames

from solver import STANDARD, Board, Position, Solver
from solver import _evaluate as narrow
from solver import _search as narrow_search
from solver.anytime import NO_KNOWN, AnytimeSearch
from solver.wide import _evaluate as wide
from solver.wide import _search as wide_search
from solver.wide._words import words

# 8x8 and 5x12 in the default run (the wide solver's tests compile their kernels too); 9x7
# with -m slow (a compile of its own).
BOARDS = ["8x8", "5x12", pytest.param("9x7", marks=pytest.mark.slow)]
TABLE_LOG2 = 16


def kernel_state(board, view) -> tuple:
    """(table, near, shift, tt_keys, tt_data, scratch): empty tables for one search."""
    kernels = wide_search if view is not board else narrow_search
    words_a_key = 2 if view is not board else 1
    return (
        np.zeros(1 << TABLE_LOG2, dtype=np.uint64),
        np.zeros(kernels.scratch_size(view), dtype=np.uint64),
        np.uint64(64 - TABLE_LOG2),
        np.zeros(words_a_key << 14, dtype=np.uint64),
        np.zeros(1 << 14, dtype=np.uint64),
        np.zeros(narrow.scratch_size(board), dtype=np.uint64),
    )


def test_7x6_through_two_words_searches_the_same_tree():
    # Same values, same node counts: the same steps in the same order, the same table slots.
    board, view = STANDARD, WideView(STANDARD)
    one, two = kernel_state(board, board), kernel_state(board, view)
    for p in random_endgames(24, 11, 8, 30):
        cols = np.array([c - 1 for c in p.legal_moves()], dtype=np.int64)
        values = [np.zeros(cols.size, dtype=np.int64) for _ in range(2)]
        table, near, shift, keys, data, scratch = one
        done = narrow.root_values(
            board, np.uint64(p.current), np.uint64(p.mask), p.ply, 4, cols, values[0],
            keys, data, table, near, shift, *NO_KNOWN, scratch,
        )  # fmt: skip
        table, near, shift, keys, data, scratch = two
        pair = words(p.current), words(p.mask)
        args = (keys, data, table, near, shift, scratch)
        assert wide.root_values(view, *pair, p.ply, 4, cols, values[1], *args) == done == cols.size
        assert list(values[1]) == list(values[0]), p.moves
        assert one[-1][narrow.NODES] == two[-1][wide.NODES]
        current, mask = np.uint64(p.current), np.uint64(p.mask)
        assert wide.evaluate(view, *pair, p.ply) == narrow.evaluate(board, current, mask, p.ply)
        assert wide.safe_columns(view, *pair) == narrow.safe_columns(board, current, mask)
        assert wide.winning_columns(view, *pair) == narrow.winning_columns(board, current, mask)
    assert one[-1][narrow.NODES] > 1000  # (searches, not only leaves)


@pytest.fixture(scope="module")
def searches():
    made: dict[str, AnytimeSearch] = {}

    def search(size: str) -> AnytimeSearch:
        if size not in made:
            made[size] = AnytimeSearch(Solver(board=size, table_log2=20), eval_table_log2=14)
        return made[size]

    return search


def proven(score: int) -> int:
    return narrow.proven_value(score)


@pytest.mark.parametrize("size", BOARDS)
def test_a_search_to_the_end_gives_every_move_its_exact_score(size, searches):
    search = searches(size)
    board = search.board
    exact = Solver(board=board, table_log2=20)
    for p in endgames_without_wins(6, 3, 10, board):
        values = search.move_values(p, 10)
        assert set(values) == set(p.legal_moves())
        for col, value in values.items():
            child = p.play(col)
            if child.is_won:
                score = board.win_score(p.ply)
            else:
                score = 0 if child.is_full else -exact.solve(child)
            assert value == proven(score), (p.moves, col)


@pytest.mark.parametrize("size", BOARDS)
def test_the_evaluation_is_the_same_for_a_mirror_image(size, searches):
    board = searches(size).board
    for p in random_endgames(20, 5, 10, board.cells - 6, board):
        pair, mirrored = (words(p.current), words(p.mask)), p.mirror()
        value = wide.evaluate(board, *pair, p.ply)
        assert abs(value) <= wide.HEURISTIC_MAX
        assert wide.evaluate(board, words(mirrored.current), words(mirrored.mask), p.ply) == value


@pytest.mark.parametrize("size", BOARDS)
def test_the_columns_that_win_or_lose_at_once(size, searches):
    board = searches(size).board
    for p in random_endgames(30, 8, 4, board.cells - 8, board):
        pair = words(p.current), words(p.mask)
        wins = {c for c in p.legal_moves() if p.is_winning_move(c)}
        assert _columns(wide.winning_columns(board, *pair)) == wins, p.moves
        safe = {c for c in p.legal_moves() if not hands_a_win(p.play(c))}
        if not wins:  # (with a win at once, the kernel does not look at safety)
            assert _columns(wide.safe_columns(board, *pair)) == safe, p.moves


def test_a_stop_request_stops_the_search(searches):
    search = searches("8x8")
    search._scratch[wide.STOP_REQUEST] = 1
    try:
        assert search.evaluate_moves(Position(Board(8, 8)), 8) == {}
    finally:
        search._scratch[wide.STOP_REQUEST] = 0
    assert len(search.evaluate_moves(Position(Board(8, 8)), 2)) == 8


def _columns(flags: int) -> set[int]:
    return {col + 1 for col in range(16) if flags >> col & 1}

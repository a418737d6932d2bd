"""Bounds on frontier scores from the parents' book entries, checked against the book and the solver."""

import numpy as np

import pytest

from bookgen import Book
from bookgen.build.frontier import solve_frontier
from bookgen.build.parent_bounds import NO_BOUND, Parents
from bookgen.play.knowledge import parents as parent_positions
from solver import Position
from solver.packed import moves_of_key

from conftest import SMALL_PLY, SMALL_ROOT

LAST = SMALL_PLY - 1  # the small book's entries at this ply are the parents


@pytest.fixture(scope="module")
def parents(small_book_path):
    from bookgen.book.store import BookStore

    store = BookStore(small_book_path, SMALL_ROOT, Position.from_moves(SMALL_ROOT).canonical_key,
                      readonly=True)
    try:
        keys, scores = store.scores_at(LAST)
        return Parents(keys, scores, store.best_at(LAST)), store.scores_at(SMALL_PLY)
    finally:
        store.close()


def test_bounds_are_the_parents_scores_negated_and_exact_after_a_best_move(parents, book):
    entries, (frontier, scores) = parents
    bounds = entries.bounds(frontier)
    assert len(bounds.low) == len(bounds.exact) == len(frontier) == 574
    for key, low, exact, score in zip(frontier, bounds.low, bounds.exact, scores):
        position = Position.from_moves(moves_of_key(int(key), SMALL_ROOT))
        above = [(p, book.get(p)) for p in parent_positions(position)]
        above = [(p, e) for p, e in above if e is not None]
        assert low == max(-e.score for _, e in above) <= score
        # Exact: the last move of some parent's line is one of its best moves.
        followed = any(position == p.play(col) or position.mirror() == p.play(col)
                       for p, e in above for col in map(int, e.best_moves))
        assert exact == followed
        if exact:
            assert low == score


def test_a_key_with_no_parent_in_the_book_has_no_bound(parents):
    entries, _ = parents
    outside = np.array([Position.from_moves("1111112").key], dtype=np.uint64)
    bounds = entries.bounds(outside)
    assert bounds.low.tolist() == [NO_BOUND] and bounds.exact.tolist() == [False]


def test_a_bounded_solve_gives_the_unbounded_answer(parents, solver):
    _, (frontier, scores) = parents
    # A loss, a draw and a win from the frontier, each given every true lower bound.
    picks = [int(np.flatnonzero(check(scores))[0]) for check in (
        lambda s: s < 0, lambda s: s == 0, lambda s: (s > 0) & (s < 10))]
    for i in picks:
        position = Position.from_moves(moves_of_key(int(frontier[i]), SMALL_ROOT))
        plain = solve_frontier(solver, position)
        assert plain.score == scores[i]
        for low in range(plain.score - 4, plain.score + 1):
            assert solve_frontier(solver, position, low)[:2] == plain[:2]
        assert solve_frontier(solver, position, plain.score, exact=True)[:2] == plain[:2]


def test_known_gives_what_solve_frontier_takes(parents):
    entries, (frontier, _) = parents
    bounds = entries.bounds(frontier[:50])
    for i in range(50):
        low, exact = bounds.known(i)
        assert low == bounds.low[i] and exact == bounds.exact[i]
    outside = entries.bounds(np.array([Position.from_moves("1111112").key], dtype=np.uint64))
    assert outside.known(0) == (None, False)

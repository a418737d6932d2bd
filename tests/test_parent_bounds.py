"""Bounds on scores from the parents' book entries, checked against the book and the solver."""

import random

import numpy as np
import pytest
from conftest import SMALL_PLY, SMALL_ROOT

from bookgen import Book
from bookgen.builder.solve_position import solve_position
from solver import Position
from solver.packed import moves_of_key
from solver.parent_bounds import NO_BOUND, Parents, parents_of
from solver.position import random_position

LAST = SMALL_PLY - 1  # the small book's entries at this ply are the parents


def small_store(small_book_path):
    from bookgen.book.write.store import BookStore

    return BookStore(
        small_book_path, SMALL_ROOT, Position.from_moves(SMALL_ROOT).canonical_key, readonly=True
    )


@pytest.fixture(scope="module")
def parents(small_book_path):
    # The parents' ply is sealed with scores only (the frontier gives its best moves): its
    # best moves as the reader derives them, as a book grown by a ply keeps them stored.
    store = small_store(small_book_path)
    try:
        keys, scores = store.scores_at(LAST)
        assert store.best_at(LAST) is None
        frontier = store.scores_at(SMALL_PLY)
    finally:
        store.close()
    with Book.open(small_book_path) as book:
        found, found_scores, best = book.entries_of_keys(keys.tolist())
    assert found == keys.tolist() and found_scores == scores.tolist()
    return Parents(keys, scores, np.array(best, dtype=np.uint8)), frontier


def test_parents_without_best_moves_bound_from_below_and_never_exactly(small_book_path, parents):
    entries, (frontier, _) = parents
    store = small_store(small_book_path)
    try:
        above = store.entries_above(SMALL_PLY)  # what a build growing the book would take
    finally:
        store.close()
    assert above.keys.tolist() == entries.keys.tolist() and not above.best.any()
    bounds, with_best = above.bounds(frontier), entries.bounds(frontier)
    assert bounds.low.tolist() == with_best.low.tolist() and not bounds.exact.any()
    assert with_best.exact.any()


def test_parents_are_one_move_back():
    # o played last, and o's stones top columns 3 and 4: either came last.
    expected = {Position.from_moves(m).canonical_key for m in ("445", "435")}
    assert parents_of(Position.from_moves("4453").key).tolist() == sorted(expected)


def test_every_parent_leads_here():
    rng = random.Random(2)
    for _ in range(50):
        position = random_position(rng, rng.randrange(1, 30))
        reachable = 0
        for key in parents_of(position.key).tolist():
            try:  # a take-back may leave a board no game reaches (a four already made)
                parent = Position.from_moves(moves_of_key(key))
            except ValueError:
                continue
            reachable += 1
            assert parent.canonical_key == key and not parent.is_game_over
            assert any(
                parent.play(c) in (position, position.mirror()) for c in parent.legal_moves()
            )
        assert reachable, position.moves  # the position came from somewhere


def test_bounds_are_the_parents_scores_negated_and_exact_after_a_best_move(parents, book) -> None:
    entries, (frontier, scores) = parents
    bounds = entries.bounds(frontier)
    assert len(bounds.low) == len(bounds.exact) == len(frontier) == 574
    # Independently of the kernel: every child of every parent, with the move to it.
    above: dict[int, list] = {}
    for key in entries.keys.tolist():
        parent = Position.from_moves(moves_of_key(key, SMALL_ROOT))
        entry = book.get(parent)
        for col in parent.legal_moves():
            child = parent.play(col)
            above.setdefault(child.canonical_key, []).append((entry, col))
    for key, low, exact, score in zip(frontier, bounds.low, bounds.exact, scores, strict=True):
        found = above[int(key)]
        assert low == max(-e.score for e, _ in found) <= score
        # Exact: some parent's move here is one of its best moves.
        assert exact == any(col in e.best_moves for e, col in found)
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
    picks = [
        int(np.flatnonzero(check(scores))[0])
        for check in (lambda s: s < 0, lambda s: s == 0, lambda s: (s > 0) & (s < 10))
    ]
    for i in picks:
        position = Position.from_moves(moves_of_key(int(frontier[i]), SMALL_ROOT))
        plain = solve_position(solver, position)
        assert plain.score == scores[i]
        for low in range(plain.score - 4, plain.score + 1):
            assert solve_position(solver, position, low)[:2] == plain[:2]
        assert solve_position(solver, position, plain.score, exact=True)[:2] == plain[:2]


def test_known_gives_what_solve_position_takes(parents):
    entries, (frontier, _) = parents
    bounds = entries.bounds(frontier[:50])
    for i in range(50):
        low, exact = bounds.known(i)
        assert low == bounds.low[i] and exact == bounds.exact[i]
    outside = entries.bounds(np.array([Position.from_moves("1111112").key], dtype=np.uint64))
    assert outside.known(0) == (None, False)

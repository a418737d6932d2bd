"""Tests for ``solver.wide._bounds``: on two words the static rules bound the exact score
(plain minimax), fire, and say what the one-word rules say on the same layout."""

import numpy as np
import pytest
from conftest import WideView, endgames_without_wins, minimax, random_endgames

from solver import Board
from solver import _bits as narrow_bits
from solver import _bounds as narrow
from solver.wide._bits import safe_moves, threats_of
from solver.wide._bounds import lower_bound, upper_bound
from solver.wide._words import words

LOOSE = 128  # looser than any score: what the rules return is then theirs alone


def as_words(pair) -> tuple:
    """A kernel's pair as uint64 words again (numba hands them back to Python as ints)."""
    return np.uint64(pair[0]), np.uint64(pair[1])


def args(p) -> tuple:
    return p.board, words(p.current), words(p.mask)


@pytest.fixture(scope="module", params=["8x8", "9x7", "5x12", "4x20"])
def positions(request):
    """Endgames of a wide board with no immediate win for the player to move, scored."""
    board = Board.parse(request.param)
    found = endgames_without_wins(60, 11, 8, board) + endgames_without_wins(60, 12, 12, board)
    return [(p, minimax(p)) for p in found]


def test_upper_bound_holds_and_fires(positions):
    fired = 0
    for p, score in positions:
        high = upper_bound(*args(p), LOOSE)
        assert score <= high, (p.moves, score, high)
        fired += high <= 0
    assert fired >= 10


def non_losing(board, current, mask) -> tuple:
    return as_words(safe_moves(board, mask, as_words(threats_of(board, current, mask))))


def test_lower_bound_holds(positions):
    for p, score in positions:
        low = lower_bound(*args(p), non_losing(*args(p)), -LOOSE)
        assert score >= low, (p.moves, score, low)


def one_word_endgames(board) -> list:
    """Endgames 4-14 cells before the end: from random play, but on 8x7 (where random play
    mostly ends sooner: 6 s to find them) the tense ones, made as such (99 in 1.3 s)."""
    if board.cells > 50:
        return [p for empty in range(4, 15) for p in endgames_without_wins(9, empty, empty, board)]
    return random_endgames(300, seed=5, min_empty=4, max_empty=14, board=board)


@pytest.mark.parametrize("size", ["7x6", "8x7", "6x5"])
def test_the_same_bounds_as_one_word(size):
    # A one-word board through both kernel sets: the rules give the same bounds.
    board = Board.parse(size)
    view = WideView(board)
    fired = 0
    for p in one_word_endgames(board):
        if any(p.is_winning_move(c) for c in p.legal_moves()):
            continue
        current, mask = np.uint64(p.current), np.uint64(p.mask)
        two = (view, words(p.current), words(p.mask))
        moves = narrow_bits.non_losing_moves(board, current, mask)
        low = narrow.lower_bound(board, current, mask, moves, -LOOSE)
        high = narrow.upper_bound(board, current, mask, LOOSE)
        assert lower_bound(*two, non_losing(*two), -LOOSE) == low, p.moves
        assert upper_bound(*two, LOOSE) == high, p.moves
        fired += low >= 0 or high <= 0
    assert fired >= 5  # not vacuous

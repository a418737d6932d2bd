"""Tests for ``solver._bounds``: the static rules must bound the exact score, and fire."""

import numpy as np
import pytest
from conftest import minimax, random_endgames

from solver import STANDARD as B
from solver import Position
from solver._bits import has_four
from solver._bounds import lower_bound, upper_bound

LOOSE = 42  # looser than any score: what the rules return is then theirs alone


def args(p: Position) -> tuple:
    return p.board, np.uint64(p.current), np.uint64(p.mask)


def non_losing(p: Position) -> np.uint64:
    """The kernel's non-losing moves, as cells (the same rule, in plain Python)."""
    from solver._bits import non_losing_moves

    return non_losing_moves(*args(p))


def cells(*col_rows: tuple[int, int]) -> np.uint64:
    """Cells by 0-based (column, row), in the layout of ``solver.bitboard``."""
    return np.uint64(sum(1 << (col * 7 + row) for col, row in col_rows))


def test_has_four_in_each_direction():
    assert has_four(B, cells((0, 0), (0, 1), (0, 2), (0, 3)))  # vertical
    assert has_four(B, cells((2, 5), (3, 5), (4, 5), (5, 5)))  # horizontal
    assert has_four(B, cells((0, 0), (1, 1), (2, 2), (3, 3)))  # diagonal /
    assert has_four(B, cells((3, 0), (2, 1), (1, 2), (0, 3)))  # diagonal \\
    assert not has_four(B, cells((0, 0), (1, 1), (2, 2), (4, 4)))  # a gap
    assert not has_four(B, cells((0, 3), (0, 4), (0, 5), (1, 0)))  # no wrap across columns
    assert not has_four(B, np.uint64(0))


@pytest.fixture(scope="module")
def positions():
    """Random endgames with no immediate win for the player to move, and their scores."""
    found = [
        p
        for p in random_endgames(1500, seed=77, min_empty=4, max_empty=10)
        if not any(p.is_winning_move(c) for c in p.legal_moves())
    ]
    return [(p, minimax(p)) for p in found]


def test_upper_bound_holds_and_fires(positions):
    fired = 0
    for p, score in positions:
        high = upper_bound(*args(p), LOOSE)
        assert score <= high, (p.moves, score, high)
        fired += high <= 0
    assert fired >= 20  # the rules are not vacuous on these positions


def test_lower_bound_holds_and_fires(positions):
    fired = 0
    for p, score in positions:
        low = lower_bound(*args(p), non_losing(p), -LOOSE)
        assert low <= score, (p.moves, score, low)
        fired += low >= 0
    assert fired >= 20


def test_claimeven_decides_the_winner():
    from solver import Solver

    solver = Solver(table_log2=16)
    # Even columns, the first player to move: the follower's cells make a four and
    # the mover's do not, so the follow-up wins for the second player.
    follower_wins = Position.from_moves("556274271425455211541464")
    assert upper_bound(*args(follower_wins), LOOSE) == -1
    assert solver.solve(follower_wins) == -7
    # One column with an odd number of empty cells: playing there and then
    # following up wins for the player to move.
    mover_wins = Position.from_moves("535447272413227344371")
    assert lower_bound(*args(mover_wins), non_losing(mover_wins), -LOOSE) == 1
    assert solver.solve(mover_wins) == 2


def odd_columns(p: Position) -> int:
    """Columns with an odd number of empty cells."""
    return sum(p.moves.count(str(c)) % 2 for c in range(1, 8))


def test_paired_odd_columns_hold_and_fire(positions):
    # The rules also cover positions with several odd columns, paired by the follower.
    uppers = lowers = 0
    for p, score in positions:
        if odd_columns(p) >= 2:
            high = upper_bound(*args(p), LOOSE)
            low = lower_bound(*args(p), non_losing(p), -LOOSE)
            assert low <= score <= high, (p.moves, score, low, high)
            uppers += high <= 0 and odd_columns(p) % 2 == 0
            lowers += low >= 0 and odd_columns(p) % 2 == 1
    assert uppers >= 10 and lowers >= 10


# -- width 4: the follower's row completes first -----------------------------------------


def claimeven_cells(p: Position) -> np.uint64 | None:
    """The follower's sure cells under the paired claimeven of ``upper_bound``; None if it
    does not apply (an odd number of odd columns).  Plain Python, from the module doc."""
    board = p.board
    odd = (int(p.mask) + board.bottom) & board.top_rows
    if (odd).bit_count() % 2:
        return None
    theirs = (int(p.current) ^ int(p.mask)) | (
        board.all_cells & ~(int(p.mask) | odd) & board.top_rows
    )
    return np.uint64(theirs)


@pytest.mark.parametrize("size", ["4x6", "4x8", "4x10"])
def test_width_four_rows_hold_and_fire(size):
    """On width 4 the follower also wins when every four of the mover's lies above one
    of the follower's: the bound holds, and fires where the plain claimeven rule cannot."""
    from solver import Board
    from solver._bounds import rows_first

    board = Board.parse(size)
    found = [
        p
        for p in random_endgames(400, seed=board.cells, min_empty=6, max_empty=11, board=board)
        if not any(p.is_winning_move(c) for c in p.legal_moves())
    ]
    beyond_plain = 0
    for p in found:
        score = minimax(p)
        high = upper_bound(*args(p), LOOSE)
        low = lower_bound(*args(p), non_losing(p), -LOOSE)
        assert low <= score <= high, (p.moves, score, low, high)
        theirs = claimeven_cells(p)
        if theirs is not None:
            mine = np.uint64(board.all_cells) & ~theirs
            if has_four(board, mine) and rows_first(board, theirs, mine):
                assert score <= -1, p.moves  # the plain rule needs the mover without fours
                beyond_plain += 1
    assert beyond_plain >= 5, beyond_plain

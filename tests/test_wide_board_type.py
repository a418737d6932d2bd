"""Tests for ``solver.wide._board_type``: a wide board's facts reach the kernels as constants,
split into words, and a one-word board keeps its own type."""

import numpy as np
import pytest
from numba import njit

from solver import STANDARD, Board
from solver._board_type import _columns
from solver.wide._board_type import WideBoardType
from solver.wide._words import joined


@njit
def facts(board):
    return (
        board.width,
        board.height,
        board.cells,
        board.key_bits,
        board.max_score,
        board.min_score,
        board.h1,
        board.column,
        board.bottom,
        board.all_cells,
        board.top_rows,
        board.under_top_rows,
        board.centre,
        board.near_centre,
    )


@njit
def ordered(board):
    return board.column_order.copy(), board.ordered_low.copy(), board.ordered_high.copy()


@pytest.mark.parametrize("size", ["8x8", "9x7", "5x12", "4x31", "9x13"])
def test_the_constants_are_the_boards_facts(size):
    board = Board.parse(size)
    got = facts(board)
    assert got[:6] == (
        board.width,
        board.height,
        board.cells,
        board.key_bits,
        board.max_score,
        board.min_score,
    )
    assert (got[6], got[7]) == (board.h1, (1 << board.h1) - 1)
    assert [joined(pair) for pair in got[8:]] == [
        board.bottom,
        board.all_cells,
        board.top_rows,
        board.under_top_rows,
        _columns(board, 0, 1),
        _columns(board, 2, 3),
    ]
    order, low, high = ordered(board)
    assert tuple(order) == board.column_order
    masks = [int(lo) | int(hi) << 64 for lo, hi in zip(low, high, strict=True)]
    assert masks == [board.column_masks[c] for c in board.column_order]


def test_each_board_has_its_type():
    assert isinstance(Board(8, 8)._numba_type_, WideBoardType)
    assert Board(8, 8)._numba_type_ is Board(8, 8)._numba_type_
    assert not isinstance(STANDARD._numba_type_, WideBoardType)
    assert Board(8, 7).key_bits == 64 and not Board(8, 7).is_wide
    assert np.uint64(Board(8, 8).key_bits) == 72 and Board(8, 8).is_wide

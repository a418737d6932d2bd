"""Tests for ``solver.wide._bits``: moves, threats, fours and mirror keys on two words,
against ``Board``'s and ``Position``'s Python integers, on boards whose columns straddle
the two words (8x8: column 8 holds bits 63-71)."""

import pytest
from conftest import endgames_without_wins

from solver import Board, Position
from solver.wide import _bits as wb
from solver.wide._words import joined, words

BOARDS = ["8x8", "9x7", "5x12", "4x20", "9x9", "8x15"]


def positions(size, count=12):
    board = Board.parse(size)
    # Late positions, and half-full ones.
    return endgames_without_wins(count, 1, 14, board) + endgames_without_wins(
        count, 2, board.cells // 2, board
    )


def winning_cells(board, stones, mask):
    """Empty cells that would make a four of ``stones``: one cell at a time, in Python."""
    cells = board.all_cells & ~mask
    return sum(1 << i for i in range(128) if cells >> i & 1 and board.has_four(stones | 1 << i))


def possible(board, mask):
    return (mask + board.bottom) & board.all_cells


@pytest.mark.parametrize("size", BOARDS)
def test_moves_and_threats(size):
    for p in positions(size):
        board = p.board
        args = (board, words(p.current), words(p.mask))
        threats = winning_cells(board, p.current ^ p.mask, p.mask)
        assert joined(wb.threats_of(*args)) == threats
        assert joined(wb.possible(board, words(p.mask))) == possible(board, p.mask)
        can_win = any(p.is_winning_move(c) for c in p.legal_moves())
        assert wb.can_win_next(*args) == can_win
        safe = joined(wb.safe_moves(board, words(p.mask), words(threats)))
        assert safe & ~possible(board, p.mask) == 0
        # A safe move is one after which the opponent cannot win at once (the mover
        # cannot win at once here: ``endgames_without_wins``).
        for col in p.legal_moves():
            cell = possible(board, p.mask) & board.column_masks[col - 1]
            child = p.play(col)
            loses = any(child.is_winning_move(c) for c in child.legal_moves())
            assert bool(safe & cell) == (not loses)
        for stones in (p.current, p.mask ^ p.current, p.mask):
            assert wb.has_four(board, words(stones)) == board.has_four(stones)


@pytest.mark.parametrize("size", BOARDS)
def test_mirror_keys(size):
    for p in positions(size):
        board = p.board
        key, flipped = wb.keys_of(board, words(p.current), words(p.mask))
        assert (joined(key), joined(flipped)) == (p.key, p.mirror_key)
        mirror = p.mirror()
        assert mirror.key == p.mirror_key and mirror.mirror_key == p.key
        assert Position.from_moves(board.mirror_moves(p.moves), board) == mirror
        # One table key for both images, and which of them it is.
        (mine, mirrored) = wb.canonical_key(board, words(p.current), words(p.mask))
        (theirs, flipped_too) = wb.canonical_key(board, words(mirror.current), words(mirror.mask))
        assert joined(mine) == joined(theirs) == p.canonical_key
        assert mirrored == (p.mirror_key < p.key)
        assert flipped_too == (mirror.mirror_key < mirror.key)


def test_a_four_across_the_word_boundary():
    board = Board(8, 8)  # bit 63 is column 8's bottom cell, bit 64 the one above it
    stones = sum(1 << (row + 7 * 9) for row in range(4))  # column 8, rows 1-4: bits 63-66
    assert board.has_four(stones) and wb.has_four(board, words(stones))
    three = stones & ~(1 << 66)
    assert joined(wb.winning_cells(board, words(three), words(three))) == 1 << 66

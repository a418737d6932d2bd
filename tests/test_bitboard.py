"""Tests for ``solver.bitboard.Board``: sizes allowed and refused, the layout's facts, and
that the package reads every fact from a board, never from the 7x6 names."""

import pickle
from pathlib import Path

import pytest

from solver import STANDARD, Board, BoardSizeError, C4Error, Position

ROOT = Path(__file__).resolve().parent.parent


def test_the_standard_board_is_7x6_and_its_facts_are_the_layouts():
    assert STANDARD is Board() is Board(7, 6) is Board.parse("7x6") is Board.parse(None)
    assert (STANDARD.width, STANDARD.height, STANDARD.h1, STANDARD.cells) == (7, 6, 7, 42)
    assert STANDARD.key_bits == 49
    bottom = sum(1 << (7 * c) for c in range(7))
    assert STANDARD.bottom == bottom
    assert STANDARD.all_cells == bottom * 0b111111
    assert STANDARD.column_order == (3, 2, 4, 1, 5, 0, 6)
    assert STANDARD.top_rows == bottom * 0b101010  # rows 2, 4, 6 from the bottom
    assert STANDARD.under_top_rows == bottom * 0b010101
    assert (STANDARD.max_score, STANDARD.min_score) == (21, -21)
    assert STANDARD.column_bits == 3 and STANDARD.digits == "1234567"


@pytest.mark.parametrize(
    "text, size",
    [
        ("6x5", (6, 5)),
        ("4x4", (4, 4)),
        ("9x6", (9, 6)),
        ("8x7", (8, 7)),
        ("4x15", (4, 15)),
        (" 7X7 ", (7, 7)),
        ("8x8", (8, 8)),
        ("9x9", (9, 9)),
        ("5x12", (5, 12)),
        ("4x31", (4, 31)),
        ("8x15", (8, 15)),
    ],
)
def test_allowed_sizes_parse(text, size):
    board = Board.parse(text)
    assert (board.width, board.height) == size
    assert board is Board(*size)
    assert board.key_bits == size[0] * (size[1] + 1) <= 128
    assert board.is_wide == (board.key_bits > 64)


@pytest.mark.parametrize(
    "text",
    [
        "3x3",
        "10x7",
        "8x16",
        "7x",
        "x6",
        "",
        "7x6x1",
        "seven",
        "7x3",
        "3x7",
        "9x14",
        "4x32",
        "\u0667x6",
        "-7x6",
        "7.0x6",
    ],
)
def test_bad_sizes_are_one_clear_error(text):
    with pytest.raises(BoardSizeError) as raised:
        Board.parse(text)
    message = str(raised.value)
    assert ("\n" not in message and repr(text) in message) or text.strip() in message
    assert "width 4-9" in message and "128 bits" in message
    assert isinstance(raised.value, (C4Error, ValueError))


@pytest.mark.parametrize(
    "width, height", [(3, 6), (10, 5), (8, 16), (7, 2), (7.0, 6), ("7", 6), (True, 6)]
)
def test_bad_sizes_are_refused_by_the_constructor_too(width, height):
    with pytest.raises(BoardSizeError):
        Board(width, height)


def test_a_board_is_a_value():
    board = Board(6, 5)
    assert pickle.loads(pickle.dumps(board)) is board
    assert repr(board) == "Board(6, 5)" and str(board) == "6x5"
    assert eval(repr(board)) is board  # noqa: S307 - the repr is code: run it
    with pytest.raises(AttributeError):
        board.width = 7
    assert {Board(6, 5): 1}[Board.parse("6x5")] == 1


@pytest.mark.parametrize("width", range(4, 10))
def test_centre_columns_come_first_and_every_column_once(width):
    order = Board(width, 5).column_order
    assert sorted(order) == list(range(width))
    distance = [abs(2 * c - (width - 1)) for c in order]
    assert distance == sorted(distance)


@pytest.mark.parametrize("board", [Board(6, 5), Board(7, 5), Board(8, 7), Board(4, 4)], ids=str)
def test_the_follower_claims_the_top_row_and_every_second_below(board):
    for col in range(board.width):
        top = 1 << (board.height - 1 + col * board.h1)
        assert board.top_rows & top and not board.under_top_rows & top
        assert board.under_top_rows & (top >> 1) and not board.top_rows & (top >> 1)
    assert board.top_rows | board.under_top_rows == board.all_cells
    assert board.top_rows & board.under_top_rows == 0


def test_last_move_and_winner_stones_follow_pons_convention():
    board = STANDARD
    # The empty board: the first player wins with the 21st stone, the 41st move.
    assert board.last_move(1, 0) == 41 and board.winner_stones(1, 0) == 21
    assert board.last_move(0, 0) == 42
    for ply in range(41):
        for stones in range(ply // 2 + 1, 22):  # the mover wins with its stones-th stone
            score = 22 - stones
            assert board.winner_stones(score, ply) == stones
            assert board.winner_stones(-score, ply) == stones
    # 6x4: the second player wins on move 24, the board's last.
    assert Board(6, 4).last_move(-1, 0) == 24
    # 5x5 has an odd number of cells: the first player's 13th stone is the 25th move.
    five = Board(5, 5)
    assert five.last_move(five.win_score(24), 0) == 25


def test_positions_draw_and_say_their_board():
    position = Position.from_moves("343", board="6x5")
    assert position.board is Board(6, 5)
    assert repr(position) == "Position.from_moves('343', board='6x5')"
    assert str(position).splitlines() == [
        ". . . . . .",
        ". . . . . .",
        ". . . . . .",
        ". . x . . .",
        ". . x o . .",
        "1 2 3 4 5 6",
    ]
    assert repr(Position.from_moves("4453")) == "Position.from_moves('4453')"
    assert Position.from_moves("1", "6x5") != Position.from_moves("1")


def test_a_column_off_the_board_is_named():
    with pytest.raises(
        C4Error,
        match=r"illegal move '7' at position 2 of '17': columns are "
        r"digits 1-6",
    ):
        Position.from_moves("17", board="6x5")
    assert Position.from_moves("19", board="9x6").moves == "19"

"""``bookgen.book.format.keys``: lookup keys from move strings, one at a time and many at once,
checked against ``Position`` on random games of every length."""

import random

import numpy as np
import pytest
from conftest import stored_plies

from bookgen.book.format.keys import (
    Oriented,
    board_of,
    board_of_position,
    boards_of_keys,
    boards_of_many,
    child_boards,
    child_keys_many,
    key_of,
)
from solver import Position
from solver.bitboard import mirror_bits
from solver.packed import moves_of_key


def random_strings(count: int, seed: int) -> list[str]:
    """Move strings of random legal games, stopped anywhere (finished games included)."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        position = Position()
        stop = rng.randint(0, 42)
        while position.ply < stop and not position.is_game_over:
            position = position.play(rng.choice(position.legal_moves()))
        found.append(position.moves)
    return found


def test_keys_equal_the_positions_keys():
    for moves in random_strings(2000, seed=1):
        position = Position.from_moves(moves)
        board = board_of(moves)
        assert key_of(moves) == board.current + board.mask == position.key, moves
        assert (board.current, board.mask) == (position.current, position.mask)
        assert board.mirror_current + board.mirror_mask == position.mirror_key
        assert board.canonical == position.canonical_key
        assert mirror_bits(position.key) == position.mirror_key
        assert board_of_position(position) == board


def test_the_mirror_works_on_arrays_too():
    keys = [Position.from_moves(m).key for m in random_strings(500, seed=5)]
    mirrored = mirror_bits(np.array(keys, dtype=np.uint64))
    assert mirrored.dtype == np.uint64
    assert mirrored.tolist() == [mirror_bits(k) for k in keys]


def test_many_at_once_equal_one_at_a_time():
    strings = [*random_strings(3000, seed=2), "", "4", "44444445", "4a", "0", "12121212"]
    current, mask, usable = boards_of_many(strings)
    assert current.dtype == mask.dtype == np.uint64 and usable.dtype == bool
    for moves, c, m, ok in zip(
        strings, current.tolist(), mask.tolist(), usable.tolist(), strict=True
    ):
        one = board_of(moves)
        assert ok == (one is not None), moves
        if ok:
            assert (c, m) == (one.current, one.mask), moves


def test_many_at_once_with_odd_characters_and_nothing():
    strings = ["4453", "é", "44", "4 4", ""]
    current, mask, usable = boards_of_many(strings)
    assert usable.tolist() == [True, False, True, False, True]
    assert (current + mask).tolist()[::2] == [key_of(m) for m in strings[::2]]
    assert [len(a) for a in boards_of_many([])] == [0, 0, 0]


@pytest.mark.parametrize("moves", ["4a", "0", "8", "4 4", "4444444", "é"])
def test_bad_characters_and_full_columns_are_left_to_position(moves):
    assert key_of(moves) is None and board_of(moves) is None
    assert boards_of_many([moves, "4453"])[2].tolist() == [False, True]


def test_a_four_before_the_end_still_has_keys():
    # Legal-looking bits; only a book miss sends such a string on to Position.
    assert key_of("12121212") is not None and board_of("12121212") is not None
    with pytest.raises(ValueError, match="after the game was won"):
        Position.from_moves("12121212")


def test_child_boards_are_the_moves_children():
    for moves in random_strings(800, seed=3):
        position = Position.from_moves(moves)
        if position.is_game_over:
            continue
        children = child_boards(board_of(moves), position.ply)
        assert len(children) == 7
        for col, child in enumerate(children, 1):
            if not position.can_play(col):
                assert child is None
            elif position.is_winning_move(col):
                assert child == (43 - position.ply) // 2
            elif position.ply + 1 == 42:
                assert child == 0
            else:
                assert type(child) is Oriented and child == board_of(moves + str(col)), (moves, col)


def test_the_last_cell_without_a_four_is_a_draw():
    moves = "54712566226127126621574377157631535333444"  # 41 stones, no four
    position = Position.from_moves(moves)
    assert position.legal_moves() == [4] and not position.is_winning_move(4)
    assert child_boards(board_of(moves), 41) == [None, None, None, 0, None, None, None]


def test_child_keys_many_are_the_children_keys():
    positions = [Position.from_moves(m) for m in random_strings(600, seed=4)]
    positions = [p for p in positions if not p.is_game_over]
    current = np.array([p.current for p in positions], dtype=np.uint64)
    mask = np.array([p.mask for p in positions], dtype=np.uint64)
    keys, stones = child_keys_many(current, mask)
    assert keys.shape == stones.shape == (len(positions), 7)
    for p, row, stone in zip(positions, keys.tolist(), stones.tolist(), strict=True):
        for col in range(1, 8):
            if p.can_play(col):
                assert row[col - 1] == p.play(col).key
                assert stone[col - 1] == (p.mask + (1 << (7 * (col - 1)))) & (
                    0b111111 << (7 * (col - 1))
                )
                assert row[col - 1] == (p.current ^ p.mask) + (p.mask | stone[col - 1])
            else:
                assert stone[col - 1] == 0


def test_boards_of_keys_are_the_positions(small_book_path):
    keys = np.concatenate([s.keys for s in stored_plies(small_book_path).values()])
    current, mask = boards_of_keys(keys)
    for key, c, m in zip(keys.tolist(), current.tolist(), mask.tolist(), strict=True):
        position = Position.from_moves(moves_of_key(key))
        assert (c, m) == (position.current, position.mask)

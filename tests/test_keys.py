"""``bookgen.book.format.keys``: lookup keys from move strings, one at a time and many at once,
checked against ``Position`` on random games of every length."""

import random

import numpy as np
import pytest
from conftest import stored_plies

from bookgen.book.format.keys import walker
from solver import Position
from solver.bitboard import STANDARD
from solver.packed import moves_of_key

WALK = walker(STANDARD)  # the standard board's walks, by name
key_of, board_of = WALK.key_of, WALK.board_of
boards_of_many, boards_of_keys = WALK.boards_of_many, WALK.boards_of_keys
mirror_bits = STANDARD.mirror_bits


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


def test_boards_of_keys_are_the_positions(small_book_path):
    keys = np.concatenate([s.keys for s in stored_plies(small_book_path).values()])
    current, mask = boards_of_keys(keys)
    for key, c, m in zip(keys.tolist(), current.tolist(), mask.tolist(), strict=True):
        position = Position.from_moves(moves_of_key(key))
        assert (c, m) == (position.current, position.mask)

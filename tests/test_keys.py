"""``bookgen.book.keys``: lookup keys from move strings, one at a time and many at once,
checked against ``Position`` on random games of every length."""

import random

import pytest

from bookgen.book.keys import keys_of, keys_of_many, mirror_key
from solver import Position


def random_strings(count: int, seed: int) -> list[str]:
    """Move strings of random legal games, stopped anywhere (finished games included)."""
    rng = random.Random(seed)
    found = []
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
        assert keys_of(moves) == (position.key, position.mirror_key), moves
        assert mirror_key(position.key) == position.mirror_key


def test_many_at_once_equal_one_at_a_time():
    strings = random_strings(3000, seed=2) + ["", "4", "44444445", "4a", "0", "12121212"]
    keys, mirrors, usable = keys_of_many(strings)
    for moves, key, mirrored, ok in zip(strings, keys, mirrors, usable):
        one = keys_of(moves)
        assert ok == (one is not None), moves
        if ok:
            assert (key, mirrored) == one, moves


@pytest.mark.parametrize("moves", ["4a", "0", "8", "4 4", "4444444", "é"])
def test_bad_characters_and_full_columns_are_left_to_position(moves):
    assert keys_of(moves) is None
    assert keys_of_many([moves, "4453"])[2] == [False, True]


def test_a_four_before_the_end_still_has_keys():
    # Legal-looking bits; only a book miss sends such a string on to Position.
    assert keys_of("12121212") is not None
    with pytest.raises(ValueError):
        Position.from_moves("12121212")

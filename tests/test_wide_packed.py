"""``solver.wide.packed``: keys past 64 bits, against ``Position``'s Python integers on
boards whose keys straddle the two words (8x8: column 8 holds bits 63-71), and on one-word
boards typed for the two-word kernels, against the one-word kernels."""

import random

import numpy as np
import pytest
from conftest import WideView, endgames_without_wins

from solver import Board, Position
from solver import packed as narrow
from solver.packed import UnreachableKeyError, _prefix_rows
from solver.wide import packed as wide
from solver.wide._words import words
from solver.wide.pairs import ints_of, pairs_of

BOARDS = ["8x8", "9x7", "5x12"]


def random_positions(board: Board, count: int, seed: int, root: str = "") -> list[Position]:
    """Unfinished positions from random play that takes no win, from ``root``."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        p = Position.from_moves(root, board)
        for _ in range(rng.randint(0, 40)):
            safe = [c for c in p.legal_moves() if not p.is_winning_move(c)]
            if not safe:
                break
            p = p.play(rng.choice(safe))
        found.append(p)
    return found


@pytest.fixture(scope="module")
def positions():
    """Each board's positions: early, half full, and one cell from the end."""

    def made(size: str) -> list[Position]:
        board = Board.parse(size)
        return (
            random_positions(board, 150, 3)
            + endgames_without_wins(20, 4, board.cells // 2, board)
            + endgames_without_wins(3, 5, 1, board)
        )

    return made


def keys(positions) -> np.ndarray:
    return pairs_of([p.key for p in positions])


def unfinished_children(position: Position) -> list[int]:
    """The canonical keys of ``position``'s unfinished children, by ``Position`` alone."""
    return sorted(
        child.canonical_key
        for child in (position.play(c) for c in position.legal_moves())
        if not child.is_game_over
    )


@pytest.mark.parametrize("size", BOARDS)
def test_plies_and_canonical_keys(size, positions):
    found = positions(size)
    board = found[0].board
    assert wide.plies_of(board, keys(found)).tolist() == [p.ply for p in found]
    assert ints_of(wide.canonical_keys(board, keys(found))) == [p.canonical_key for p in found]


@pytest.mark.parametrize("size", BOARDS)
def test_children_are_the_unfinished_plays(size, positions):
    found = positions(size)
    board = found[0].board
    everything = words(0), words(wide.WIDE_KEY_END)
    for position in found:
        children = wide.unfinished_children(board, keys([position]), *everything)
        assert sorted(ints_of(children)) == unfinished_children(position), position.moves
    # Ranges of keys: cut at the high word, in the middle, and at the first key past 64 bits.
    all_children = sorted(set().union(*(unfinished_children(p) for p in found)))
    wide_keys = [k for k in all_children if k >= 1 << 64]
    assert wide_keys or size == "5x12"  # there the high word is a full column 5's alone
    for cut in (1 << 64, all_children[len(all_children) // 2], *wide_keys[1:2]):
        below = wide.sorted_children(board, keys(found), 0, cut)
        above = wide.sorted_children(board, keys(found), cut, wide.WIDE_KEY_END)
        assert ints_of(below) == [k for k in all_children if k < cut]
        assert ints_of(above) == [k for k in all_children if k >= cut]


def test_one_cell_from_the_end_there_is_no_unfinished_child(positions):
    last = positions("8x8")[-3:]
    assert {p.ply for p in last} == {63}
    assert len(wide.sorted_children(last[0].board, keys(last), 0, wide.WIDE_KEY_END)) == 0


@pytest.mark.parametrize("size", BOARDS)
def test_a_key_replays_to_itself(size, positions):
    found = positions(size)
    board = found[0].board
    replayed = wide.moves_of_keys(keys(found), "", board)
    for position, moves in zip(found, replayed, strict=True):
        again = Position.from_moves(moves, board)
        assert again.key == position.key and again.ply == position.ply
        assert moves <= position.moves  # the smallest string that reaches it
    assert wide.positions_of_keys(keys(found), "", board) == found
    assert wide.moves_of_key(found[1].key, "", board) == replayed[1]


def test_replays_start_with_the_root_where_they_can():
    board = Board(8, 8)
    found = random_positions(board, 60, 6, root="45")
    replayed = wide.moves_of_keys(keys(found), "45", board)
    for position, moves in zip(found, replayed, strict=True):
        assert moves.startswith("45") and Position.from_moves(moves, board) == position
    # a mirror image's replay starts with the root's mirror image ("54")
    mirrored = wide.positions_of_keys(keys([p.mirror() for p in found]), "45", board)
    assert all(p.moves.startswith("54") for p in mirrored)
    assert mirrored == [p.mirror() for p in found]


def test_a_key_that_no_game_reaches_is_refused():
    board = Board(8, 8)
    impossible = Position.from_moves("1", board).key + (1 << 9)  # two stones, both the first's
    with pytest.raises(UnreachableKeyError, match=f"key {impossible} is not a position .* 8x8"):
        wide.moves_of_keys(pairs_of([0, impossible]), "", board)  # the empty board, then it
    assert issubclass(UnreachableKeyError, ValueError)


@pytest.mark.parametrize("size", ["7x6", "9x6"])
def test_a_one_word_board_typed_wide_gives_the_one_word_answers(size):
    board = Board.parse(size)
    view = WideView(board)
    found = random_positions(board, 150, 9) + endgames_without_wins(20, 10, 8, board)
    one = np.array([p.key for p in found], dtype=np.uint64)
    two = keys(found)
    assert wide.plies_of(view, two).tolist() == narrow.plies_of(board, one).tolist()
    assert ints_of(wide.canonical_keys(view, two)) == narrow.canonical_keys(board, one).tolist()
    everything = np.uint64(0), np.uint64((1 << 64) - 1)
    assert sorted(ints_of(wide.unfinished_children(view, two, words(0), words(1 << 64)))) == sorted(
        narrow.unfinished_children(board, one, *everything).tolist()
    )
    prefixes = _prefix_rows("", board)
    digits, plies = wide.replay_keys(view, two, prefixes)
    expected_digits, expected_plies = narrow.replay_keys(board, one, prefixes)
    assert np.array_equal(digits, expected_digits) and np.array_equal(plies, expected_plies)

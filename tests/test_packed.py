"""``solver.packed``: keys as whole positions, and the kernels over arrays of them."""

import random

import numpy as np
import pytest
from conftest import random_endgames
from numba import njit

from solver import STANDARD as B
from solver import Board, Position
from solver.packed import (
    MOVE_DECIDED,
    MOVE_FULL,
    MOVE_READ,
    _boards_of,
    canonical_keys,
    move_rule,
    moves_of_key,
    moves_of_keys,
    plies_of,
    positions_of_keys,
    replay_steps,
    unfinished_children,
)


def keys(positions) -> np.ndarray:
    return np.array([p.key for p in positions], dtype=np.uint64)


def random_positions(count: int, seed: int, board: Board = B, most: int = 30) -> list[Position]:
    """``count`` random games of up to ``most`` moves that never make a four."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        p = Position(board=board)
        for _ in range(rng.randint(0, most)):
            safe = [c for c in p.legal_moves() if not p.is_winning_move(c)]
            if not safe:
                break
            p = p.play(rng.choice(safe))
        found.append(p)
    return found


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    return random_positions(300, 13) + random_endgames(50, 13)


@njit(cache=False)
def _move_rule(board, current, mask, ply, col):
    return move_rule(board, current, mask, ply, col)


def expected_rule(position: Position, col: int) -> tuple[int, int, int]:
    """What one ply of negamax says of ``col`` (1-based), from ``Position`` alone."""
    if not position.can_play(col):
        return MOVE_FULL, 0, 0
    if position.is_winning_move(col):
        return MOVE_DECIDED, position.board.win_score(position.ply), 0
    if position.ply + 1 == position.board.cells:
        return MOVE_DECIDED, 0, 0
    return MOVE_READ, 0, position.play(col).canonical_key


def test_the_move_rule_is_one_ply_of_negamax(positions):
    for board, found in ((B, positions), (Board(9, 4), random_endgames(40, 9, board=Board(9, 4)))):
        for p in found:
            if p.is_game_over:
                continue
            for col in range(board.width):
                got = _move_rule(board, np.uint64(p.current), np.uint64(p.mask), p.ply, col)
                assert tuple(map(int, got)) == expected_rule(p, col + 1), (p.moves, col)


def test_the_last_cell_without_a_four_is_a_draw():
    p = Position.from_moves("54712566226127126621574377157631535333444")  # 41 stones, no four
    assert p.legal_moves() == [4] and not p.is_winning_move(4)
    rules = [
        tuple(map(int, _move_rule(B, np.uint64(p.current), np.uint64(p.mask), 41, col)))
        for col in range(7)
    ]
    assert rules == [(MOVE_FULL, 0, 0)] * 3 + [(MOVE_DECIDED, 0, 0)] + [(MOVE_FULL, 0, 0)] * 3


def test_a_key_replays_to_itself(positions):
    moves = moves_of_keys(keys(positions))
    for position, replayed in zip(positions, moves, strict=True):
        again = Position.from_moves(replayed)
        assert again.key == position.key and again.ply == position.ply
        assert replayed <= position.moves  # the smallest string that reaches it


def test_positions_of_keys_are_the_replayed_positions(positions):
    found = positions_of_keys(keys(positions), "44")
    expected = [Position.from_moves(m) for m in moves_of_keys(keys(positions), "44")]
    assert [(p.moves, p.current, p.mask, p.is_won) for p in found] == [
        (p.moves, p.current, p.mask, p.is_won) for p in expected
    ]
    assert len(found) == 350 and positions_of_keys(np.zeros(0, dtype=np.uint64)) == []


def test_known_replays():
    assert moves_of_key(0) == ""
    assert moves_of_key(Position.from_moves("4").key) == "4"
    # the small book's root, and its first ply-11 entry as the verify messages show it
    assert moves_of_key(Position.from_moves("44444433").key) == "33444444"
    assert moves_of_key(Position.from_moves("44444433111").key) == "11334444441"


def test_a_key_that_no_game_reaches_is_refused():
    # two stones of the first player and none of the second
    impossible = Position.from_moves("1").key + (1 << 7)
    with pytest.raises(ValueError, match=f"key {impossible} is not a position reachable"):
        moves_of_key(impossible)


@pytest.mark.parametrize(
    "key",
    [127 << 21, (127 << 21) | 1, 1 << 49, (1 << 63) | 1, (1 << 64) - 1],
    ids=["a column of all ones", "and a stone", "past the last column", "bit 63", "all ones"],
)
def test_a_key_that_is_no_position_has_no_ply(key):
    # A column's seven bits all set would carry into the next as decode reads it.
    assert plies_of(B, np.array([key], np.uint64)).tolist() == [-1]
    with pytest.raises(ValueError, match="not a position reachable"):
        moves_of_key(key)


def test_plies_and_canonical_keys(positions):
    k = keys(positions)
    assert plies_of(B, k).tolist() == [p.ply for p in positions]
    assert canonical_keys(B, k).tolist() == [p.canonical_key for p in positions]
    assert canonical_keys(B, k).tolist() == [min(x, B.mirror_bits(x)) for x in k.tolist()]


def test_children_are_the_unfinished_plays(positions):
    for position in positions[:100]:
        children = unfinished_children(B, keys([position]), np.uint64(0), np.uint64(1 << 63))
        expected = []
        for col in position.legal_moves():
            child = position.play(col)
            if not child.is_game_over:
                expected.append(child.canonical_key)
        assert sorted(children.tolist()) == sorted(expected), position.moves


def test_replays_back_up_only_a_little(positions):
    steps = replay_steps(B, keys(positions))
    assert (steps >= 0).all() and steps.max() < 5000


@pytest.mark.parametrize("board", [Board(4, 4), Board(6, 5), Board(8, 7), Board(9, 6)], ids=str)
def test_keys_of_other_boards_replay_and_list_children(board):
    positions = random_endgames(60, seed=11, min_empty=4, max_empty=board.cells - 2, board=board)
    found = keys(positions)
    assert plies_of(board, found).tolist() == [p.ply for p in positions]
    assert canonical_keys(board, found).tolist() == [p.canonical_key for p in positions]
    for position, replayed in zip(positions, moves_of_keys(found, board=board), strict=True):
        assert Position.from_moves(replayed, board) == position
    assert positions_of_keys(found, board=board) == positions
    for position in positions[:20]:
        children = unfinished_children(
            board, keys([position]), np.uint64(0), np.uint64((1 << 64) - 1)
        )
        expected = [
            position.play(c).canonical_key
            for c in position.legal_moves()
            if not position.play(c).is_game_over
        ]
        assert sorted(children.tolist()) == sorted(expected)


# Both counts of steps ``decode``'s smear takes (three up to 8 bits a column, four up to
# 16), to 8x7's and 4x15's keys of all 64 bits.
@pytest.mark.parametrize(
    "board", [Board(4, 4), B, Board(8, 7), Board(4, 8), Board(4, 10), Board(4, 15)], ids=str
)
def test_decode_gives_back_the_boards_and_the_ply(board):
    # One column at every height (a stone of each player in turn: no four), then random games.
    positions = [
        Position.from_moves(str(col) * h, board)
        for col in range(1, board.width + 1)
        for h in range(board.height + 1)
    ] + random_positions(300, seed=board.cells, board=board, most=board.cells)
    found = keys(positions)
    current, mask = np.empty_like(found), np.empty_like(found)
    _boards_of(board, found, current, mask)
    assert current.tolist() == [p._current for p in positions]
    assert mask.tolist() == [p._mask for p in positions]
    assert plies_of(board, found).tolist() == [p.ply for p in positions]
    # Columns wholly the other player's (no game reaches them: a key need not be one's):
    # only the smear sets the bits under each top.
    filled = [
        sum(((1 << h) - 1) << (col * board.h1) for col in range(board.width))
        for h in range(board.height + 1)
    ]
    _boards_of(board, np.array(filled, np.uint64), current[: len(filled)], mask[: len(filled)])
    assert mask[: len(filled)].tolist() == filled and not current[: len(filled)].any()

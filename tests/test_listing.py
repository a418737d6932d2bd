"""``bookgen.builder.listing``: packed keys per ply, against the published table and the
Position-by-Position enumerator it replaced (kept here as the reference)."""

import numpy as np
import pytest
from conftest import WideView

from bookgen.builder.listing import (
    contains_sorted,
    expand,
    frontier_chunks,
    key_array,
    key_ints,
    keys_by_ply,
    root_keys,
)
from solver import Board, Position
from solver.bitboard import STANDARD
from solver.wide.packed import positions_of_keys

mirror_bits = STANDARD.mirror_bits

# The published table of positions per ply (the project brief's reference figures,
# copied here): unfinished positions, mirror images once.
CANONICAL = [1, 4, 25, 121, 568, 2144, 8231, 27109, 91295]
DISTINCT = [1, 7, 49, 238, 1120, 4263, 16422]


def reference_positions_by_ply(root: Position, max_ply: int) -> dict[int, list[Position]]:
    """The enumerator the build used before packed keys, Position by Position."""
    if root.is_game_over:
        return {}
    levels = {root.ply: [root if root.is_canonical else root.mirror()]}
    for ply in range(root.ply, max_ply):
        seen: dict[int, Position] = {}
        for position in levels[ply]:
            for col in position.legal_moves():
                child = position.play(col)
                if not child.is_game_over:
                    seen.setdefault(child.canonical_key, child)
        levels[ply + 1] = sorted(
            (p if p.is_canonical else p.mirror() for p in seen.values()), key=lambda p: p.moves
        )
    return levels


def brute_force(root: Position, depth: int) -> dict[int, set[int]]:
    """Every move sequence, no dedupe while walking: keys by ply."""
    found: dict[int, set[int]] = {}

    def walk(position: Position, left: int) -> None:
        found.setdefault(position.ply, set()).add(position.key)
        if left and not position.is_game_over:
            for col in position.legal_moves():
                child = position.play(col)
                if not child.is_game_over:
                    walk(child, left - 1)

    walk(root, depth)
    return found


def canonical_keys(keys: set[int]) -> set[int]:
    # key = current + mask never carries across columns, so mirroring the key
    # column by column gives the mirror image's key.
    return {min(key, mirror_bits(key)) for key in keys}


def as_sorted_keys(positions: list[Position]) -> list[int]:
    return sorted(p.key for p in positions)


def test_canonical_counts_match_the_published_table():
    levels = keys_by_ply(Position(), 8)
    assert [len(levels[ply]) for ply in range(9)] == CANONICAL
    assert all(levels[ply].dtype == np.uint64 for ply in levels)


@pytest.mark.parametrize(
    "root, depth",
    [("", 7), ("4444", 4), ("44444433", 4), ("3333331", 4), ("1212121", 2), ("121212", 3)],
)
def test_the_same_keys_as_the_position_enumerator(root, depth):
    start = Position.from_moves(root)
    levels = keys_by_ply(start, start.ply + depth)
    reference = reference_positions_by_ply(start, start.ply + depth)
    assert sorted(levels) == sorted(reference)
    for ply, positions in reference.items():
        assert levels[ply].tolist() == as_sorted_keys(positions), ply


def test_distinct_counts_by_brute_force_and_mirror_dedupe_agree():
    distinct = brute_force(Position(), 5)
    assert [len(distinct[ply]) for ply in range(6)] == DISTINCT[:6]
    levels = keys_by_ply(Position(), 5)
    for ply in range(6):
        assert set(levels[ply].tolist()) == canonical_keys(distinct[ply])


def test_listed_keys_are_sorted_unique_and_canonical():
    levels = keys_by_ply(Position.from_moves("4444"), 8)
    for keys in levels.values():
        assert (np.diff(keys.astype(np.int64)) > 0).all()
        assert all(min(k, mirror_bits(k)) == k for k in keys.tolist())


def test_deep_root_matches_brute_force():
    root = Position.from_moves("44444433")
    levels = keys_by_ply(root, 12)
    found = brute_force(root, 4)
    for ply in range(8, 13):
        assert set(levels[ply].tolist()) == canonical_keys(found[ply])


def test_finished_root_lists_nothing():
    assert keys_by_ply(Position.from_moves("1212121"), 10) == {}


def test_a_full_board_has_no_unfinished_child():
    # 41 stones, no four: the last stone ends the game whatever it makes.
    moves = "25777131474464721415461763362331365655522"
    position = Position.from_moves(moves)
    assert position.ply == 41 and not position.is_game_over
    assert len(expand(np.array([position.canonical_key], dtype=np.uint64))) == 0


@pytest.mark.parametrize("chunk", [1, 50, 400, 10**9])
def test_frontier_chunks_are_the_next_ply_in_key_order(chunk):
    levels = keys_by_ply(Position.from_moves("4444"), 8)
    chunks = list(frontier_chunks(levels[7], chunk))
    assert np.array_equal(np.concatenate(chunks), levels[8])
    assert all(len(c) for c in chunks)
    if chunk == 10**9:
        assert len(chunks) == 1
    elif chunk == 50:
        assert len(chunks) > 10


def test_contains_sorted():
    haystack = np.array([3, 5, 9], dtype=np.uint64)
    needles = np.array([1, 3, 4, 9, 10], dtype=np.uint64)
    assert contains_sorted(haystack, needles).tolist() == [False, True, False, True, False]
    assert contains_sorted(haystack[:0], needles).tolist() == [False] * 5


# -- boards past 64 bits: (n, 2) keys, a row (low, high) -------------------------------

# Unfinished positions per ply, mirror images once, from the empty board: the Position
# enumerator's counts (``reference_positions_by_ply``), which the tests below recompute.
WIDE_COUNTS = {
    "8x8": [1, 4, 32, 172, 908, 3728, 15684],
    "5x12": [1, 3, 13, 49, 177, 545, 1689, 4687, 13209],
    "9x7": [1, 5, 41, 241, 1385, 6161],
}


@pytest.mark.parametrize(
    "size, root, depth",
    [("8x8", "", 6), ("5x12", "", 8), ("9x7", "", 5), ("8x8", "4455", 4), ("9x7", "5544", 4)],
)
def test_wide_boards_list_what_the_position_enumerator_lists(size, root, depth):
    start = Position.from_moves(root, size)
    levels = keys_by_ply(start, start.ply + depth)
    reference = reference_positions_by_ply(start, start.ply + depth)
    assert sorted(levels) == sorted(reference)
    for ply, positions in reference.items():
        assert levels[ply].shape == (len(positions), 2) and levels[ply].dtype == np.uint64
        assert key_ints(levels[ply]) == as_sorted_keys(positions), ply
    if not root:
        assert [len(levels[ply]) for ply in sorted(levels)] == WIDE_COUNTS[size]


def test_wide_keys_pass_64_bits():
    # 8x8's column 8 holds bits 63-71: canonical keys with stones there take the high word.
    levels = keys_by_ply(Position(board="8x8"), 4)
    assert levels[4][:, 1].any() and max(key_ints(levels[4])) >= 1 << 64


def levels_through(board, root: Position, max_ply: int) -> dict[int, np.ndarray]:
    """``keys_by_ply`` with every ply expanded on ``board`` (a ``WideView`` of the root's)."""
    levels = {root.ply: key_array([root.canonical_key], board)}
    for ply in range(root.ply, max_ply):
        levels[ply + 1] = expand(levels[ply], board=board)
    return levels


@pytest.mark.parametrize("root, max_ply", [("", 8), ("4444", 10), ("44444433", 12)])
def test_seven_by_six_typed_wide_lists_the_one_word_keys(root, max_ply):
    start = Position.from_moves(root)
    one = keys_by_ply(start, max_ply)
    two = levels_through(WideView(STANDARD), start, max_ply)
    for ply, keys in one.items():
        assert (two[ply][:, 1] == 0).all() and np.array_equal(two[ply][:, 0], keys), ply


def test_wide_finished_root_and_full_board():
    assert keys_by_ply(Position.from_moves("1212121", "8x8"), 10) == {}
    assert root_keys(Position.from_moves("1212121", "8x8")).shape == (0, 2)
    full = Position.from_moves(
        "25232231314254253333342445221142341111334221445511315555454", "5x12"
    )
    assert full.ply == 59 and not full.is_game_over
    assert expand(root_keys(full), board=full.board).shape == (0, 2)


@pytest.mark.parametrize("chunk", [1, 50, 400, 10**9])
def test_wide_frontier_chunks_are_the_next_ply_in_key_order(chunk):
    board = Board(8, 8)
    parents = keys_by_ply(Position(board=board), 5)[5]
    everything = expand(parents, board=board)
    chunks = list(frontier_chunks(parents, chunk, board))
    assert np.array_equal(np.concatenate(chunks), everything)
    assert all(len(c) for c in chunks)
    if chunk == 10**9:
        assert len(chunks) == 1
    elif chunk == 50:
        assert len(chunks) > 10


def test_wide_frontier_chunks_of_a_sampled_ply():
    # 202,832 parents: the sample takes every fourth (a strided view of the rows).
    board = Board(8, 8)
    parents = keys_by_ply(Position(board=board), 8)[8]
    chunks = list(frontier_chunks(parents, 100_000, board))
    assert len(chunks) > 4
    assert np.array_equal(np.concatenate(chunks), expand(parents, board=board))


def test_wide_listed_keys_replay_to_themselves():
    board = Board(9, 7)
    start = Position.from_moves("55", board)
    keys = keys_by_ply(start, 6)[6]
    positions = positions_of_keys(keys, "55", board)
    assert [p.key for p in positions] == key_ints(keys)
    assert all(p.moves.startswith("55") for p in positions)
    assert [Position.from_moves(p.moves, board) for p in positions] == positions


def test_wide_contains_sorted():
    low = (1 << 64) - 1
    haystack = key_array([3, low, 1 << 64, 5 << 64 | 3], Board(8, 8))
    needles = key_array([3, 4, low, 1 << 64, 2 << 64, 5 << 64 | 3, 5 << 64, 6 << 64], Board(8, 8))
    found = contains_sorted(haystack, needles).tolist()
    assert found == [True, False, True, True, False, True, False, False]
    assert contains_sorted(haystack[:0], needles).tolist() == [False] * 8

"""``bookgen.builder.listing``: packed keys per ply, against the published table and the
Position-by-Position enumerator it replaced (kept here as the reference)."""

import numpy as np
import pytest

from bookgen.builder.listing import contains_sorted, expand, frontier_chunks, keys_by_ply
from solver import Position
from solver.bitboard import STANDARD

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

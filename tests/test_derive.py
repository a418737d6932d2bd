"""``bookgen.builder.derive``: the vectorised derivation, against the Position-by-Position
derivation it replaced (kept here as the reference), on the same subtrees."""

import numpy as np
import pytest
from conftest import SMALL_ROOT, WIDE_PLY

from bookgen.book.format.scores import BEST_TEXT, best_of, pack_scores
from bookgen.builder.derive import MissingChildError, derive
from bookgen.builder.listing import keys_by_ply
from solver import Board, Position
from solver.bitboard import win_score
from solver.packed import moves_of_keys


def reference_entry(position: Position, child_scores: dict[int, int]) -> tuple:
    """(score, best, packed move scores) as the build derived them before packed keys."""
    scores = position.move_scores(lambda child: child_scores[child.canonical_key])
    score, best = best_of(scores)
    return score, best, pack_scores(scores)


def random_scores(keys: np.ndarray, ply: int, seed: int) -> np.ndarray:
    """Any scores a position at ``ply`` could have: the derivation must not care."""
    rng = np.random.default_rng(seed)
    top = win_score(ply)
    return rng.integers(-top, top + 1, len(keys)).astype(np.int8)


@pytest.mark.parametrize(
    "root, deepest", [(SMALL_ROOT, 12), (SMALL_ROOT, 14), ("4453", 8), ("", 5)]
)
def test_every_shallower_ply_equals_the_position_derivation(root, deepest):
    levels = keys_by_ply(Position.from_moves(root), deepest)
    scores = {deepest: random_scores(levels[deepest], deepest, seed=deepest)}
    for ply in range(deepest - 1, min(levels) - 1, -1):
        entries = derive(levels[ply], levels[ply + 1], scores[ply + 1])
        scores[ply] = entries.scores
        child_scores = dict(zip(levels[ply + 1].tolist(), scores[ply + 1].tolist(), strict=True))
        positions = [Position.from_moves(m) for m in moves_of_keys(levels[ply])]
        for i, position in enumerate(positions):
            score, best, packed = reference_entry(position, child_scores)
            assert (
                int(entries.scores[i]),
                BEST_TEXT[entries.best[i]],
                entries.move_scores[i].tobytes(),
            ) == (score, best, packed), position.moves


def test_a_winning_move_needs_no_child():
    # the first player wins at once in column 4 (three stones there); column 1 is
    # three high for the other player, who would win there next
    position = Position.from_moves("414141")
    canonical = position if position.is_canonical else position.mirror()
    parents = np.array([canonical.key], dtype=np.uint64)
    children = {}
    for col in canonical.legal_moves():
        child = canonical.play(col)
        if not child.is_game_over:
            children[child.canonical_key] = 1
    keys = np.array(sorted(children), dtype=np.uint64)
    entries = derive(parents, keys, np.ones(len(keys), dtype=np.int8))
    expected = reference_entry(canonical, children)
    assert (
        int(entries.scores[0]),
        BEST_TEXT[entries.best[0]],
        entries.move_scores[0].tobytes(),
    ) == expected
    assert entries.scores[0] == win_score(canonical.ply)


def test_a_missing_child_is_named():
    root = Position.from_moves(SMALL_ROOT)
    levels = keys_by_ply(root, 9)
    with pytest.raises(MissingChildError, match=r"\(child of '33444444'\) is not in the book"):
        derive(levels[8], levels[9][1:], np.zeros(len(levels[9]) - 1, dtype=np.int8))
    loose = derive(
        levels[8], levels[9][1:], np.zeros(len(levels[9]) - 1, dtype=np.int8), strict=False
    )
    assert loose.missing.tolist() == [int(levels[9][0])] and not loose.complete[0]


# -- past 64 bits ----------------------------------------------------------------------


def test_keys_past_64_bits_derive_as_the_solver_scores(wide_plies):
    board = Board(8, 8)
    for ply in sorted(wide_plies)[:-1]:
        parents, children = wide_plies[ply], wide_plies[ply + 1]
        out = derive(parents.keys, children.keys, children.scores, board=board)
        assert out.keys.shape == parents.keys.shape and out.complete.all()
        assert np.array_equal(out.scores, parents.scores)
        assert np.array_equal(out.keys, parents.keys)
    # A child left out: named by its move string, or given back as its key's two words.
    last, below = wide_plies[WIDE_PLY - 1], wide_plies[WIDE_PLY]
    with pytest.raises(MissingChildError, match="is not in the book"):
        derive(last.keys, below.keys[1:], below.scores[1:], board=board)
    out = derive(last.keys, below.keys[1:], below.scores[1:], board=board, strict=False)
    assert 0 < (~out.complete).sum() < len(out.complete)
    assert below.keys[0].tolist() in out.missing[~out.complete].tolist()

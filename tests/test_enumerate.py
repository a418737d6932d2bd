from bookgen.enumerate import positions_by_ply
from solver import Position
from solver.bitboard import mirror_bits

# The published table of positions per ply (the project brief's reference figures,
# copied here): unfinished positions, mirror images once.
CANONICAL = [1, 4, 25, 121, 568, 2144, 8231, 27109, 91295]
DISTINCT = [1, 7, 49, 238, 1120, 4263, 16422]


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


def test_canonical_counts_match_the_published_table():
    levels = positions_by_ply(Position(), 8)
    assert [len(levels[ply]) for ply in range(9)] == CANONICAL


def canonical_keys(keys: set[int]) -> set[int]:
    # key = current + mask never carries across columns, so mirroring the key
    # column by column gives the mirror image's key.
    return {min(key, mirror_bits(key)) for key in keys}


def test_distinct_counts_by_brute_force_and_mirror_dedupe_agree():
    distinct = brute_force(Position(), 5)
    assert [len(distinct[ply]) for ply in range(6)] == DISTINCT[:6]
    levels = positions_by_ply(Position(), 5)
    for ply in range(6):
        assert {p.key for p in levels[ply]} == canonical_keys(distinct[ply])


def test_listed_positions_are_canonical_unfinished_and_sorted():
    levels = positions_by_ply(Position.from_moves("4444"), 8)
    for ply, positions in levels.items():
        assert all(p.ply == ply and p.is_canonical and not p.is_game_over for p in positions)
        assert [p.moves for p in positions] == sorted(p.moves for p in positions)
        assert len({p.key for p in positions}) == len(positions)


def test_deep_root_matches_brute_force():
    root = Position.from_moves("44444433")
    levels = positions_by_ply(root, 12)
    found = brute_force(root, 4)
    for ply in range(8, 13):
        assert {p.key for p in levels[ply]} == canonical_keys(found[ply])


def test_finished_root_lists_nothing():
    assert positions_by_ply(Position.from_moves("1212121"), 10) == {}

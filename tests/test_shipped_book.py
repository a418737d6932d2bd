"""The book shipped at the repository root: whatever it claims must be true.

It holds every position up to its last ply (``book.info.max_ply``): every
ply complete, the last one searched, the shallower ones derived.
"""

import random
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from bookgen import Book
from solver import Position, Solver
from solver.packed import moves_of_key, moves_of_keys

SHIPPED = Path(__file__).resolve().parent.parent / "book.db"
# Canonical positions per ply, from the published table (7x6, unfinished games).
CANONICAL = [1, 4, 25, 121, 568, 2144, 8231, 27109, 91295, 269531, 809464]

pytestmark = pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")


@pytest.fixture(scope="module")
def book():
    with Book.open(str(SHIPPED)) as opened:
        yield opened


def rows(sql: str, *args) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{SHIPPED}?mode=ro", uri=True)) as conn:
        return conn.execute(sql, args).fetchall()


def test_it_is_an_empty_board_book_of_every_position_up_to_its_last_ply(book):
    assert (book.info.width, book.info.height, book.info.root) == (7, 6, "")
    assert book.info.schema_version == 2
    plies = {ply for (ply,) in rows("SELECT DISTINCT ply FROM positions")}
    assert plies == set(range(book.info.max_ply + 1)) and book.info.max_ply >= 8
    assert set(book.info.plies_complete) == plies


def test_complete_plies_hold_every_canonical_position(book):
    counts = book.count_by_ply()
    for ply in book.info.plies_complete:
        assert counts.get(ply) == CANONICAL[ply], ply


def test_stored_positions_are_canonical_and_keyed_right():
    keys = [key for (key,) in rows("SELECT key FROM positions ORDER BY key")]
    for key, moves in zip(keys, moves_of_keys(np.array(keys, dtype=np.uint64))):
        position = Position.from_moves(moves)
        assert position.key == key == position.canonical_key, moves
        assert not position.is_game_over


def test_frontier_sample_matches_a_fresh_solve(book):
    frontier = rows("SELECT key, score, wdl, best_moves FROM positions "
                    "WHERE ply = ? ORDER BY key", book.info.max_ply)
    solver = Solver(table_log2=22)
    for key, score, wdl, best in random.Random(2026).sample(frontier, min(4, len(frontier))):
        moves = moves_of_key(key)
        position = Position.from_moves(moves)
        assert solver.solve(position) == score, moves
        assert wdl == (score > 0) - (score < 0)
        assert best == "".join(str(c) for c in position.legal_moves()
                               if solver.is_best_move(position, c, score)), moves


def test_derived_entries_are_one_ply_of_negamax_over_their_children(book):
    derived = rows("SELECT key FROM positions WHERE move_scores IS NOT NULL ORDER BY key")
    if not derived:
        pytest.skip("no shallower ply derived yet")

    def child_score(key: int):
        (score,) = rows("SELECT score FROM positions WHERE key = ?", key)[0]
        return score

    for (key,) in random.Random(2026).sample(derived, min(200, len(derived))):
        moves = moves_of_key(key)
        position = Position.from_moves(moves)
        expected = []
        for col in range(1, 8):
            if not position.can_play(col):
                expected.append(None)
            elif position.is_winning_move(col):
                expected.append((43 - position.ply) // 2)
            else:
                expected.append(-child_score(position.play(col).canonical_key))
        entry = book.get(moves)
        assert entry.move_scores == tuple(expected), moves
        best = max(s for s in expected if s is not None)
        assert entry.score == best, moves
        assert entry.best_moves == tuple(c for c, s in enumerate(expected, 1) if s == best)


def test_the_opening_is_known_once_ply_0_is_complete(book):
    if 0 not in book.info.plies_complete:
        pytest.skip("ply 0 not derived yet: the book is still being built")
    entry = book.get("")
    assert entry.score == 1 and entry.best_moves == (4,)
    assert entry.move_scores == (-2, -1, 0, 1, 0, -1, -2)

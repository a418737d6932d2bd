"""The book shipped at the repository root: whatever it claims must be true.

It holds every position up to its last ply (``book.info.max_ply``): every
ply complete and sealed, the last one searched (with its best moves), the
shallower ones derived (scores only: their children give their best moves).
"""

import hashlib
import json
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import SHIPPED, free_pages, open_store, scores_by_children

from bookgen import Player
from bookgen.book.format.names import SCHEMA_VERSION
from bookgen.book.format.scores import BEST_TEXT
from bookgen.book.read import reader
from bookgen.builder.listing import expand
from solver import Position, Solver
from solver.bitboard import STANDARD
from solver.packed import canonical_keys, moves_of_key, moves_of_keys, plies_of
from solver.position import random_position

# Canonical positions per ply, from the published table (7x6, unfinished games).
mirror_moves = STANDARD.mirror_moves
CANONICAL = [1, 4, 25, 121, 568, 2144, 8231, 27109, 91295, 269531, 809464, 2148087, 5832236]
CANONICAL += [14105207, 35045629]  # plies 13 and 14 (issue 51)

pytestmark = pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")


@pytest.fixture(scope="module")
def book(shipped_book):
    return shipped_book


@pytest.fixture(scope="module")
def stored() -> dict:
    """Each ply's stored entries (``Segment``: keys, scores, best moves or None)."""
    store = open_store(str(SHIPPED))
    try:
        return {ply: store.entries_at(ply) for ply in store.count_by_ply()}
    finally:
        store.close()


def building(book) -> list[int]:
    """The ply still being built, if the shipped book has one: the next."""
    return [book.info.max_ply + 1] if book.info.max_ply + 1 in book.count_by_ply() else []


def test_it_is_an_empty_board_book_of_every_position_up_to_its_last_ply(book, stored):
    assert (book.info.width, book.info.height, book.info.root) == (7, 6, "")
    assert book.info.schema_version == SCHEMA_VERSION
    complete = set(range(book.info.max_ply + 1))
    assert set(book.info.plies_complete) == complete and book.info.max_ply >= 8
    assert set(stored) == complete | set(building(book))  # and at most the next, in part


# The SHA-256 of every entry of the shipped book (each ply's keys, scores and best-move
# bits where kept, in key order) as schema 4 stored it, in segments, before
# `c4book upgrade` sealed it in blocks (schema 5): read with the schema-4 reader.
SCHEMA_4_ENTRIES = "d730aa2fc93a293bed05ad3e7d68500579403a20d4e6962bfcafd2aaf20936aa"


def test_every_entry_reads_back_as_schema_4_stored_it(stored):
    if max(stored) != 12:
        pytest.skip("the shipped book has grown past the one schema 4 held")
    digest = hashlib.sha256()
    for _, entries in sorted(stored.items()):
        digest.update(entries.keys.astype("<u8").tobytes())
        digest.update(entries.scores.astype("i1").tobytes())
        if entries.best is not None:
            digest.update(entries.best.astype("u1").tobytes())
    assert digest.hexdigest() == SCHEMA_4_ENTRIES


# The SHA-256 of the keys and scores of plies 0-12 (each ply's keys, then its scores, in
# key order), as the ply-12 book held them: a book grown deeper changes none of them.
PLY_12_SCORES = "8b73beac6ec935eec60f7e6496949f3ad67bea9e7dd6349b15bcc00b7de7d9bf"


def test_plies_0_to_12_keep_the_scores_of_the_ply_12_book(stored):
    digest = hashlib.sha256()
    for ply in range(13):
        digest.update(stored[ply].keys.astype("<u8").tobytes())
        digest.update(stored[ply].scores.astype("i1").tobytes())
    assert digest.hexdigest() == PLY_12_SCORES


def test_every_complete_ply_is_sealed_and_only_the_deepest_keeps_best_moves(book, stored):
    store = open_store(str(SHIPPED))
    try:
        assert store.row_counts() == {}  # a ply still being built is shipped packed
        assert all(store.is_sealed(ply) for ply in book.info.plies_complete)
        assert not any(store.is_sealed(ply) for ply in building(book))
    finally:
        store.close()
    assert [ply for ply, s in stored.items() if s.best is not None] == [
        book.info.max_ply,
        *building(book),
    ]


def test_complete_plies_hold_every_canonical_position(book):
    counts = book.count_by_ply()
    for ply in book.info.plies_complete:
        assert counts.get(ply) == CANONICAL[ply], ply


def test_stored_positions_are_canonical_and_keyed_right(stored):
    """Every ply, whole, in compiled kernels: sorted, canonical, of its ply, and exactly the
    unfinished children of the ply above; a sample of each through ``Position`` too."""
    for ply, segment in stored.items():
        keys = segment.keys
        assert np.all(keys[1:] > keys[:-1]), ply
        assert np.array_equal(canonical_keys(STANDARD, keys), keys), ply
        assert np.all(plies_of(STANDARD, keys) == ply), ply
        if ply - 1 in stored:
            assert np.array_equal(expand(stored[ply - 1].keys), keys), ply
        sample = random.Random(ply).sample(range(len(keys)), min(2000, len(keys)))
        for key, moves in zip(keys[sample].tolist(), moves_of_keys(keys[sample]), strict=True):
            position = Position.from_moves(moves)
            assert position.key == key == position.canonical_key, moves
            assert position.ply == ply and not position.is_game_over


@pytest.mark.parametrize("deeper", [0, 1], ids=["last complete ply", "ply being built"])
def test_frontier_sample_matches_a_fresh_solve(book, stored, deeper):
    if book.info.max_ply + deeper not in stored:
        pytest.skip("no ply being built")
    keys, scores, bits = stored[book.info.max_ply + deeper]
    solver = Solver(table_log2=22)
    for at in random.Random(2026).sample(range(len(keys)), min(4, len(keys))):
        key, score, best = int(keys[at]), int(scores[at]), BEST_TEXT[bits[at]]
        moves = moves_of_key(key)
        position = Position.from_moves(moves)
        assert solver.solve(position) == score, moves
        entry = book.get(moves)
        assert (entry.score, entry.wdl) == (score, (score > 0) - (score < 0))
        assert best == "".join(
            str(c) for c in position.legal_moves() if solver.is_best_move(position, c, score)
        ), moves
        assert "".join(map(str, entry.best_moves)) == best and entry.move_scores is None


def test_derived_entries_are_one_ply_of_negamax_over_their_children(book, stored):
    shallower = [s.keys for ply, s in stored.items() if ply < book.info.max_ply]
    derived = np.concatenate(shallower or [np.zeros(0, np.uint64)])
    if not len(derived):
        pytest.skip("no shallower ply derived yet")
    picked = np.random.default_rng(2026).choice(len(derived), min(200, len(derived)), False)

    def score_of(key: int):
        keys, scores, _ = stored[Position.from_moves(moves_of_key(key)).ply]
        at = int(np.searchsorted(keys, np.uint64(key)))
        assert keys[at] == key, key
        return int(scores[at])

    for key in derived[np.sort(picked)].tolist():  # (in key order: a block read at a time)
        moves = moves_of_key(key)
        position = Position.from_moves(moves)
        expected = scores_by_children(position, lambda child: score_of(child.canonical_key))
        entry = book.get(moves)
        assert entry.move_scores == tuple(expected), moves
        best = max(s for s in expected if s is not None)
        assert entry.score == best == score_of(key), moves
        assert entry.best_moves == tuple(c for c, s in enumerate(expected, 1) if s == best)


# A process as a user starts it, the book opened without its compiled lookups: the
# reader's Python lookups, with no numba loaded.
FRESH = """
import json, sys
from bookgen import Book, Player
asked = json.load(sys.stdin)
with Book.open(sys.argv[1], compiled=False) as book:
    many = book.get_many(asked)  # its first call: nothing derived before
    one = [book.get(m) for m in asked]
    player = Player(book)
    columns = [player.best_move(m) for m in asked]
print(json.dumps({"many": [e[:6] for e in many], "one": [e[:6] for e in one],
                  "columns": columns, "numba": "numba" in sys.modules}))
"""


def test_a_fresh_process_without_numba_answers_as_the_compiled_lookups(book):
    # The ends of random games, 150 a ply (a ply's slice would derive its move scores).
    rng = random.Random(38)
    asked = []
    for ply in range(book.info.max_ply + 1):
        picked = [random_position(rng, ply).moves for _ in range(150)]
        asked += [m if i % 2 else mirror_moves(m) for i, m in enumerate(picked)]
    done = subprocess.run(
        [sys.executable, "-c", FRESH, str(SHIPPED)],
        input=json.dumps(asked),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    fresh = json.loads(done.stdout)
    assert fresh["numba"] is False  # no compiled lookup there
    assert reader._kernels() is not None  # here: the compiled ones
    expected = [list(map(list_of, book.get(m)[:6])) for m in asked]
    assert fresh["one"] == expected
    assert fresh["many"] == expected
    player = Player(book)
    assert fresh["columns"] == [player.best_move(m) for m in asked]


def list_of(field):
    """A field of a ``BookEntry`` as JSON gives it back: tuples as lists."""
    return list(field) if type(field) is tuple else field


def test_the_opening_is_known_once_ply_0_is_complete(book):
    if 0 not in book.info.plies_complete:
        pytest.skip("ply 0 not derived yet: the book is still being built")
    entry = book.get("")
    assert entry.score == 1 and entry.best_moves == (4,)
    assert entry.move_scores == (-2, -1, 0, 1, 0, -1, -2)


def test_the_file_is_compact(book):
    # Issue 27's target, and no pages left over from rows a seal or a pack dropped.
    assert free_pages(str(SHIPPED))[0] == 0
    assert SHIPPED.stat().st_size <= 1.25 * len(book)

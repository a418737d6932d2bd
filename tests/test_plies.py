"""``bookgen.book.read.plies``: a book's sealed plies in memory, found by canonical key, with a
parent ply's move scores derived from its children.

Expected move scores come from ``Solver.analyze``, and from the build's own
``derive`` kernel (``conftest.unseal`` stores them as rows, as schema version 2
did), never from ``Plies`` itself.
"""

import re
import sqlite3
from contextlib import closing

import numpy as np
import pytest
from conftest import SMALL_PLY, SMALL_ROOT, book_moves, stored_plies

from bookgen import CorruptBookError
from bookgen.book.format.database import make_engine
from bookgen.book.format.keys import walker
from bookgen.book.format.scores import (
    FULL_COLUMN,
    SCORE_OFFSET,
    entry_code,
    pack_scores,
    unpack_scores,
)
from bookgen.book.format.segment import Segment
from bookgen.book.read.plies import Plies
from solver import Position
from solver.bitboard import STANDARD

key_of = walker(STANDARD).key_of
mirror_bits = STANDARD.mirror_bits

COUNTS = {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
COMPLETE = (8, 9, 10, 11, 12)


def canonical(moves: str) -> int:
    key = key_of(moves)
    return min(key, mirror_bits(key))


def read_plies(path: str, complete=COMPLETE) -> Plies:
    engine = make_engine(path, readonly=True)
    try:
        with engine.connect() as conn:
            return Plies.read(conn, complete, path)
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def plies(small_book_path) -> Plies:
    return read_plies(small_book_path)


def segment(entries: list[tuple[str, int, str | None]]) -> Segment:
    """A ply's segment from ``(moves, score, best columns or None)``, put in key order."""
    entries = sorted(entries, key=lambda e: canonical(e[0]))
    best = (
        None
        if entries[0][2] is None
        else np.array([sum(1 << (int(c) - 1) for c in e[2] or "") for e in entries], np.uint8)
    )
    return Segment(
        np.array([canonical(e[0]) for e in entries], np.uint64),
        np.array([e[1] for e in entries], np.int8),
        best,
    )


# -- reading a real book -----------------------------------------------------------


def test_a_sealed_book_is_read_whole(plies, small_book_path):
    assert sorted(plies.segments) == list(COUNTS)
    assert {ply: len(s.keys) for ply, s in plies.segments.items()} == COUNTS
    assert plies.row_counts == {}
    # every ply whose children are all here derives its move scores: all but the last
    assert plies.parents == frozenset({8, 9, 10, 11})
    stored = stored_plies(small_book_path)
    for ply, (keys, scores, best) in plies.segments.items():
        assert keys.tolist() == stored[ply].keys.tolist()
        assert scores.tolist() == stored[ply].scores.tolist()
        assert (best is None) == (ply != SMALL_PLY)  # only the last ply keeps best moves
    assert plies.segments[SMALL_PLY].best.tolist() == stored[SMALL_PLY].best.tolist()


def test_counts_and_outcomes(plies, small_book_path):
    assert plies.count_by_ply() == COUNTS
    outcomes = plies.score_counts()
    assert {ply: sum(c.values()) for ply, c in outcomes.items()} == COUNTS
    assert outcomes[8] == {1: 1}
    for ply, (_, scores, _) in stored_plies(small_book_path).items():
        signs = np.sign(scores.astype(int))
        assert outcomes[ply] == {
            wdl: int((signs == wdl).sum()) for wdl in (-1, 0, 1) if (signs == wdl).any()
        }


def test_plies_kept_as_rows_are_read_and_checked_as_sealed_ones(plies, small_rows_book_path):
    rows = read_plies(small_rows_book_path)
    assert rows.row_counts == COUNTS and rows.parents == plies.parents
    assert {ply: len(s.keys) for ply, s in rows.segments.items()} == COUNTS
    for ply, sealed in plies.segments.items():
        assert rows.segments[ply].keys.tolist() == sealed.keys.tolist()
        assert rows.segments[ply].scores.tolist() == sealed.scores.tolist()
    # rows keep their best moves, sealed parents derive theirs: the same answers
    assert all(
        rows.find(int(k), ply) == plies.find(int(k), ply)
        for ply, s in plies.segments.items()
        for k in s.keys
    )
    assert rows.count_by_ply() == COUNTS and rows.score_counts() == plies.score_counts()


# -- find ----------------------------------------------------------------------------


def test_find_at_the_last_ply_gives_score_and_stored_best_moves(plies):
    # 444444331233: score -2, best moves 1 2 5 6 (a direct solve: test_reader)
    assert plies.find(canonical("444444331233"), SMALL_PLY) == entry_code(-2, 0b110011)
    assert entry_code(-2, 0b110011) == (-2 + SCORE_OFFSET) << 7 | 0b110011
    assert plies.find(canonical("444444331112"), SMALL_PLY) == entry_code(-2, 0b10)


def test_find_at_a_parent_ply_gives_its_code_and_derived_move_scores(plies):
    # score 16, best moves 2 and 5: the code, as at the last ply, and the packed scores
    assert plies.find(canonical(SMALL_ROOT), 8) == (
        entry_code(16, 0b10010),
        pack_scores([0, 16, 2, None, 16, 0, 2]),
    )
    # 444444337 is stored as its mirror image 444444551: the scores are that orientation's
    assert canonical("444444337") == key_of("444444551")
    assert unpack_scores(plies.find(canonical("444444337"), 9)[1]) == [
        -15,
        -15,
        -2,
        None,
        -15,
        -2,
        -15,
    ]


@pytest.mark.parametrize(
    "key, ply",
    [
        (lambda: canonical("4453"), 4),  # no such ply
        (lambda: canonical("4444443"), 8),  # not at this ply
        (lambda: canonical("44444433"), 9),  # another ply's key
        (lambda: 0, SMALL_PLY),
        (lambda: 2**63, SMALL_PLY),
        (lambda: canonical("444444331233") + 1, SMALL_PLY),
    ],
)
def test_find_misses_are_none(plies, key, ply):
    assert plies.find(key(), ply) is None


def test_find_many_equals_find(plies, small_book_path):
    asked = [m for ply in COUNTS for m in book_moves(small_book_path, ply)]
    asked += ["".join(str(8 - int(c)) for c in m) for m in asked]  # mirror images
    asked += ["", "4453", "4444443", "4444443312356"]
    keys = np.array([key_of(m) for m in asked], np.uint64)
    plies_asked = np.array([len(m) for m in asked], np.int64)
    found, index, scores, best, flipped, packed_many = plies.find_many(keys, plies_asked)
    assert found.sum() == 2 * 753
    for i, moves in enumerate(asked):
        key = int(keys[i])
        canon = min(key, mirror_bits(key))
        assert bool(flipped[i]) == (canon != key)
        one = plies.find(canon, len(moves))
        assert bool(found[i]) == (one is not None), moves
        if not found[i]:
            continue
        at = plies.segments[len(moves)]
        assert at.keys[index[i]] == canon and at.scores[index[i]] == scores[i]
        if len(moves) == SMALL_PLY:
            assert one == entry_code(int(scores[i]), int(best[i]))
            assert not packed_many[i].any()
        else:  # the derived best moves: the moves that score the position's score
            code, packed = one
            assert packed == packed_many[i].tobytes()
            assert packed == plies.moves_of(len(moves))[7 * index[i] : 7 * index[i] + 7]
            assert code == entry_code(int(scores[i]), int(best[i]))
            top = max(packed)
            assert scores[i] == top - SCORE_OFFSET
            assert best[i] == sum(1 << c for c, b in enumerate(packed) if b == top)


def test_a_parent_ply_that_still_stores_best_moves_is_answered_as_a_parent(small_book_path):
    # Ply 11 keeps stored best bits (any: zeros here) while ply 12 is complete and whole in
    # memory, as when the ply below was packed in parts and is not sealed yet.
    sealed = dict(read_plies(small_book_path).segments)
    keys, scores, _ = sealed[11]
    sealed[11] = Segment(keys, scores, np.zeros(len(keys), np.uint8))
    stored = Plies(sealed, {}, COMPLETE)
    assert 11 in stored.parents
    whole = read_plies(small_book_path)
    for key in keys.tolist():
        assert stored.find(key, 11) == whole.find(key, 11)
        assert type(stored.find(key, 11)) is tuple
    found = stored.find_many(keys, np.full(len(keys), 11))
    assert (found[3] == np.frombuffer(whole.best_of(11), np.uint8)).all()


def test_find_many_with_nothing_asked(plies):
    found = plies.find_many(np.empty(0, np.uint64), np.empty(0, np.int64))
    assert [len(a) for a in found] == [0] * 6


# -- derived move scores ----------------------------------------------------------------


@pytest.mark.parametrize(
    "moves",
    ["444444" + tail for tail in ("33", "331", "551", "3311", "5531", "33111", "33123")],
)
def test_derived_move_scores_equal_a_direct_solve(plies, solver, moves):
    position = Position.from_moves(moves)
    assert position.is_canonical
    code, packed = plies.find(position.key, position.ply)
    assert unpack_scores(packed) == solver.analyze(position)
    assert code >> 7 == solver.solve(position) + SCORE_OFFSET


def test_every_derived_move_score_equals_the_build_kernels(plies, small_rows_book_path):
    # The rows book holds move scores as derive (numba, one child at a time) gave them;
    # plies derives them with numpy over a whole ply.
    with closing(sqlite3.connect(f"file:{small_rows_book_path}?mode=ro", uri=True)) as conn:
        for ply in (8, 9, 10, 11):
            stored = conn.execute(
                "SELECT move_scores FROM positions WHERE ply = ? ORDER BY key", (ply,)
            ).fetchall()
            assert b"".join(s for (s,) in stored) == plies.moves_of(ply), ply
            moves = np.frombuffer(plies.moves_of(ply), np.uint8).reshape(-1, 7)
            # a move's score is the best of the ply's, as the stored scores say
            tops = np.where(moves == FULL_COLUMN, 0, moves).max(axis=1).astype(int) - SCORE_OFFSET
            assert tops.tolist() == plies.segments[ply].scores.tolist()
            # and the best moves are the moves that score it
            best = np.frombuffer(plies.best_of(ply), np.uint8)
            assert (
                ((moves == (tops + SCORE_OFFSET)[:, None]) << np.arange(7)).sum(axis=1) == best
            ).all()
            assert (best != 0).all()


def test_a_lookup_derives_nothing_and_the_whole_ply_equals_its_chunks(small_book_path, monkeypatch):
    import bookgen.book.read.plies as plies_module

    whole = read_plies(small_book_path)
    expected = {ply: whole.moves_of(ply) for ply in (8, 9, 10, 11)}
    monkeypatch.setattr(plies_module, "CHUNK_BITS", 3)  # 8 positions a chunk
    chunked = read_plies(small_book_path)
    keys = chunked.segments[11].keys.tolist()  # 136 positions: 17 chunks
    for at, key in enumerate(keys):
        assert chunked.find(key, 11) == whole.find(key, 11)
        assert chunked.find(key, 11)[1] == expected[11][7 * at : 7 * at + 7]
    assert not chunked.derived_whole(11)  # read from the children, one at a time
    for ply in (8, 9, 10, 11):
        assert chunked.moves_of(ply) == expected[ply]
        assert chunked.best_of(ply) == whole.best_of(ply)


def test_find_many_derives_a_few_positions_alone_and_a_large_share_whole(small_book_path):
    whole = read_plies(small_book_path)
    part = read_plies(small_book_path)
    keys = part.segments[11].keys  # 136 positions
    few = keys[[3, 50, 50, 99]]  # fewer than a half, one asked twice
    found = part.find_many(few, np.full(len(few), 11))
    assert not part.derived_whole(11)  # derived for them alone, not kept
    expected = np.frombuffer(whole.moves_of(11), np.uint8).reshape(-1, 7)
    assert (found[5] == expected[[3, 50, 50, 99]]).all()
    assert (found[3] == np.frombuffer(whole.best_of(11), np.uint8)[[3, 50, 50, 99]]).all()
    many = keys[: len(keys) // 2]
    found = part.find_many(many, np.full(len(many), 11))
    assert part.moves_of(11) == whole.moves_of(11)  # a half: the whole ply, kept
    assert (found[5] == expected[: len(many)]).all()


def test_a_move_that_ends_the_game_is_scored_without_a_child():
    # After 121212 the first player wins at once in column 1: no child there in the book.
    parent = "121212"
    position = Position.from_moves(parent)
    assert position.is_winning_move(1) and not position.is_game_over
    children = [
        (position.play(col).moves, 5 - col, None)
        for col in position.legal_moves()
        if not position.is_winning_move(col)
    ]  # any scores: only read back
    assert len(children) == 6
    plies = Plies({6: segment([(parent, 0, None)]), 7: segment(children)}, {}, (6, 7))
    assert plies.parents == frozenset({6})
    scores = unpack_scores(plies.find(canonical(parent), 6)[1])
    if canonical(parent) != key_of(parent):  # the canonical orientation's, mirrored back
        scores = scores[::-1]
    assert scores == [(43 - 6) // 2] + [-(5 - c) for c in range(2, 8)]


def test_the_last_cell_is_a_draw_without_a_child():
    # 41 stones, no four: the last move fills the board without one.  The book holds
    # no position at ply 42 (every one is a finished game): an empty ply, complete.
    moves = "54712566226127126621574377157631535333444"
    position = Position.from_moves(moves)
    assert position.ply == 41 and not position.is_game_over
    assert position.legal_moves() == [4] and not position.is_winning_move(4)
    empty = Segment(np.empty(0, np.uint64), np.empty(0, np.int8), np.empty(0, np.uint8))
    plies = Plies({41: segment([(moves, 0, None)]), 42: empty}, {}, (41, 42))
    assert plies.parents == frozenset({41})
    assert unpack_scores(plies.find(position.canonical_key, 41)[1]) == [
        None,
        None,
        None,
        0,
        None,
        None,
        None,
    ]


def test_a_missing_child_is_a_damaged_book_not_a_wrong_score(small_book_path):
    sealed = dict(read_plies(small_book_path).segments.items())
    keys, scores, best = sealed[SMALL_PLY]
    gone = int(np.flatnonzero(keys == canonical("444444331112"))[0])
    sealed[SMALL_PLY] = Segment(
        np.delete(keys, gone), np.delete(scores, gone), np.delete(best, gone)
    )
    plies = Plies(sealed, {}, COMPLETE, "some.db")
    assert plies.find(canonical(SMALL_ROOT), 8) is not None  # plies above: unaffected
    with pytest.raises(
        CorruptBookError,
        match=re.escape(
            "'some.db': ply 12 lacks a child of a ply-11 position, though both are complete"
        ),
    ):
        plies.find(canonical("44444433111"), 11)


def test_a_score_no_move_reaches_is_a_damaged_book(small_book_path):
    sealed = dict(read_plies(small_book_path).segments)
    keys, scores, best = sealed[11]
    sealed[11] = Segment(keys, (scores + 1).astype(np.int8), best)  # every score off by one
    with pytest.raises(CorruptBookError, match="a ply-11 position's score is no move's score"):
        Plies(sealed, {}, COMPLETE, "some.db").find(int(keys[0]), 11)


def test_parents_need_the_next_ply_complete_and_in_memory(small_book_path):
    sealed = read_plies(small_book_path).segments
    assert Plies(sealed, {}, COMPLETE).parents == {8, 9, 10, 11}
    assert Plies(sealed, {}, (8, 9, 10, 11)).parents == {8, 9, 10}  # 12 not complete
    assert Plies(sealed, {12: 3}, COMPLETE).parents == {8, 9, 10, 11}  # rows read in too
    assert Plies({p: s for p, s in sealed.items() if p != 10}, {}, COMPLETE).parents == {8, 11}
    assert Plies(sealed, {}, ()).parents == frozenset()

"""``bookgen.book.read.compiled_keys``: the compiled walk from moves to keys gives
``keys.key_of``'s keys, and ``locate`` finds what a binary search finds."""

import random
import shutil

import numpy as np
import pytest
from test_keys import random_strings

from bookgen.book.format.keys import ABSENT, NOT_A_GAME, walker
from bookgen.book.read.compiled_keys import keys_of_many, locate, locate_parent, lower_bounds
from solver import STANDARD as B
from solver.bitboard import STANDARD

key_of = walker(STANDARD).key_of
mirror_bits, mirror_moves = STANDARD.mirror_bits, STANDARD.mirror_moves

BAD = ["8", "0", "4a", "44444444", "1111111", "4é", " 4", "12\x00", "44x53"]


def test_keys_of_many_equal_key_of():
    strings = random_strings(3000, seed=5) + BAD
    random.Random(6).shuffle(strings)
    text = "".join(strings).encode("ascii", "replace")
    keys, usable = keys_of_many(B, text, np.cumsum([len(s) for s in strings]))
    assert [
        int(k) if ok else None for k, ok in zip(keys.tolist(), usable.tolist(), strict=True)
    ] == [key_of(s) for s in strings]
    assert sum(not ok for ok in usable.tolist()) == len(BAD)
    assert keys_of_many(B, b"", np.zeros(0, np.int64))[0].tolist() == []
    assert keys_of_many(B, b"", np.zeros(2, np.int64))[0].tolist() == [0, 0]  # two empty boards


@pytest.mark.parametrize("size", [0, 1, 2, 7, 1000])
def test_lower_bounds_are_searchsorted_s_for_sorted_queries(size):
    rng = np.random.default_rng(size)
    keys = np.unique(rng.integers(10, 2**62, size, dtype=np.uint64))
    # Each key, a key's neighbours, repeats, and queries below the first and past the
    # last key; then a sparse sample, whose searches gallop far.
    near = np.concatenate([keys, keys, keys - 1, keys + 1, [0, 2**63]]).astype(np.uint64)
    for queries in (np.sort(near), np.sort(near)[::97]):
        assert lower_bounds(keys, queries).tolist() == keys.searchsorted(queries).tolist()
    assert lower_bounds(keys, np.empty(0, np.uint64)).tolist() == []


def test_locate_finds_each_key_and_says_which_orientation_is_stored():
    strings = sorted({s for s in random_strings(400, seed=7) if len(s) == 9})
    stored = sorted({min(key_of(s), mirror_bits(key_of(s))) for s in strings})
    keys = np.array(stored, np.uint64)
    for moves in strings:
        for asked in (moves, mirror_moves(moves)):
            where = locate(B, asked.encode(), keys)
            key = key_of(asked)
            assert where >= 0 and stored[where >> 1] == min(key, mirror_bits(key))
            assert where & 1 == (mirror_bits(key) < key), asked


@pytest.mark.parametrize(
    "moves, expected", [("4453", ABSENT), ("", ABSENT)] + [(bad, NOT_A_GAME) for bad in BAD]
)
def test_locate_misses(moves, expected):
    keys = np.array([key_of("444"), key_of("4444")], np.uint64)
    assert locate(B, moves.encode("ascii", "replace"), keys) == expected
    assert locate(B, moves.encode("ascii", "replace"), keys[:0]) == expected


# -- a parent's move scores, read from its children ---------------------------------------


def test_locate_parent_gives_the_derived_entry_in_the_askers_orientation(small_book_path):
    from conftest import book_moves
    from test_plies import read_plies

    from bookgen.book.format.scores import FULL_COLUMN_SCORE, SCORE_OFFSET
    from bookgen.book.read.entry import codes

    heads = codes(B).heads

    plies = read_plies(small_book_path)
    full_columns = 0
    for ply in (8, 9, 10, 11):
        family = plies.families[ply]
        for moves in book_moves(small_book_path, ply):
            for asked in (moves, mirror_moves(moves)):
                where, code, scores = locate_parent(B, asked.encode(), *family)
                scores = list(scores)
                canonical_code, canonical_packed = plies.at(ply, where >> 1)
                flipped = where & 1 == 1
                packed = canonical_packed[::-1] if flipped else canonical_packed
                assert scores == [
                    FULL_COLUMN_SCORE if b == 0 else b - SCORE_OFFSET for b in packed
                ], asked
                # the same score, and the same best moves as the canonical entry's mirrored
                assert heads[False][code] == heads[flipped][canonical_code], asked
                if not flipped:
                    assert code == canonical_code
                full_columns += FULL_COLUMN_SCORE in scores
    assert full_columns > 0  # the small book's root has a full column
    family = plies.families[8]
    assert locate_parent(B, b"4453", *family)[0] == ABSENT
    assert locate_parent(B, b"44444444", *family)[0] == NOT_A_GAME


def sealed_again(path: str, tmp_path, ply: int, segment) -> str:
    """A copy of the book at ``path`` with ``ply`` sealed anew as ``segment``: a book whose
    checksums hold, but whose plies disagree."""
    from bookgen.book.format.database import existing_meta
    from bookgen.book.write.store import BookStore

    copy = str(tmp_path / "sealed-again.db")
    shutil.copy(path, copy)
    meta = existing_meta(copy)
    assert meta is not None
    store = BookStore(copy, meta["root"], int(meta["root_key"]))
    store.seal(ply, segment)
    store.close()
    return copy


def test_locate_parent_reports_a_missing_child_and_the_reader_a_damaged_book(
    small_book_path, tmp_path
):
    from test_plies import COMPLETE, canonical, read_plies

    from bookgen import Book, CorruptBookError
    from bookgen.book.format.segment import Segment
    from bookgen.book.read.plies import Plies

    sealed = dict(read_plies(small_book_path).segments)
    keys, scores, best = sealed[12]
    gone = int(np.flatnonzero(keys == canonical("444444331112"))[0])
    sealed[12] = Segment(np.delete(keys, gone), np.delete(scores, gone), np.delete(best, gone))
    damaged = Plies(sealed, {}, COMPLETE, "some.db")
    assert locate_parent(B, b"44444433111", *damaged.families[11])[1] == -1
    # The same book, one position of its last ply gone.
    damaged_book = sealed_again(small_book_path, tmp_path, 12, sealed[12])
    with (
        Book.open(damaged_book) as book,
        pytest.raises(CorruptBookError, match="ply 12 lacks a child of a ply-11 position"),
    ):
        book.get("44444433111")


def test_a_parent_score_no_move_gives_is_a_damaged_book_not_an_answer(small_book_path, tmp_path):
    from test_plies import COMPLETE, canonical, read_plies

    from bookgen import Book, CorruptBookError
    from bookgen.book.format.segment import Segment
    from bookgen.book.read.plies import Plies

    sealed = dict(read_plies(small_book_path).segments)
    keys, scores, best = sealed[11]
    at = int(np.flatnonzero(keys == canonical("44444433111"))[0])
    changed = scores.copy()
    changed[at] = 21  # no child of this position scores -21
    sealed[11] = Segment(keys, changed, best)
    damaged = Plies(sealed, {}, COMPLETE, "some.db")
    where, code, _ = locate_parent(B, b"44444433111", *damaged.families[11])
    assert where >= 0 and code & 127 == 0
    damaged_book = sealed_again(small_book_path, tmp_path, 11, sealed[11])
    with (
        Book.open(damaged_book) as book,
        pytest.raises(CorruptBookError, match="a ply-11 position's score is no move's"),
    ):
        book.get("44444433111")


def test_the_last_cell_is_read_without_a_child(tmp_path):
    # Ply 42 is complete and empty (every position there is a finished game): at ply 41
    # each move wins or fills the board, so no child is read.
    from test_plies import segment

    from bookgen import Book
    from bookgen.book.format.scores import FULL_COLUMN_SCORE
    from bookgen.book.format.segment import Segment
    from bookgen.book.read.plies import Plies
    from bookgen.book.write.store import BookStore
    from solver import Position

    moves = "54712566226127126621574377157631535333444"
    assert Position.from_moves(moves).legal_moves() == [4]
    empty = Segment(np.empty(0, np.uint64), np.empty(0, np.int8), np.empty(0, np.uint8))
    plies = Plies({41: segment([(moves, 0, None)]), 42: empty}, {}, (41, 42))
    where, code, scores = locate_parent(B, moves.encode(), *plies.families[41])
    assert where >= 0 and list(scores) == [FULL_COLUMN_SCORE] * 3 + [0] + [FULL_COLUMN_SCORE] * 3
    assert code == plies.at(41, where >> 1)[0]
    # A book of these two plies: rooted at the ply-41 position.
    store = BookStore(str(tmp_path / "last.db"), moves, Position.from_moves(moves).canonical_key)
    store.seal(41, plies.segments[41])
    store.seal(42, empty)
    store.close()
    with Book.open(str(tmp_path / "last.db")) as book:
        entry = book.get(moves)
        mirrored = book.get(mirror_moves(moves))
    assert (entry.score, entry.best_moves) == (0, (4,))
    assert entry.move_scores == (None, None, None, 0, None, None, None)
    assert (mirrored.score, mirrored.best_moves, mirrored.move_scores) == (
        0,
        (4,),
        entry.move_scores,
    )

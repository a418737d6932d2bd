"""``bookgen.book.read.scan`` and ``Book.entries``: every stored position once, in key order, with
the smallest move string that reaches it and what ``Book.get`` says of it."""

import random
from itertools import product

import numpy as np
import pytest

from bookgen import Book
from bookgen.book.read.scan import PlyError, cells, mirrored, plies_of, slices
from solver import Position
from solver.errors import C4Error, IllegalMoveError


def smallest_strings(ply: int, board: str = "7x6") -> dict[int, str]:
    """Canonical key -> the smallest string reaching it, by trying every string in order."""
    found: dict[int, str] = {}
    for digits in product("1234567"[: int(board[0])], repeat=ply):
        try:
            position = Position.from_moves("".join(digits), board)
        except IllegalMoveError:
            continue
        if position.is_canonical and not position.is_won:
            found.setdefault(position.key, position.moves)
    return found


def test_entries_are_the_book_in_key_order(ply10_book):
    counts = ply10_book.count_by_ply()
    for ply in range(5):
        got = list(ply10_book.entries(ply=ply))
        assert len(got) == counts[ply]
        keys = [Position.from_moves(e.moves).key for e in got]
        assert keys == sorted(keys) and dict(
            zip(keys, (e.moves for e in got), strict=True)
        ) == smallest_strings(ply)
        assert got == ply10_book.get_many([e.moves for e in got])
    assert sum(1 for _ in ply10_book.entries()) == len(ply10_book)


def test_a_sample_of_each_deep_ply_is_what_get_says(ply10_book):
    rng = random.Random(40)
    for ply in (8, 9, 10):  # parents, whose move scores are derived; the last ply
        got = list(ply10_book.entries(ply))
        assert all(e.move_scores is None for e in got) == (ply == 10)
        for entry in rng.sample(got, 300):
            assert ply10_book.get(entry.moves) == entry


def test_a_book_kept_as_rows_gives_the_same_entries(small_book_path, small_rows_book_path):
    with Book.open(small_book_path) as packed, Book.open(small_rows_book_path) as rows:
        assert list(rows.entries()) == list(packed.entries())
        assert {e.moves[:8] for e in packed.entries()} <= {"44444433", "44444455"}  # the root


def test_any_board(six_by_five):
    with Book.open(six_by_five) as book:
        got = list(book.entries())
        assert len(got) == len(book) and {e.board for e in got} == {book.board}
        assert got == book.get_many([e.moves for e in got])
        assert {
            Position.from_moves(e.moves, "6x5").key: e.moves for e in got if e.ply == 4
        } == smallest_strings(4, "6x5")


def test_mirror_images_and_cells(ply10_book):
    board = ply10_book.board
    for part in slices(ply10_book, [6], size=1000):
        other = mirrored(part, board)
        symmetric = part.keys == board.mirror_bits(part.keys)
        assert other.size == part.size - symmetric.sum()
        assert (other.keys == board.mirror_bits(part.keys[~symmetric])).all()
        for i in range(0, other.size, 37):
            moves = (other.digits[i] + ord("0")).tobytes().decode()
            entry = ply10_book.get(moves)
            assert Position.from_moves(moves).key == other.keys[i]
            assert entry.score == other.scores[i] and entry.move_scores == tuple(
                None if s == 0 else int(s) - 64 for s in other.move_scores[i]
            )
            drawn = str(Position.from_moves(moves)).splitlines()[::-1][1:]
            assert cells(other, board)[i].tobytes().decode() == "".join(
                drawn[row].split()[col] for col in range(7) for row in range(6)
            )


@pytest.mark.parametrize(
    "asked, wanted",
    [
        (None, list(range(11))),
        (3, [3]),
        ("8-10", [8, 9, 10]),
        (" 9 ", [9]),
        (range(2, 4), [2, 3]),
        ([5, 4, 5], [4, 5]),
    ],
)
def test_plies_asked(ply10_book, asked, wanted):
    assert plies_of(ply10_book, asked) == wanted


@pytest.mark.parametrize(
    "asked, named",
    [
        (11, "ply 11 is not in the book"),
        ("8-", "'8-'"),
        ("9-8", "'9-8'"),
        ("x", "'x'"),
        ("٣", "'٣'"),
        ([], "no plies"),
        (True, "True"),
        (2.5, "2.5"),
    ],
)
def test_plies_refused(ply10_book, asked, named):
    with pytest.raises(PlyError, match=named) as raised:
        list(ply10_book.entries(asked))
    assert isinstance(raised.value, (C4Error, ValueError))


def test_slices_hold_their_arrays(ply10_book):
    part = next(slices(ply10_book, [9], size=500))
    assert part.size == 500 and part.digits.shape == (500, 9)
    assert part.digits.dtype == np.uint8 and part.move_scores.shape == (500, 7)

"""``bookgen.book.format.compiled_blocks``: a whole ply's two passes compiled, as numpy makes them.

What the stones say, on random positions of several boards at every ply, and
the keys' LEB128 gaps of every length: equal to ``implied`` and
``leb128.read_gaps``, refusals included; the shipped book's plies read whole
with them equal to the same plies read in numpy.
"""

import random

import numpy as np
import pytest
from conftest import SHIPPED

from bookgen.book.format import compiled_blocks
from bookgen.book.format.database import make_engine
from bookgen.book.format.implied import implied
from bookgen.book.format.keys import walker
from bookgen.book.format.leb128 import PAD, leb128, read_gaps
from bookgen.book.format.sealed import read_sealed, sealed_plies
from solver.bitboard import STANDARD, Board
from solver.position import Position

# 9x6 keeps best moves in two bytes; 8x7's keys take all 64 bits.
BOARDS = [Board(4, 4), Board(6, 5), STANDARD, Board(8, 7), Board(9, 6)]


def keys_at(board: Board, ply: int, count: int, seed: int) -> np.ndarray:
    """The sorted keys of up to ``count`` distinct unfinished positions of ``ply``: random
    games that never make a four (their last player to move may have one to make)."""
    rng, keys = random.Random(seed), set()
    for _ in range(count):
        position = Position(board=board)
        while position.ply < ply:
            playable = [c for c in position.legal_moves() if not position.is_winning_move(c)]
            if not playable:
                break
            position = position.play(rng.choice(playable))
        if position.ply == ply:
            keys.add(position.key)
    return np.array(sorted(keys), np.uint64)


@pytest.mark.parametrize("board", BOARDS, ids=str)
def test_what_the_stones_say_is_what_numpy_says(board):
    kinds = np.zeros(3, np.int64)
    for ply in range(board.cells):
        keys = keys_at(board, ply, 200, seed=ply)
        for best in (True, False):
            got, expected = (
                compiled_blocks.implied(keys, ply, board, best),
                implied(keys, ply, board, best),
            )
            for field, value, wanted in zip(got._fields, got, expected, strict=True):
                if wanted is None:
                    assert value is None, field
                else:
                    assert value.dtype == wanted.dtype, field
                    assert np.array_equal(value, wanted), (board, ply, field)
        said = implied(keys, ply, board)
        kinds += (said.scores > 0).sum(), (said.scores < 0).sum(), (~said.score_known).sum()
    assert (kinds > 0).all()  # wins, losses and unknowns all met


@pytest.mark.parametrize("passes", [compiled_blocks.implied, implied], ids=["compiled", "numpy"])
def test_a_key_of_another_ply_or_of_no_position_is_refused(passes):
    keys = keys_at(STANDARD, 9, 50, seed=1)
    with pytest.raises(ValueError, match="a key is not a position of 10 stones"):
        passes(keys, 10, STANDARD)
    # A column of all ones (it carries into the next), a bit past the last column: refused
    # at the ply their masks' stones give, too.
    for key in (127 << 21, (127 << 21) | 1, 1 << 49):
        bad = np.array([key], np.uint64)
        stones = int(walker(STANDARD).boards_of_keys(bad)[1][0]).bit_count()
        with pytest.raises(ValueError, match=f"a key is not a position of {stones} stones"):
            passes(bad, stones, STANDARD)


def test_gaps_of_every_length_read_as_numpy_reads_them():
    rng = np.random.default_rng(5)
    # 1 to 10 LEB128 bytes: from 0 to the largest 64-bit gap.
    values = np.concatenate(
        [rng.integers(0, 1 << bits, 300, dtype=np.uint64, endpoint=True) for bits in range(64)]
        + [np.array([0, (1 << 64) - 1], np.uint64)]
    )
    rng.shuffle(values)
    data = leb128(values)[0].tobytes()
    got, expected = np.empty_like(values), np.empty_like(values)
    compiled_blocks.read_gaps(data, got)
    read_gaps(data + PAD, expected)
    assert np.array_equal(got, values) and np.array_equal(expected, values)


@pytest.mark.parametrize(
    "data, count, why",
    [
        (bytes([0x85, 0x01, 0x85]), 2, "one cut short"),  # the last gap never ends
        (bytes([0xFF] * 10 + [0x01]), 1, "longer than 64 bits"),  # eleven bytes
        (bytes([0x05, 0x06, 0x07]), 2, "holds 3 gaps, not 2"),
        (bytes([0x05, 0x06]), 3, "holds 2 gaps, not 3"),
    ],
)
def test_gaps_that_are_not_the_blocks_are_refused(data, count, why):
    with pytest.raises(ValueError, match=why):
        compiled_blocks.read_gaps(data, np.zeros(count, np.uint64))


@pytest.fixture(scope="module")
def shipped():
    if not SHIPPED.exists():
        pytest.skip("no book.db at the top level")
    engine = make_engine(str(SHIPPED), readonly=True)
    with engine.connect() as conn:
        yield conn, sealed_plies(conn, STANDARD, str(SHIPPED))
    engine.dispose()


@pytest.mark.parametrize(
    "plies",
    [range(12), pytest.param(range(12, 15), marks=pytest.mark.slow)],
    ids=["plies 0-11", "plies 12-14"],
)
def test_the_shipped_books_plies_read_whole_alike(shipped, plies):
    # Plies 0-11 by default (1.9 M positions; a dictionary from ply 7); the larger ones take
    # seconds in numpy (ply 14: 2.7 s).
    conn, sealed = shipped
    for ply in plies:
        if ply not in sealed:
            continue
        compiled = read_sealed(conn, sealed[ply], STANDARD, str(SHIPPED), compiled=True)
        plain = read_sealed(conn, sealed[ply], STANDARD, str(SHIPPED))
        for field, value, wanted in zip(compiled._fields, compiled, plain, strict=True):
            assert (value is None) == (wanted is None), field
            if value is not None:
                assert np.array_equal(value, wanted), (ply, field)
                assert value.flags.writeable == wanted.flags.writeable  # (cached: read-only)

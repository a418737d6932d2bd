"""``bookgen.book.format.wide_cells``: cells past 64 bits in numpy, against Python integers.

Every operation on random 128-bit pairs is the Python integers' own; the
winning cells, a key's stones and the columns of cells on random positions
of boards past 64 bits are ``Board.winning_cells`` on Python integers (any
width) and ``Position``'s.
"""

import random

import numpy as np
import pytest

from bookgen.book.format import wide_cells as wc
from bookgen.book.format.wide_keys import ints_of, rows_of
from solver.bitboard import Board
from solver.position import random_position

WIDE = [Board(8, 8), Board(9, 7), Board(5, 12), Board(9, 13), Board(4, 31)]  # 72 to 128 bits
TOP = (1 << 128) - 1


def pair_of(values: list[int]) -> wc.Pair:
    return wc.of_rows(rows_of(values))


def ints(pair: wc.Pair) -> list[int]:
    return ints_of(pair.T)


def test_operations_are_those_of_128_bit_integers():
    rng = random.Random(1)
    a = [rng.getrandbits(rng.choice((3, 64, 70, 128))) for _ in range(400)]
    b = [rng.getrandbits(rng.choice((3, 64, 70, 128))) for _ in range(400)]
    a[:4], b[:4] = [0, TOP, 1 << 64, (1 << 64) - 1], [TOP, 1, 1, 1]  # carries and borrows
    x, y = pair_of(a), pair_of(b)
    assert ints(wc.add(x, y)) == [(p + q) & TOP for p, q in zip(a, b, strict=True)]
    assert ints(wc.sub(x, y)) == [(p - q) & TOP for p, q in zip(a, b, strict=True)]
    assert ints(x & ~y) == [p & ~q for p, q in zip(a, b, strict=True)]  # (numpy alone)
    for s in (0, 1, 3, 9, 63, 64, 65, 100, 127):
        assert ints(wc.shl(x, s)) == [(p << s) & TOP for p in a], s
        assert ints(wc.shr(x, s)) == [p >> s for p in a], s
    assert wc.popcount(x).tolist() == [p.bit_count() for p in a]
    assert wc.several(x).tolist() == [p.bit_count() > 1 for p in a]
    assert wc.nonzero(x).tolist() == [p != 0 for p in a]
    assert ints(wc.add(x, wc.constant(1 << 64 | 5))) == [(p + (1 << 64 | 5)) & TOP for p in a]


@pytest.mark.parametrize("board", WIDE, ids=str)
def test_stones_winning_cells_and_columns_of_random_positions(board):
    rng = random.Random(board.cells)
    # (random games past 40 stones end before their ply too often: slow to find)
    plies = min(board.cells * 2 // 3, 40)
    positions = [random_position(rng, rng.randrange(plies), board) for _ in range(200)]
    keys = pair_of([p.key for p in positions])
    current, mask = wc.boards_of_keys(board, keys)
    assert ints(current) == [p.current for p in positions]
    assert ints(mask) == [p.mask for p in positions]
    wins = wc.winning_cells(board, current, mask)
    assert ints(wins) == [board.winning_cells(p.current, p.mask) for p in positions]
    filled = [
        sum(1 << c for c in range(board.width) if p.mask & board.column_masks[c]) for p in positions
    ]
    columns = wc.columns(board, mask)
    assert columns.dtype == np.dtype(board.column_set_type) and columns.tolist() == filled

"""``solver.wide.parent_bounds``: the parents' bounds past 64 bits, against Python and the solver.

A key's parents are those that taking back a last-mover's top stone gives,
as ``Position`` finds them; on a solved 8x8 book every bound holds, every
exact one is the score, and a position after a parent's best move is told
its score before any search (the one-word test: test_parent_bounds.py).
"""

import random

import numpy as np
from conftest import WIDE_PLY, WIDE_ROOT, best_bits

from bookgen.book.format.wide_keys import ints_of, rows_of
from solver import Position, Solver
from solver.bitboard import Board
from solver.parent_bounds import NO_BOUND, Parents, parents_of
from solver.position import random_position

BOARDS = [Board(8, 8), Board(9, 7), Board(4, 31)]  # 72, 72 and 128 bits


def taken_back(position: Position) -> set[int]:
    """The canonical keys one move before ``position``, by Python integers: each column
    whose top stone is the last mover's, that stone taken away."""
    board, last = position.board, position.current ^ position.mask
    found = set()
    for col in range(board.width):
        cells = position.mask & board.column_masks[col]
        if not cells:
            continue
        top = 1 << (cells.bit_length() - 1)
        if last & top:
            mask = position.mask ^ top
            raw = (last ^ top) + mask
            found.add(min(raw, board.mirror_bits(raw)))
    return found


def test_parents_are_the_positions_one_stone_back():
    for board in BOARDS:
        rng = random.Random(board.cells)
        for _ in range(60):
            position = random_position(rng, rng.randrange(1, 40), board)
            parents = parents_of(position.key, board)
            assert parents.shape[1] == 2 and ints_of(parents) == sorted(taken_back(position))
    # The two-word keys past 2**64 alone: 8x8's column 8 starts at bit 63.
    board = Board(8, 8)
    position = Position.from_moves("8888", board)
    assert ints_of(parents_of(position.key, board)) == sorted(taken_back(position))
    assert position.key >> 64


def test_a_solved_8x8_ply_bounds_the_next(wide_plies):
    board = Board(8, 8)
    solver = Solver(table_log2=20, board=board)
    above, below = wide_plies[WIDE_PLY - 1], wide_plies[WIDE_PLY]
    from solver.wide.packed import positions_of_keys

    best = [best_bits(solver.analyze(p)) for p in positions_of_keys(above.keys, WIDE_ROOT, board)]
    parents = Parents(above.keys, above.scores, np.array(best, np.uint8), board)
    bounds = parents.bounds(below.keys)
    assert (bounds.low != NO_BOUND).all()  # every position has a parent in the ply above
    assert (bounds.low <= below.scores).all()
    assert (bounds.low[bounds.exact] == below.scores[bounds.exact]).all()
    assert 0 < bounds.exact.sum() < len(below.keys)
    # Keys in any order and orientation: mirrored, they are bounded alike.
    mirrored = rows_of([board.mirror_bits(k) for k in ints_of(below.keys)])
    again = parents.bounds(mirrored[::-1].copy())
    assert again.low[::-1].tolist() == bounds.low.tolist()
    assert again.exact[::-1].tolist() == bounds.exact.tolist()
    # Without best moves: lower bounds alone, never exact; with no parent, no bound.
    loose = Parents(above.keys, above.scores, np.zeros(len(above.keys), np.uint8), board)
    assert loose.bounds(below.keys).low.tolist() == bounds.low.tolist()
    assert not loose.bounds(below.keys).exact.any()
    none = Parents(above.keys[:0], above.scores[:0], np.zeros(0, np.uint8), board)
    assert (none.bounds(below.keys).low == NO_BOUND).all()

"""Tests for ``solver._key``: mirror-canonical keys, and dead stones that never change a score."""

import random

import numpy as np
import pytest

from solver import STANDARD as B
from solver import Board, Position, Solver
from solver._bits import mirror
from solver._key import dead_stones, table_key

WIDTH, HEIGHT, H1, BOARD, COLUMN_MASKS = B.width, B.height, B.h1, B.all_cells, B.column_masks
mirror_bits = B.mirror_bits
OTHER_BOARDS = [Board(4, 4), Board(6, 5), Board(8, 7), Board(9, 6), Board(4, 15)]


def lines_of_four():
    """Every line of four on the board, as a set of cell bits."""
    lines = []
    for col in range(WIDTH):
        for row in range(HEIGHT):
            for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(col + k * dc, row + k * dr) for k in range(4)]
                if all(0 <= c < WIDTH and 0 <= r < HEIGHT for c, r in cells):
                    lines.append(sum(1 << (r + c * H1) for c, r in cells))
    return lines


LINES = lines_of_four()


def dead_by_definition(position, mask):
    """Stones every line of which holds both colours among the other stones that are not flipped.

    Written straight from the definition, line by line: first the stones that
    are dead one at a time, then those whose lines stay closed when all of
    those are flipped together.
    """
    other = position ^ mask

    def closed(cell, a, b):
        return all(line & a & ~cell and line & b & ~cell for line in LINES if line & cell)

    single = [1 << i for i in range(64) if mask >> i & 1 and closed(1 << i, position, other)]
    flipped = sum(single)
    return sum(c for c in single if closed(c, position & ~flipped, other & ~flipped))


def random_positions(count, seed, low, high):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        p, stop = Position(), rng.randint(low, high)
        while p.ply < stop and not p.is_game_over:
            p = p.play(rng.choice(p.legal_moves()))
        if not p.is_game_over:
            found.append(p)
    return found


def test_lines_of_four_count():
    assert len(LINES) == 69  # 21 vertical, 24 horizontal, 12 + 12 diagonal


def test_mirror_matches_python_helper():
    for p in random_positions(200, seed=1, low=0, high=40):
        assert int(mirror(B, np.uint64(p.key))) == mirror_bits(p.key) == p.mirror().key
    assert int(mirror(B, np.uint64(BOARD))) == BOARD
    assert int(mirror(B, np.uint64(COLUMN_MASKS[0]))) == COLUMN_MASKS[6]


@pytest.mark.parametrize("board", OTHER_BOARDS, ids=str)
def test_mirror_on_other_boards(board):
    rng = random.Random(5)
    for _ in range(200):
        p = Position(board)
        while not p.is_game_over and rng.random() < 0.95:
            p = p.play(rng.choice(p.legal_moves()))
        by_column = sum(
            ((p.key >> (col * board.h1)) & ((1 << board.h1) - 1))
            << ((board.width - 1 - col) * board.h1)
            for col in range(board.width)
        )
        assert board.mirror_bits(p.key) == by_column == p.mirror().key
        assert int(mirror(board, np.uint64(p.key))) == by_column
    assert int(mirror(board, np.uint64(board.all_cells))) == board.all_cells
    assert int(mirror(board, np.uint64(board.column_masks[0]))) == board.column_masks[-1]


def test_python_mirror_reverses_columns_of_ints_and_uint64_arrays():
    positions = random_positions(200, seed=3, low=0, high=42)
    for p in positions:
        by_column = sum(
            ((p.key >> (col * H1)) & ((1 << H1) - 1)) << ((WIDTH - 1 - col) * H1)
            for col in range(WIDTH)
        )
        assert mirror_bits(p.key) == by_column
    keys = np.array([p.key for p in positions], dtype=np.uint64)
    mirrored = mirror_bits(keys)
    assert mirrored.dtype == np.uint64
    assert mirrored.tolist() == [mirror_bits(p.key) for p in positions]


def test_table_key_is_the_smaller_of_position_and_mirror():
    for p in random_positions(200, seed=2, low=1, high=30):
        key, mirrored = table_key(B, np.uint64(p.current), np.uint64(p.mask))
        twin, twin_mirrored = table_key(
            B, np.uint64(p.mirror().current), np.uint64(p.mirror().mask)
        )
        assert int(key) == int(twin) == p.canonical_key
        assert mirrored == (p.mirror_key < p.key)
        if p.key != p.mirror_key:
            assert mirrored != twin_mirrored


def test_dead_stones_match_the_definition():
    positions = random_positions(300, seed=3, low=20, high=41)
    seen = 0
    for p in positions:
        got = int(dead_stones(B, np.uint64(p.current), np.uint64(p.mask)))
        assert got == dead_by_definition(p.current, p.mask), p.moves
        seen += got != 0
    assert seen > 50  # late positions often have dead stones


def open_lines(mine, theirs):
    """Lines of four that ``mine`` could still complete: none of ``theirs`` on them."""
    return frozenset(line for line in LINES if not line & theirs)


def single_dead(position, mask):
    """Stones dead when flipped one at a time (the first pass only)."""
    other = position ^ mask
    return sum(
        1 << i
        for i in range(64)
        if mask >> i & 1
        and all(
            line & position & ~(1 << i) and line & other & ~(1 << i)
            for line in LINES
            if line >> i & 1
        )
    )


def test_flipping_dead_stones_keeps_every_open_line():
    unsafe = 0
    for p in random_positions(300, seed=5, low=20, high=41):
        mover, other = p.current, p.current ^ p.mask
        before = (open_lines(mover, other), open_lines(other, mover))
        dead = int(dead_stones(B, np.uint64(mover), np.uint64(p.mask)))
        after = (open_lines(mover | dead, other & ~dead), open_lines(other & ~dead, mover | dead))
        assert after == before, p.moves
        # The first pass alone would not be safe to flip all at once.
        single = single_dead(mover, p.mask)
        flipped = (
            open_lines(mover | single, other & ~single),
            open_lines(other & ~single, mover | single),
        )
        unsafe += flipped != before
    assert unsafe > 0


@pytest.fixture(scope="module")
def positions_with_dead_stones():
    """Positions from random games (plies 24-34) that have dead stones, each with the stones flipped."""
    found = []
    for p in random_positions(400, seed=4, low=24, high=34):
        dead = int(dead_stones(B, np.uint64(p.current), np.uint64(p.mask)))
        flipped_current = p.current | dead  # keyed as if the player to move owned them
        if dead and flipped_current != p.current:
            found.append((p, flipped_current))
    return found[:40]


def test_dead_stones_never_change_a_score(positions_with_dead_stones):
    """Solve each position as it is and with its dead stones given to the player to move."""
    assert len(positions_with_dead_stones) == 40
    solver = Solver(table_log2=20)
    for p, flipped_current in positions_with_dead_stones:
        # Same stones, some recoloured: no move string leads there, so the
        # original one stands in for the ply count only.
        flipped = Position._raw(flipped_current, p.mask, p.moves, False)
        assert not flipped.is_game_over
        solver.clear()
        plain = solver.solve(p)
        solver.clear()
        score = solver.solve(flipped)
        assert score == plain, p.moves

"""Tests for ``solver._key``: mirror-canonical keys, and dead stones that never change a score."""

import random

import numpy as np
import pytest
from conftest import minimax, random_endgames, scores_by_children

from solver import STANDARD as B
from solver import Board, Position, Solver
from solver._bits import mirror
from solver._key import canonical_key, dead_stones, table_key

WIDTH, HEIGHT, H1, BOARD, COLUMN_MASKS = B.width, B.height, B.h1, B.all_cells, B.column_masks
mirror_bits = B.mirror_bits
OTHER_BOARDS = [Board(4, 4), Board(6, 5), Board(8, 7), Board(9, 6), Board(4, 15)]


def lines_of_four(board=B):
    """Every line of four on the board, as a set of cell bits."""
    lines = []
    for col in range(board.width):
        for row in range(board.height):
            for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(col + k * dc, row + k * dr) for k in range(4)]
                if all(0 <= c < board.width and 0 <= r < board.height for c, r in cells):
                    lines.append(sum(1 << (r + c * board.h1) for c, r in cells))
    return lines


LINES = lines_of_four()
WIDE = Board.parse("4x10")  # the board whose table keys dead stones


def dead_by_definition(position, mask, board=B):
    """Stones every line of which with an empty cell holds both colours among the
    other stones that are not flipped.

    Written straight from the definition, line by line: first the stones that
    are dead one at a time, then those whose lines stay closed when all of
    those are flipped together.  A line with no empty cell can never be
    completed, so it closes nothing and opens nothing.
    """
    other = position ^ mask
    live = [line for line in lines_of_four(board) if line & ~mask]

    def closed(cell, a, b):
        return all(line & a & ~cell and line & b & ~cell for line in live if line & cell)

    single = [1 << i for i in range(64) if mask >> i & 1 and closed(1 << i, position, other)]
    flipped = sum(single)
    return sum(c for c in single if closed(c, position & ~flipped, other & ~flipped))


def random_positions(count, seed, low, high, board=B):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        p, stop = Position(board), rng.randint(low, high)
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


@pytest.mark.parametrize("board", [B, WIDE, Board(5, 5), Board(8, 7)], ids=str)
def test_dead_stones_match_the_definition(board):
    positions = random_positions(
        300, seed=3, low=board.cells // 2, high=board.cells - 1, board=board
    )
    seen = 0
    for p in positions:
        got = int(dead_stones(board, np.uint64(p.current), np.uint64(p.mask)))
        assert got == dead_by_definition(p.current, p.mask, board), p.moves
        seen += got != 0
    assert seen > 50  # late positions often have dead stones


def test_a_full_line_closes_nothing():
    # 4x10 after 1123334: the bottom row is full (X X O X), so it can never be
    # completed; the O in column 3 is on no other line than its column, where
    # X and O above it close every line: dead, though the row alone would make
    # a four of X's if it turned X.
    p = Position.from_moves("1123334", WIDE)
    dead = int(dead_stones(WIDE, np.uint64(p.current), np.uint64(p.mask)))
    assert dead == dead_by_definition(p.current, p.mask, WIDE) == 1 << 2 * WIDE.h1


def open_lines(mine, theirs, mask, board=B):
    """Lines of four that ``mine`` could still complete: an empty cell and none of ``theirs``."""
    return frozenset(line for line in lines_of_four(board) if line & ~mask and not line & theirs)


def single_dead(position, mask, board=B):
    """Stones dead when flipped one at a time (the first pass only)."""
    other = position ^ mask
    live = [line for line in lines_of_four(board) if line & ~mask]
    return sum(
        1 << i
        for i in range(64)
        if mask >> i & 1
        and all(
            line & position & ~(1 << i) and line & other & ~(1 << i)
            for line in live
            if line >> i & 1
        )
    )


@pytest.mark.parametrize("board", [B, WIDE], ids=str)
def test_flipping_dead_stones_keeps_every_open_line(board):
    unsafe = 0
    for p in random_positions(300, seed=5, low=board.cells // 2, high=board.cells - 1, board=board):
        mover, other, mask = p.current, p.current ^ p.mask, p.mask
        before = (open_lines(mover, other, mask, board), open_lines(other, mover, mask, board))
        dead = int(dead_stones(board, np.uint64(mover), np.uint64(mask)))
        after = (
            open_lines(mover | dead, other & ~dead, mask, board),
            open_lines(other & ~dead, mover | dead, mask, board),
        )
        assert after == before, p.moves
        # The first pass alone would not be safe to flip all at once.
        single = single_dead(mover, mask, board)
        flipped = (
            open_lines(mover | single, other & ~single, mask, board),
            open_lines(other & ~single, mover | single, mask, board),
        )
        unsafe += flipped != before
    assert unsafe > 0


def flipped(p, stones):
    """``p`` with ``stones`` given to the player to move, or None when that makes a four
    (a position no game reaches, though its key stays a key)."""
    board = p.board
    current, other = p.current | stones, (p.current ^ p.mask) & ~stones
    if board.has_four(current) or board.has_four(other):
        return None
    # Same stones, some recoloured: no move string leads there, so the
    # original one stands in for the ply count only.
    return Position._raw(current, p.mask, p.moves, False, board)


@pytest.fixture(scope="module")
def positions_with_dead_stones():
    """Positions from random games (plies 24-34) that have dead stones, each with the stones flipped."""
    found = []
    for p in random_positions(400, seed=4, low=24, high=34):
        dead = int(dead_stones(B, np.uint64(p.current), np.uint64(p.mask)))
        twin = flipped(p, dead)  # keyed as if the player to move owned them
        if twin is not None and twin.current != p.current:
            found.append((p, twin.current))
    return found[:40]


def test_dead_stones_never_change_a_score(positions_with_dead_stones):
    """Solve each position as it is and with its dead stones given to the player to move."""
    assert len(positions_with_dead_stones) == 40
    solver = Solver(table_log2=20)
    for p, flipped_current in positions_with_dead_stones:
        # Same stones, some recoloured: no move string leads there, so the
        # original one stands in for the ply count only.
        twin = Position._raw(flipped_current, p.mask, p.moves, False)
        solver.clear()
        plain = solver.solve(p)
        solver.clear()
        score = solver.solve(twin)
        assert score == plain, p.moves


def width_four_twins(count, seed, board=WIDE, empty=(8, 13)):
    """Endgames of a width-4 board (4x10, 8-13 empty cells, unless told) with dead stones,
    each beside itself with all of them and with every other of them given to the player
    to move."""
    found = []
    low, high = empty
    for p in random_endgames(8 * count, seed=seed, min_empty=low, max_empty=high, board=board):
        dead = int(dead_stones(board, np.uint64(p.current), np.uint64(p.mask)))
        cells = [1 << i for i in range(64) if dead >> i & 1]
        twins = [flipped(p, dead), flipped(p, sum(cells[::2]))]
        twins = [t for t in twins if t is not None and t.current != p.current]
        if twins:
            found.append((p, twins))
    return found[:count]


def test_width_four_keys_dead_stones_and_never_changes_a_score():
    """On width 4 the table keys a position as if the player to move owned its dead
    stones: such twins share the key, and plain minimax scores them the same."""
    pairs = width_four_twins(30, seed=9)
    assert len(pairs) == 30
    for p, twins in pairs:
        key = table_key(WIDE, np.uint64(p.current), np.uint64(p.mask))[0]
        assert key != canonical_key(WIDE, np.uint64(p.current), np.uint64(p.mask))[0]
        for twin in twins:
            assert minimax(twin) == minimax(p), p.moves
            if twin.current == p.current | int(
                dead_stones(WIDE, np.uint64(p.current), np.uint64(p.mask))
            ):
                assert table_key(WIDE, np.uint64(twin.current), np.uint64(p.mask))[0] == key


# 4x4's search kernels are compiled by other tests (test_engine's every 4x4 position);
# 4x10's, for this test alone, take 30 s cold.
@pytest.mark.parametrize(
    "size, empty", [("4x4", (4, 9)), pytest.param("4x10", (8, 13), marks=pytest.mark.slow)]
)
def test_width_four_twins_share_entries_and_stay_exact(size, empty):
    """Twins solved one after another with one table, so that each reads what the
    others stored under their shared keys: every answer is minimax's."""
    board = Board.parse(size)
    solver = Solver(board=board, table_log2=14)
    pairs = width_four_twins(16, seed=10, board=board, empty=empty)
    assert len(pairs) == 16
    for i, (p, twins) in enumerate(pairs):
        for q in [p, *twins]:
            score = minimax(q)
            assert solver.solve(q) == score, q.moves
            assert solver.solve(q, weak=True) == (score > 0) - (score < 0), q.moves
            if i % 4 == 0:
                assert solver.analyze(q) == scores_by_children(q, minimax), q.moves

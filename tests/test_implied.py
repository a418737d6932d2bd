"""``bookgen.book.format.implied``: what a position's stones say, checked against the solver.

Where ``implied`` says a score or best moves, they are the solver's, on random
positions of several boards; what it leaves out, ``fill_in`` puts back; an
entry its stones contradict is refused, naming the position.
"""

import random

import numpy as np
import pytest

from bookgen.book.format.implied import _columns, _gather, fill_in, implied, leave_out
from bookgen.book.format.keys import walker
from bookgen.book.format.wide_keys import ints_of, rows_of
from solver import Solver
from solver.bitboard import STANDARD, Board
from solver.position import Position, random_position

# Boards whose kernels other tests of the default run compile too (a board's first solve
# compiles them, 20-35 s); 8x7's keys take all 64 bits.  9x4 (slow: its own compile) turns
# its cells into columns by a loop, the others by one multiplication (``_gather``).
BOARDS = [Board(4, 4), Board(6, 5), STANDARD, Board(8, 7), Board(9, 4)]
SOLVED = [*BOARDS[:-1], pytest.param(BOARDS[-1], marks=pytest.mark.slow)]


def positions_at(board: Board, ply: int, count: int, seed: int) -> list[Position]:
    """``count`` distinct unfinished positions at ``ply``, sorted by key."""
    rng = random.Random(seed)
    found = {p.key: p for p in (random_position(rng, ply, board) for _ in range(count))}
    return [found[key] for key in sorted(found)]


def truth(solver: Solver, position: Position) -> tuple[int, int]:
    """The solver's score and best moves (a column set) of ``position``."""
    scores = solver.analyze(position)
    score = max(s for s in scores if s is not None)
    return score, sum(1 << col for col, s in enumerate(scores) if s == score)


@pytest.mark.parametrize("board", SOLVED, ids=str)
def test_what_the_stones_say_is_what_the_solver_finds(board):
    solver = Solver(board=board, table_log2=20)
    ply = board.cells - 12 if board.cells > 24 else board.cells // 2 + 1
    kinds = set()
    for at_ply in (ply, ply + 1):
        positions = positions_at(board, at_ply, 200, seed=board.cells)
        keys = np.array([p.key for p in positions], np.uint64)
        said = implied(keys, at_ply, board)
        for n, position in enumerate(positions):
            score, best = truth(solver, position)
            if said.score_known[n]:
                assert int(said.scores[n]) == score, position.moves
                kinds.add("win" if score > 0 else "loss")
            if said.best_known[n]:
                assert int(said.best[n]) == best, position.moves
                kinds.add("best")
            else:
                assert int(said.best[n]) == 0 and not said.score_known[n]
    assert kinds == {"win", "loss", "best"}  # each kind met


def test_the_three_kinds_on_known_positions():
    keys = np.array([Position.from_moves(m).key for m in ("112233", "1122", "12121")], np.uint64)
    # "112233": x wins in column 4; "1122": nothing said; "12121": o must block column 1.
    win = implied(keys[:1], 6, STANDARD)
    assert win.score_known[0] and win.scores[0] == STANDARD.win_score(6) == 18
    assert win.best[0] == 1 << 3
    nothing = implied(keys[1:2], 4, STANDARD)
    assert not nothing.score_known[0] and not nothing.best_known[0]
    only = implied(keys[2:], 5, STANDARD)
    assert not only.score_known[0] and only.best_known[0] and only.best[0] == 1 << 0
    lose = Position.from_moves("22334")  # o to move; x threatens columns 1 and 5
    said = implied(np.array([lose.key], np.uint64), 5, STANDARD)
    assert said.score_known[0] and said.scores[0] == STANDARD.loss_score(5) == -18
    assert said.best[0] == 0b1111111  # every move loses alike


def test_leave_out_and_fill_in_undo_each_other():
    board = Board(6, 5)
    solver = Solver(board=board, table_log2=20)
    positions = positions_at(board, 17, 200, seed=3)
    keys = np.array([p.key for p in positions], np.uint64)
    truths = [truth(solver, p) for p in positions]
    scores = np.array([t[0] for t in truths], np.int8)
    best = np.array([t[1] for t in truths], np.uint8)
    said, kept_scores, kept_best = leave_out(keys, scores, best, 17, board)
    assert kept_best is not None
    assert len(kept_scores) < len(scores) and len(kept_best) < len(best)
    back_scores, back_best = fill_in(implied(keys, 17, board), kept_scores, kept_best)
    assert np.array_equal(back_scores, scores) and np.array_equal(back_best, best)
    back_scores, none = fill_in(implied(keys, 17, board), kept_scores, None)
    assert np.array_equal(back_scores, scores) and none is None
    with pytest.raises(ValueError, match=r"keeps .* scores for"):
        fill_in(implied(keys, 17, board), kept_scores[1:], kept_best)
    with pytest.raises(ValueError, match=r"keeps .* best moves for"):
        fill_in(implied(keys, 17, board), kept_scores, kept_best[1:])
    # An entry that its stones contradict: refused, naming the position's key.
    at = int(np.argmax(said.score_known))
    wrong = scores.copy()
    wrong[at] = 0
    with pytest.raises(ValueError, match=f"position {int(keys[at]):#x} holds score 0"):
        leave_out(keys, wrong, best, 17, board)
    at = int(np.argmax(said.best_known & ~said.score_known))
    other = best.copy()
    other[at] ^= 1
    with pytest.raises(ValueError, match=f"position {int(keys[at]):#x}"):
        leave_out(keys, scores, other, 17, board)


@pytest.mark.parametrize("board", [*BOARDS, Board(4, 15), Board(9, 6)], ids=str)
def test_columns_of_cells_and_winning_cells(board):
    rng = random.Random(board.cells)
    # (deeper random games end before their ply too often: each tried again)
    positions = [
        random_position(rng, rng.randrange(board.cells * 2 // 3), board) for _ in range(300)
    ]
    current, mask = walker(board).boards_of_keys(np.array([p.key for p in positions], np.uint64))
    assert _gather(board) is None or board.width <= board.height + 1
    columns = _columns(mask, board)
    assert columns.dtype == np.dtype(board.column_set_type)
    for n, position in enumerate(positions):
        assert int(current[n]) + int(mask[n]) == position.key
        filled = [col for col in range(board.width) if position.mask & board.column_masks[col]]
        assert int(columns[n]) == sum(1 << col for col in filled)
        wins = {col for col in position.legal_moves() if position.is_winning_move(col)}
        cells = board.winning_cells(current[n : n + 1], mask[n : n + 1])
        playable = (mask[n] + np.uint64(board.bottom)) & np.uint64(board.all_cells)
        assert int(_columns(cells & playable, board)[0]) == sum(1 << (c - 1) for c in wins)


# -- keys past 64 bits ----------------------------------------------------------------


def rules(position: Position) -> tuple[int | None, int | None]:
    """``(score, best moves)`` that the rules alone give ``position`` (None: unsaid), move by
    move with ``Position`` (columns from 1): a win at once; else the moves after which the opponent cannot
    win at once: none (a loss, every move alike) or one (the best)."""
    board, ply, moves = position.board, position.ply, position.legal_moves()
    wins = [c for c in moves if position.is_winning_move(c)]
    if wins:
        return board.win_score(ply), sum(1 << (c - 1) for c in wins)
    safe = [
        c
        for c in moves
        if not any(position.play(c).is_winning_move(d) for d in position.play(c).legal_moves())
    ]
    if not safe:
        return board.loss_score(ply), sum(1 << (c - 1) for c in moves)
    return None, (1 << (safe[0] - 1)) if len(safe) == 1 else None


@pytest.mark.parametrize("board", [Board(8, 8), Board(9, 7), Board(5, 12), Board(4, 31)], ids=str)
def test_past_64_bits_what_the_stones_say_is_what_the_rules_say(board):
    kinds = set()
    for ply in range(12, 30, 3):
        positions = positions_at(board, ply, 150, seed=ply)
        keys = rows_of([p.key for p in positions])
        said = implied(keys, ply, board)
        assert said.best is not None and said.best.dtype == np.dtype(board.column_set_type)
        for n, position in enumerate(positions):
            score, best = rules(position)
            assert bool(said.score_known[n]) == (score is not None), position.moves
            assert int(said.scores[n]) == (score or 0), position.moves
            assert bool(said.best_known[n]) == (best is not None), position.moves
            assert int(said.best[n]) == (best or 0), position.moves
            kinds.add("win" if score and score > 0 else "loss" if score else "best" if best else "")
    assert kinds == {"win", "loss", "best", ""}
    with pytest.raises(ValueError, match="not a position of 13 stones"):
        implied(keys, 13, board)


def test_past_64_bits_leave_out_and_fill_in_a_solved_8x8_book(wide_plies):
    board = Board(8, 8)
    left_out = 0
    for ply, segment in wide_plies.items():
        _, kept_scores, kept_best = leave_out(
            segment.keys, segment.scores, segment.best, ply, board
        )
        left_out += len(segment.scores) - len(kept_scores)
        scores, best = fill_in(implied(segment.keys, ply, board), kept_scores, kept_best)
        assert np.array_equal(scores, segment.scores)
        assert (best is None) == (segment.best is None)
        assert best is None or np.array_equal(best, segment.best)
    assert left_out > 0
    last = wide_plies[max(wide_plies)]
    at = int(np.argmax(implied(last.keys, max(wide_plies), board).score_known))
    wrong = last.scores.copy()
    wrong[at] = 0
    key = ints_of(last.keys[at : at + 1])[0]
    with pytest.raises(ValueError, match=f"position {key:#x} holds score 0"):
        leave_out(last.keys, wrong, last.best, max(wide_plies), board)

"""The solver agrees with the published results on other boards (scripts/solve_boards.py).

Who wins each board, and on which move, was found by other programs (Tromp,
Steininger), so these are the check that the solver is right beyond 7x6.  The
small boards run by default; every other board up to 42 cells is slow (about
a minute in all once their kernels are compiled, 8x5 and 7x6 some 20 s each).
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from solve_boards import (
    DRAW,
    FIRST,
    PUBLISHED,
    SECOND,
    check,
    last_move,
    main,
    published_score,
    sizes_up_to,
    solve_empty,
)

from solver import Board

# Each takes well under a second to solve; the first run also compiles the board's
# kernels (6-15 s each), later runs load them from numba's cache: the boards that other
# tests compile anyway.  (6x4, the smallest that the second player wins, is slow.)
FAST = ["4x4", "6x5"]
SLOW = [str(board) for board in sizes_up_to(42) if str(board) not in FAST]


def expect(size: str) -> tuple[str, int, int]:
    board = Board.parse(size)
    result, move = PUBLISHED[(board.width, board.height)]
    return result, published_score(board, result, move), move


def assert_published(size: str, table_log2: int) -> None:
    row = solve_empty(size, table_log2=table_log2)
    assert (row["outcome"], row["score"], row["last_move"]) == expect(size), row
    assert check(row) is None


@pytest.mark.parametrize("size", FAST)
def test_small_boards_agree_with_the_published_table(size):
    assert_published(size, table_log2=20)


@pytest.mark.slow
@pytest.mark.parametrize("size", SLOW)
def test_every_board_up_to_42_cells_agrees_with_the_published_table(size):
    assert_published(size, table_log2=26)


def test_the_slow_and_fast_lists_cover_every_board_up_to_42_cells():
    assert len(FAST) + len(SLOW) == 22
    assert {"7x6", "6x7", "8x5", "9x4", "4x10"} <= set(SLOW)
    assert all((Board.parse(s).width, Board.parse(s).height) in PUBLISHED for s in FAST + SLOW)


@pytest.mark.parametrize(
    "size, score, move",
    [
        ("7x6", 1, 41),  # the standard board: the first player's 21st stone
        ("7x6", 21, 1),  # (impossible, but the arithmetic) a win with the first stone
        ("7x6", -1, 42),  # the second player's 21st stone, the last cell
        ("7x6", -2, 40),
        ("7x6", 2, 39),
        ("6x6", -1, 36),  # 2nd wins with the last stone
        ("8x5", 1, 39),
        ("9x5", 3, 41),  # 45 cells: the first player's 21st of 23 stones
        ("5x5", 1, 25),  # 25 cells: the first player's 13th stone is the last cell
        ("5x5", -1, 24),  # the second player has only 12 stones
        ("5x5", 2, 23),
        ("4x4", 0, 16),  # a draw ends on the last cell
        ("5x5", 0, 25),
    ],
)
def test_last_move_from_the_score(size, score, move):
    board = Board.parse(size)
    assert last_move(board, score) == move
    result = FIRST if score > 0 else SECOND if score < 0 else DRAW
    assert published_score(board, result, move) == score


def test_the_published_table_is_consistent():
    """Every published last move belongs to its winner (odd stones 1st, even 2nd; a draw fills the
    board) and gives back itself through the score."""
    for (width, height), (result, move) in PUBLISHED.items():
        cells = width * height
        if result == DRAW:
            assert move == cells
        else:
            assert move % 2 == (1 if result == FIRST else 0) and move <= cells
            wins = (cells + 2 - move) // 2
            assert move in (cells + 2 - 2 * wins, cells + 1 - 2 * wins)


def test_last_move_rejects_an_impossible_score():
    with pytest.raises(ValueError, match="out of range"):
        last_move(Board(4, 4), 9)


def test_a_disagreement_is_loud(capsys, monkeypatch):
    import solve_boards

    monkeypatch.setitem(solve_boards.PUBLISHED, (4, 4), (FIRST, 15))
    assert main(["4x4", "--table-log2", "16"]) == 1
    out, err = capsys.readouterr()
    assert "DISAGREES" in out
    assert (
        "4x4: solved draw, score 0, last move 16; published 1st wins, score +1, last move 15" in err
    )


def test_reach_solves_positions_further_from_the_end_until_the_cap(capsys):
    from _endgames import endgame

    rng = __import__("random").Random(1)
    late = endgame(Board(8, 8), 12, rng)
    assert late.ply == 52 and not late.is_game_over
    assert not any(late.is_winning_move(c) for c in late.legal_moves())
    # 12 cells left solve at once; 62 (two stones played) not within a second: the process
    # is stopped there.
    args = ["8x8", "--reach", "--cap", "1", "--start", "12", "--step", "50", "--count", "1"]
    assert main([*args, "--table-log2", "20"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("8x8       12 cells left: 1 solved, median ")
    assert out[1:] == [
        "8x8       62 cells left: past 1 s",
        "8x8: positions 12 cells before the end solve within 1 s",
    ]


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def test_a_reach_stopped_by_sigterm_stops_its_solver_process():
    import os
    import signal
    import subprocess
    import time

    script = Path(__file__).resolve().parent.parent / "scripts" / "solve_boards.py"
    # 62 cells before the end of 8x8 take far longer than the test waits.
    args = ["8x8", "--reach", "--cap", "600", "--start", "62", "--count", "1"]
    run = subprocess.Popen([sys.executable, str(script), *args, "--table-log2", "20"])
    solver: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not solver and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.2)
            solver = _children(run.pid)
        assert solver, "the solver process never started"
        time.sleep(1)  # (into its solve, or still loading its kernels: either way)
        run.send_signal(signal.SIGTERM)
        assert run.wait(timeout=30) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 10
        while _alive(solver[0]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(solver[0])
    finally:
        for pid in [*solver, run.pid]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        run.wait()

#!/usr/bin/env python3
"""Solve the empty board of other sizes and check each against the published table.

Who wins Connect 4 on each board, and on which move, is published for every
board with width + height <= 15 (John Tromp) and beyond (Christophe
Steininger).  Those results were found by other programs, so they are the
strongest check that the solver is right on boards other than 7x6: any
disagreement is printed loudly and makes the exit status 1.

For each size it prints the outcome, the first player's score (Pons'
convention), the stone that ends the game with perfect play (1-based: the
last cell for a draw), nodes and seconds.  Each board loads (or, the first
time, compiles) its kernels before the solve is timed; one thread, a fresh
table per board.

With ``--reach``, for boards whose empty board is out of reach (every board
past 64 bits), it says how far from the end a solve gets within ``--cap``
seconds: positions ``--start`` cells before the end, then ``--step`` more at a
time, ``--count`` each (random play that neither takes a win nor hands one
over), until one runs past the cap; one thread, the table cleared before each.

    python scripts/solve_boards.py 4x4 5x4 6x5
    python scripts/solve_boards.py --all-up-to 42 --table-log2 27
    python scripts/solve_boards.py 8x8 9x7 5x12 --reach --cap 600 --table-log2 28
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from pathlib import Path

from _args import add_table_log2, at_least_one, exit_status, parse_args
from _endgames import endgame
from _sides import exit_on_sigterm, our_side

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver import Board, BoardSizeError, Position, SearchLimitError, Solver  # noqa: E402
from solver.engine import smallest_table_log2  # noqa: E402

DRAW, FIRST, SECOND = "draw", "1st wins", "2nd wins"

# (width, height): (outcome, last move) with perfect play, copied from the tables in
# the readme of Christophe Steininger's c4 (github ChristopheSteininger/c4), which
# agree with John Tromp's table for width + height <= 15.  Widths 4-9 only; some
# of these sizes are too big for c4book's 64-bit keys and are never checked.
PUBLISHED = {
    (4, 4): (DRAW, 16),
    (5, 4): (DRAW, 20),
    (6, 4): (SECOND, 24),
    (7, 4): (DRAW, 28),
    (8, 4): (SECOND, 32),
    (9, 4): (SECOND, 36),
    (4, 5): (DRAW, 20),
    (5, 5): (DRAW, 25),
    (6, 5): (DRAW, 30),
    (7, 5): (DRAW, 35),
    (8, 5): (FIRST, 39),
    (9, 5): (FIRST, 41),
    (4, 6): (DRAW, 24),
    (5, 6): (DRAW, 30),
    (6, 6): (SECOND, 36),
    (7, 6): (FIRST, 41),
    (8, 6): (SECOND, 48),
    (9, 6): (SECOND, 52),
    (4, 7): (DRAW, 28),
    (5, 7): (DRAW, 35),
    (6, 7): (FIRST, 41),
    (7, 7): (DRAW, 49),
    (8, 7): (FIRST, 53),
    (9, 7): (FIRST, 55),
    (4, 8): (DRAW, 32),
    (5, 8): (DRAW, 40),
    (6, 8): (SECOND, 48),
    (7, 8): (FIRST, 55),
    (8, 8): (SECOND, 62),
    (4, 9): (DRAW, 36),
    (5, 9): (DRAW, 45),
    (6, 9): (FIRST, 53),
    (7, 9): (DRAW, 63),
    (4, 10): (DRAW, 40),
    (5, 10): (DRAW, 50),
    (6, 10): (SECOND, 60),
    (7, 10): (FIRST, 69),
    (4, 11): (DRAW, 44),
    (5, 11): (DRAW, 55),
    (6, 11): (FIRST, 63),
    (4, 12): (DRAW, 48),
    (5, 12): (DRAW, 60),
    (6, 12): (SECOND, 72),
}


def outcome(score: int) -> str:
    """The first player's result, from the first player's score on the empty board."""
    return FIRST if score > 0 else SECOND if score < 0 else DRAW


def signed(score: int) -> str:
    """A score as printed: ``+1``, ``0``, ``-2``."""
    return f"{score:+d}" if score else "0"


def last_move(board: Board, score: int) -> int:
    """The stone (1-based) that ends the game, from the first player's score on the empty
    board (``Board.last_move``); a score no game on the board has is a ValueError."""
    if not abs(score) <= board.max_score:
        raise ValueError(f"score {score} is out of range on {board}")
    return board.last_move(score, 0)


def published_score(board: Board, result: str, move: int) -> int:
    """The first player's score that a published outcome and last move stand for."""
    if result == DRAW:
        return 0
    wins = (board.cells + 2 - move) // 2
    return wins if result == FIRST else -wins


def sizes_up_to(cells: int) -> list[Board]:
    """Every board c4book plays with at most ``cells`` cells, smallest first."""
    boards = []
    for width in range(4, 10):
        for height in range(4, cells // width + 1):
            with contextlib.suppress(BoardSizeError):
                boards.append(Board(width, height))
    return sorted(boards, key=lambda b: (b.cells, b.width))


def warm_up(board: Board) -> None:
    """Load (or compile) the board's kernels, so that the timed solve does not."""
    solver = Solver(board=board, table_log2=smallest_table_log2(board))
    solver.set_node_limit(1000)
    with contextlib.suppress(SearchLimitError):
        solver.solve(Position(board))


def solve_empty(board: Board | str, table_log2: int = 24) -> dict:
    """The empty board solved: size, outcome, score, last move, nodes and seconds.

    ``table_log2`` is raised to the board's smallest table if below it.
    """
    board = Board.parse(board)
    warm_up(board)
    solver = Solver(board=board, table_log2=max(table_log2, smallest_table_log2(board)))
    solver.clear()  # touch every page now, so first touches aren't timed
    solver.reset_nodes()
    start = time.perf_counter()
    score = solver.solve(Position(board))
    seconds = time.perf_counter() - start
    return {
        "size": str(board),
        "outcome": outcome(score),
        "score": score,
        "last_move": last_move(board, score),
        "nodes": solver.nodes,
        "seconds": seconds,
    }


def check(row: dict) -> str | None:
    """None when ``row`` agrees with the published table (or is not in it); else what differs."""
    board = Board.parse(row["size"])
    published = PUBLISHED.get((board.width, board.height))
    if published is None:
        return None
    result, move = published
    score = published_score(board, result, move)
    if (row["outcome"], row["last_move"], row["score"]) == (result, move, score):
        return None
    return (
        f"{board}: solved {row['outcome']}, score {signed(row['score'])}, last move "
        f"{row['last_move']}; published {result}, score {signed(score)}, last move {move}"
    )


def reach(board: Board, args: argparse.Namespace) -> int:
    """Positions ever further from the end solved, until one takes past ``args.cap``
    seconds: the most cells before the end whose positions all solved (0: none did)."""
    side = our_side(board, max(args.table_log2, smallest_table_log2(board)))
    reached = 0
    try:
        for empty in range(args.start, board.cells + 1, args.step):
            rng = random.Random(args.seed * 1000 + empty)
            seconds = []
            for _ in range(args.count):
                answer = side.solve(endgame(board, empty, rng).moves, timeout=args.cap)
                if answer is None:
                    print(f"{board!s:<6} {empty:>5} cells left: past {args.cap:g} s", flush=True)
                    return reached
                seconds.append(float(answer[3]))
            print(
                f"{board!s:<6} {empty:>5} cells left: {args.count} solved, median "
                f"{statistics.median(seconds):.2f} s, longest {max(seconds):.2f} s",
                flush=True,
            )
            reached = empty
    finally:
        side.stop()
    return reached


def board_arg(text: str) -> Board:
    try:
        return Board.parse(text)
    except BoardSizeError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sizes",
        nargs="*",
        type=board_arg,
        metavar="WxH",
        help="board sizes to solve, e.g. 4x4 6x5 7x6",
    )
    parser.add_argument(
        "--all-up-to",
        type=int,
        metavar="CELLS",
        help="also every size c4book plays with at most CELLS cells (42: every board up to 7x6)",
    )
    add_table_log2(
        parser,
        24,
        "table size as a power of two, 8-byte slots (default: %(default)s; "
        "raised to a board's smallest if below it)",
    )
    parser.add_argument(
        "--reach", action="store_true", help="how far from the end a solve gets within --cap"
    )
    parser.add_argument("--cap", type=float, default=600.0, help="--reach: seconds a solve")
    parser.add_argument("--start", type=at_least_one, default=20, help="--reach: cells left, first")
    parser.add_argument("--step", type=at_least_one, default=2, help="--reach: cells added")
    parser.add_argument("--count", type=at_least_one, default=3, help="--reach: positions a step")
    parser.add_argument("--seed", type=int, default=52, help="--reach: the positions' seed")
    args = parse_args(parser, argv)
    boards = list(
        dict.fromkeys([*args.sizes, *(sizes_up_to(args.all_up_to) if args.all_up_to else [])])
    )
    if not boards:
        parser.error("give board sizes (like 6x5) or --all-up-to CELLS")

    if args.reach:
        reached = {board: reach(board, args) for board in boards}
        for board, empty in reached.items():
            print(f"{board}: positions {empty} cells before the end solve within {args.cap:g} s")
        return 0

    header = (
        f"{'size':<6} {'outcome':<9} {'score':>5} {'last move':>9} {'nodes':>15} "
        f"{'seconds':>9}  published"
    )
    print(header)
    print("-" * len(header), flush=True)
    disagreements = []
    for board in boards:
        row = solve_empty(board, args.table_log2)
        problem = check(row)
        verdict = (
            ("agrees" if (board.width, board.height) in PUBLISHED else "-")
            if problem is None
            else "DISAGREES"
        )
        print(
            f"{row['size']:<6} {row['outcome']:<9} {signed(row['score']):>5} "
            f"{row['last_move']:>9} {row['nodes']:>15,} {row['seconds']:>9.2f}  {verdict}",
            flush=True,
        )
        if problem:
            disagreements.append(problem)
    return exit_status(
        disagreements,
        f"{len(disagreements)} size(s) DISAGREE with the published table (Steininger, Tromp)",
    )


if __name__ == "__main__":
    exit_on_sigterm()
    sys.exit(main())

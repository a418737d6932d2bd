#!/usr/bin/env python3
"""Time the two-word solver against Steininger's c4 on positions of boards past 64 bits.

Issue 52's yardstick: positions of 8x8 and 9x7 that his solver, compiled
for that size with one thread, settles in 0.1-10 s each; our one-thread time
on them, in the same run, at most his.  His ``c4`` solves only the empty
board: build it per size (``src/solver/settings.h``: BOARD_WIDTH,
BOARD_HEIGHT, NUM_THREADS = 1, NUM_TABLE_ENTRIES = 268435459 past 64 bits)
with a small driver of your own that reads a line of moves (columns from 1)
a position, calls ``clear_state()`` and ``solve_strong``, and prints the
moves, his score, the last move of perfect play (0 for a draw) and the
seconds of the solve.  This project never ships or builds his solver.

Two steps, so that the slow one can run on a busy machine:

* ``select`` draws random positions (plies ``--plies``, the player to move
  unable to win at once) and keeps the first ``--count`` his solver settles
  within ``--low``-``--high`` seconds, into a JSON file;
* ``time`` solves them with both, taking turns position by position (who goes
  first alternating), each solver a process of its own kept for the whole run,
  its table cleared before each position: run it on a quiet machine.

Prints per size: the positions, the total and median seconds of each, the
ratio of the totals and the median of the ratios (ours / his), and whether
every score agrees (his score and last move against ours); a disagreement
makes the exit status 1.

    python scripts/bench_wide.py select 8x8 9x7 --c4 '/tmp/c4w-{size}/build/positions' --out /tmp/wide.json
    python scripts/bench_wide.py time --c4 '/tmp/c4w-{size}/build/positions' --positions /tmp/wide.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path

from _args import at_least_one, parse_args
from _sides import Side, exit_on_sigterm, our_side
from solve_boards import board_arg

from solver import Position
from solver.bitboard import Board


def his_side(pattern: str, board: Board) -> Side:
    return Side([pattern.format(size=board)], ready=False)


def random_position(board: Board, plies: tuple[int, int], rng: random.Random) -> str | None:
    """Random moves to a ply in ``plies``: None if the game ends first or the player to move
    can win at once (a position that needs no search)."""
    position = Position(board)
    for _ in range(rng.randint(*plies)):
        position = position.play(rng.choice(position.legal_moves()))
        if position.is_game_over:
            return None
    if any(position.is_winning_move(col) for col in position.legal_moves()):
        return None
    return position.moves


def default_plies(board: Board) -> tuple[int, int]:
    """Plies whose positions his solver settles in seconds: a third to a half of the cells,
    measured on 8x8 and 9x7."""
    cells = board.width * board.height
    return cells // 3, cells // 2


def select_positions(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    chosen: dict[str, list[dict]] = {}
    for board in args.sizes:
        plies = tuple(args.plies) if args.plies else default_plies(board)
        his = his_side(args.c4, board)
        kept: list[dict] = []
        tried = 0
        try:
            while len(kept) < args.count and tried < args.count * args.tries:
                moves = random_position(board, plies, rng)
                if moves is None:
                    continue
                tried += 1
                answer = his.solve(moves, timeout=args.high * 3)
                if answer is not None and args.low <= float(answer[3]) <= args.high:
                    kept.append({"moves": moves, "his_seconds": float(answer[3])})
                    print(f"{board}: {len(kept)}/{args.count} ({tried} tried)", flush=True)
        finally:
            his.stop()
        chosen[str(board)] = kept
    Path(args.out).write_text(json.dumps(chosen, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


def agrees(board: Board, moves: str, ours: int, his_score: int, his_last: int) -> bool:
    """Our score against his sign and last move of perfect play (0: a draw)."""
    ply = len(moves)
    last = board.last_move(ours, ply) if ours else 0
    return (ours > 0) - (ours < 0) == (his_score > 0) - (his_score < 0) and last == his_last


def time_positions(args: argparse.Namespace) -> int:
    chosen = json.loads(Path(args.positions).read_text())
    status = 0
    for size, positions in chosen.items():
        board = Board.parse(size)
        ours, his = our_side(board, args.table_log2), his_side(args.c4, board)
        our_times, his_times, wrong = [], [], 0
        try:
            ours.start()
            for n, item in enumerate(positions):
                moves = item["moves"]
                first, second = (ours, his) if n % 2 == 0 else (his, ours)
                answers = {id(first): first.solve(moves), id(second): second.solve(moves)}
                mine, theirs = answers[id(ours)], answers[id(his)]
                assert mine is not None and theirs is not None
                our_times.append(float(mine[3]))
                his_times.append(float(theirs[3]))
                if not agrees(board, moves, int(mine[1]), int(theirs[1]), int(theirs[2])):
                    wrong += 1
                    print(f"{size} {moves}: ours {mine[1]}, his {theirs[1]} (last {theirs[2]})")
        finally:
            ours.stop()
            his.stop()
        if wrong:
            status = 1
        ratios = [o / h for o, h in zip(our_times, his_times, strict=True) if h > 0]
        print(
            f"{size}: {len(positions)} positions; ours {sum(our_times):.1f} s "
            f"(median {statistics.median(our_times):.3f}), his {sum(his_times):.1f} s "
            f"(median {statistics.median(his_times):.3f}); ours/his: totals "
            f"{sum(our_times) / sum(his_times):.2f}x, median ratio "
            f"{statistics.median(ratios):.2f}x; {wrong} disagree",
            flush=True,
        )
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    pick = modes.add_parser("select", help="draw positions his solver settles in the window")
    pick.add_argument("sizes", type=board_arg, nargs="+", help="boards, e.g. 8x8 9x7")
    pick.add_argument("--out", required=True, help="the JSON file of positions written")
    pick.add_argument("--count", type=at_least_one, default=100, help="positions a board")
    pick.add_argument("--low", type=float, default=0.1, help="his fewest seconds kept")
    pick.add_argument("--high", type=float, default=10.0, help="his most seconds kept")
    pick.add_argument("--plies", type=int, nargs=2, metavar=("FROM", "TO"), help="plies drawn")
    pick.add_argument("--tries", type=at_least_one, default=20, help="candidates a kept one, most")
    pick.add_argument("--seed", type=int, default=52)
    timing = modes.add_parser("time", help="time both solvers on the selected positions")
    timing.add_argument("--positions", required=True, help="the JSON file that select wrote")
    timing.add_argument(
        "--table-log2", type=int, default=28, help="our table: 2**28 words, 2 GB, as his"
    )
    for mode in (pick, timing):
        mode.add_argument("--c4", required=True, help="his driver's path, with {size} in it")
    args = parse_args(parser, argv)
    return select_positions(args) if args.mode == "select" else time_positions(args)


if __name__ == "__main__":
    exit_on_sigterm()
    raise SystemExit(main())

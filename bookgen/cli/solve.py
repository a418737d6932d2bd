"""``c4book solve``: Pons-compatible batch solving of move strings on stdin."""

from __future__ import annotations

import argparse
import sys
from typing import IO

from solver import Board, Position
from solver.bitboard import DEFAULT_TABLE_LOG2, MAX_THREADS
from solver.errors import C4Error

from .arguments import add_board, search_threads, table_log2


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "solve",
        help="solve move strings read from stdin (Pons-compatible)",
        description="Read one move string per line on stdin (anything after the first "
        "space is ignored, so Pons' test files work as they are) and print "
        "'<moves> <score>'. Bad lines are reported on stderr with their line "
        "number; the exit status is then 1.",
    )
    parser.add_argument(
        "--weak", action="store_true", help="print only the sign: -1 loss, 0 draw, 1 win"
    )
    parser.add_argument(
        "--analyze",
        action="store_true",
        help="print the score of each move, column by column ('x' for a full column)",
    )
    add_board(parser, "default: 7x6; up to 128 bits, e.g. 8x8 or 9x9")
    parser.add_argument(
        "--table-log2",
        type=table_log2,
        default=DEFAULT_TABLE_LOG2,
        help="transposition table size as a power of two (default: %(default)s, 128 MiB)",
    )
    parser.add_argument(
        "--threads",
        type=search_threads,
        default=None,
        help="search threads sharing the table, for hard positions "
        f"(default: one per core of this machine; at most {MAX_THREADS})",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    return solve_lines(
        sys.stdin,
        sys.stdout,
        sys.stderr,
        weak=args.weak,
        analyze=args.analyze,
        table_log2=args.table_log2,
        threads=args.threads,
        board=args.board,
    )


def format_scores(scores: list[int | None]) -> str:
    return " ".join("x" if s is None else str(s) for s in scores)


def solve_lines(
    lines: IO[str],
    out: IO[str],
    err: IO[str],
    *,
    weak: bool = False,
    analyze: bool = False,
    table_log2: int = DEFAULT_TABLE_LOG2,
    threads: int | None = None,
    board: Board | None = None,
) -> int:
    """Solve each line's first token, a position of ``board`` (7x6 by default); report
    bad lines and carry on.

    Returns the exit status: 0 when every line was solved, 1 otherwise.
    An empty line is the empty board, as in Pons' solver; a line of blanks is
    skipped.  ``threads``: search threads (``None``: one per core).
    """
    from solver import Solver  # here: every command imports this module, only solve needs numba

    solver = Solver(table_log2=table_log2, threads=threads, board=board)
    status = 0
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            if line.strip("\r\n"):  # blanks only: nothing asked
                continue
            fields = [""]  # nothing at all: the empty board
        moves = fields[0]
        try:  # (the writes stay outside: output that fails stops the command)
            position = Position.from_moves(moves, solver.board)
            if analyze:
                scores = solver.analyze(position)
                if weak:
                    scores = [None if s is None else (s > 0) - (s < 0) for s in scores]
                answer = format_scores(scores)
            else:
                answer = str(solver.solve(position, weak=weak))
        except C4Error as error:
            err.write(f"line {number}: {error}\n")
            status = 1
        else:
            out.write(f"{moves} {answer}\n")
        out.flush()
    return status

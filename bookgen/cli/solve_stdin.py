"""``c4book solve``: Pons-compatible batch solving of move strings on stdin."""

from __future__ import annotations

from typing import IO

from solver import Board, Position, Solver
from solver.bitboard import DEFAULT_TABLE_LOG2
from solver.errors import C4Error


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

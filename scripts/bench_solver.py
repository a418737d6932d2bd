#!/usr/bin/env python3
"""Benchmark the solver on Pascal Pons' six test sets, in the layout of his table.

For each set: positions solved, mean time per position, mean explored nodes,
K pos/s (thousand nodes per second, Pons' unit) and M nodes/s.  Every answer
is checked against the file; any mismatch makes the exit status 1.

Only parsing (``Position.from_moves``) and the solve call are timed.  By
default the transposition table is kept across positions, as in Pons' C++
run; ``--reset`` clears it before each position instead.

    python scripts/bench_solver.py --sets End-Easy L2_R1 --limit 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from solver import Position, Solver

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "tests" / "data"

# file stem, Pons' name, moves played, moves remaining
SETS = [
    ("Test_L3_R1", "End-Easy", "28-42", "0-14"),
    ("Test_L2_R1", "Middle-Easy", "14-28", "0-14"),
    ("Test_L2_R2", "Middle-Medium", "14-28", "14-28"),
    ("Test_L1_R1", "Begin-Easy", "0-14", "0-14"),
    ("Test_L1_R2", "Begin-Medium", "0-14", "14-28"),
    ("Test_L1_R3", "Begin-Hard", "0-14", "28-42"),
]


def find_set(name: str) -> tuple[str, str, str, str]:
    """Accept 'Test_L3_R1', 'L3_R1' or 'End-Easy' (any case)."""
    wanted = name.lower().removeprefix("test_")
    for entry in SETS:
        if wanted in (entry[0].lower().removeprefix("test_"), entry[1].lower()):
            return entry
    names = ", ".join(f"{stem.removeprefix('Test_')} ({label})" for stem, label, _, _ in SETS)
    raise argparse.ArgumentTypeError(f"unknown test set {name!r}; choose from {names}")


def format_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def warm_up() -> None:
    """Load (or compile) the numba kernels so the first timed position doesn't pay for it."""
    s = Solver(table_log2=10)
    s.solve(Position.from_moves("427566236745127177115664464254"))
    s.solve(Position.from_moves("427566236745127177115664464254"), weak=True)


def run_set(solver: Solver, path: Path, limit: int, weak: bool, reset: bool):
    """Solve the first ``limit`` lines; returns (count, seconds, nodes, mismatches)."""
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()][:limit]
    total_time = 0.0
    total_nodes = 0
    bad = []
    for number, (moves, score) in enumerate(lines, start=1):
        expected = sign(int(score)) if weak else int(score)
        if reset:
            solver.clear()
        solver.reset_nodes()
        start = time.perf_counter()
        got = solver.solve(Position.from_moves(moves), weak=weak)
        total_time += time.perf_counter() - start
        total_nodes += solver.nodes
        if got != expected:
            bad.append((number, moves, expected, got))
    return len(lines), total_time, total_nodes, bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", type=find_set, default=SETS, metavar="SET",
                        help="sets to run: L3_R1 or End-Easy etc. (default: all six)")
    parser.add_argument("--limit", type=int, default=1000,
                        help="first N lines of each set (default: %(default)s)")
    parser.add_argument("--weak", action="store_true", help="weak solve: compare signs only")
    parser.add_argument("--table-log2", type=int, default=24,
                        help="transposition table size as a power of two (default: %(default)s)")
    parser.add_argument("--reset", action="store_true",
                        help="clear the table before each position (default: keep it, like Pons)")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA,
                        help="directory holding Test_L*_R* (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.limit < 1:
        parser.error("--limit must be at least 1")

    warm_up()
    solver = Solver(table_log2=args.table_log2)
    # numpy hands out the zeroed table lazily; touch every page now, as Pons'
    # C++ does by clearing its table up front, so first touches aren't timed.
    solver.clear()
    mode = "weak" if args.weak else "strong"
    table = "cleared per position" if args.reset else "kept across positions"
    print(f"{mode} solver, table 2^{args.table_log2} ({table}), up to {args.limit} lines per set")
    header = (f"{'Test Set name':<14} {'File':<11} {'Moves/left':<12} {'Pos':>5} "
              f"{'Mean time':>10} {'Mean nb pos':>12} {'K pos/s':>9} {'M nodes/s':>9} {'Bad':>4}")
    print(header)
    print("-" * len(header))

    failures = 0
    for stem, label, played, left in args.sets:
        count, seconds, nodes, bad = run_set(solver, args.data_dir / stem, args.limit,
                                             args.weak, args.reset)
        rate = nodes / seconds if seconds > 0 else float("nan")
        print(f"{label:<14} {stem:<11} {played + '/' + left:<12} {count:>5} "
              f"{format_time(seconds / count):>10} {nodes / count:>12,.1f} "
              f"{rate / 1e3:>9,.0f} {rate / 1e6:>9.2f} {len(bad):>4}", flush=True)
        for number, moves, expected, got in bad[:10]:
            print(f"  mismatch {stem} line {number}: {moves} expected {expected}, got {got}",
                  file=sys.stderr)
        failures += len(bad)

    if failures:
        print(f"{failures} mismatching answer(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

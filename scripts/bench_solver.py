#!/usr/bin/env python3
"""Benchmark the solver on Pons' six test sets, the book's bench files and the empty board.

For each set it prints Pons' table: positions, mean time per position, mean
explored nodes and K pos/s (thousand nodes per second).  Every answer is
checked against the file; any mismatch makes the exit status 1.

With ``--baseline REV`` the same sets also run on the solver of git revision
REV (checked out into a temporary worktree), set by set in the same run, and
the table gains the baseline's time and the speed-up.  The machine is shared
and noisy, so only such side-by-side ratios are worth quoting.

Each set runs in a fresh process with a fresh table (kept across the set's
positions, as in Pons' run).  Only ``Position.from_moves`` and the solve are
timed.

    python scripts/bench_solver.py --sets ply8 ply10 ply12 --baseline f30223e
    python scripts/bench_solver.py --sets empty --threads 2
    python scripts/bench_solver.py --sets empty --threads 2 --baseline-threads 2 \
        --baseline cde4678 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _args import add_table_log2, at_least_one, parse_args

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

# name, file under tests/data (None: the empty board), label, moves played/left
SETS = [
    ("L3_R1", "Test_L3_R1", "End-Easy", "28-42/0-14"),
    ("L2_R1", "Test_L2_R1", "Middle-Easy", "14-28/0-14"),
    ("L2_R2", "Test_L2_R2", "Middle-Medium", "14-28/14-28"),
    ("L1_R1", "Test_L1_R1", "Begin-Easy", "0-14/0-14"),
    ("L1_R2", "Test_L1_R2", "Begin-Medium", "0-14/14-28"),
    ("L1_R3", "Test_L1_R3", "Begin-Hard", "0-14/28-42"),
    ("ply8", "bench/ply8-150.txt", "ply8-150", "8"),
    ("ply10", "bench/ply10-random-200.txt", "ply10-rand", "10"),
    ("ply12", "bench/ply12-random-200.txt", "ply12-rand", "12"),
    ("empty", None, "empty board", "0"),
]
DEFAULT_SETS = ["L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "ply8", "ply10", "ply12"]


def find_set(name: str) -> tuple:
    wanted = name.lower().removeprefix("test_")
    for entry in SETS:
        if wanted in (entry[0].lower(), entry[2].lower()):
            return entry
    names = ", ".join(f"{key} ({label})" for key, _, label, _ in SETS)
    raise argparse.ArgumentTypeError(f"unknown set {name!r}; choose from {names}")


def format_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def load_lines(file: str | None, limit: int) -> list[tuple[str, int]]:
    if file is None:
        return [("", 1)]
    lines = [line.split() for line in (DATA / file).read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in lines[:limit]]


# -- one set in this process (the child side of the comparison) -------------------------------


def run_here(file: str | None, limit: int, weak: bool, table_log2: int, threads: int) -> dict:
    """Solve one set with whatever ``solver`` package is on the path; a JSON-able summary."""
    from solver import Position, Solver

    warm = Solver(table_log2=10)  # load (or compile) the kernels before timing
    warm.solve(Position.from_moves("427566236745127177115664464254"))
    # (only when asked: a baseline revision's Solver may take no threads)
    kwargs: dict[str, Any] = {"threads": threads} if threads > 1 else {}
    if threads > 1:  # and the threads' own search: 500,000 nodes, past any solo start
        Solver(table_log2=16, **kwargs).solve(Position.from_moves("2416615552"))
    solver = Solver(table_log2=table_log2, **kwargs)
    solver.clear()  # touch every page now, so first touches aren't timed
    seconds = 0.0
    nodes = 0
    bad = []
    lines = load_lines(file, limit)
    for number, (moves, score) in enumerate(lines, start=1):
        expected = sign(score) if weak else score
        solver.reset_nodes()
        start = time.perf_counter()
        got = solver.solve(Position.from_moves(moves), weak=weak)
        seconds += time.perf_counter() - start
        nodes += solver.nodes
        if got != expected:
            bad.append([number, moves, expected, got])
    return {"count": len(lines), "seconds": seconds, "nodes": nodes, "bad": bad}


def run_in_child(source: Path, entry: tuple, args) -> dict:
    """Run one set in a fresh Python whose ``solver`` is imported from ``source``."""
    env = dict(os.environ, PYTHONPATH=str(source))
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        entry[0],
        "--limit",
        str(args.limit),
        "--table-log2",
        str(args.table_log2),
    ]
    if args.weak:
        command.append("--weak")
    threads = args.threads if source == ROOT else args.baseline_threads
    if threads > 1:
        command += ["--threads", str(threads)]
    out = subprocess.run(command, env=env, cwd=source, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the driver -----------------------------------------------------------------------------


def baseline_tree(rev: str) -> Path:
    """A detached worktree of ``rev`` in a temporary directory (the caller removes both)."""
    where = Path(tempfile.mkdtemp(prefix="c4bench-")) / "tree"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), rev],
        check=True,
        capture_output=True,
    )
    return where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sets",
        nargs="+",
        type=find_set,
        default=[find_set(name) for name in DEFAULT_SETS],
        metavar="SET",
        help="sets to run: L3_R1 .. L1_R3 (Pons), ply8, ply10, ply12, empty "
        f"(default: {' '.join(DEFAULT_SETS)})",
    )
    parser.add_argument(
        "--limit",
        type=at_least_one,
        default=1000,
        help="first N lines of each set (default: %(default)s)",
    )
    parser.add_argument("--weak", action="store_true", help="weak solve: compare signs only")
    add_table_log2(
        parser, 27, "table size as a power of two, 8-byte slots (default: %(default)s, 1 GiB)"
    )
    parser.add_argument(
        "--threads",
        type=at_least_one,
        default=1,
        help="search threads for this revision's solver (default: %(default)s)",
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also run git revision REV, set by set, and print the speed-up",
    )
    parser.add_argument(
        "--baseline-threads",
        type=at_least_one,
        default=1,
        metavar="N",
        help="search threads for the baseline's solver (default: %(default)s)",
    )
    parser.add_argument(
        "--repeat",
        type=at_least_one,
        default=1,
        metavar="R",
        help="run each set (and its baseline) R times, one line each: "
        "searches with threads vary from run to run (default: %(default)s)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parse_args(parser, argv)

    if args.child:
        entry = find_set(args.child)
        print(json.dumps(run_here(entry[1], args.limit, args.weak, args.table_log2, args.threads)))
        return 0

    base = baseline_tree(args.baseline) if args.baseline else None
    try:
        return report(args, base)
    finally:
        if base is not None:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                capture_output=True,
            )
            shutil.rmtree(base.parent, ignore_errors=True)


def report(args, base: Path | None) -> int:
    mode = "weak" if args.weak else "strong"
    threads = f"{args.threads} thread(s)"
    if base is not None:
        threads += f", the baseline {args.baseline_threads}"
    print(
        f"{mode} solves, table 2^{args.table_log2} kept across a set's positions, "
        f"{threads}, up to {args.limit} lines per set"
    )
    header = (
        f"{'Test set':<14} {'Moves':<12} {'Pos':>5} {'Mean time':>10} "
        f"{'Mean nb pos':>12} {'K pos/s':>9} {'Bad':>4}"
    )
    if base is not None:
        header += f" {'baseline':>10} {'speed-up':>8}"
    print(header)
    print("-" * len(header))
    failures = 0
    for entry in [entry for entry in args.sets for _ in range(args.repeat)]:
        # Baseline first, then ours: one set's pair runs back to back on the same load.
        old = run_in_child(base, entry, args) if base is not None else None
        new = run_in_child(ROOT, entry, args)
        count, seconds, nodes = new["count"], new["seconds"], new["nodes"]
        rate = nodes / seconds if seconds > 0 else float("nan")
        line = (
            f"{entry[2]:<14} {entry[3]:<12} {count:>5} {format_time(seconds / count):>10} "
            f"{nodes / count:>12,.1f} {rate / 1e3:>9,.0f} {len(new['bad']):>4}"
        )
        if old is not None:
            line += (
                f" {format_time(old['seconds'] / old['count']):>10} "
                f"{old['seconds'] / seconds:>7.2f}x"
            )
            failures += len(old["bad"])
        print(line, flush=True)
        for number, moves, expected, got in new["bad"][:10]:
            print(
                f"  mismatch in {entry[2]} line {number}: {moves} expected {expected}, got {got}",
                file=sys.stderr,
            )
        failures += len(new["bad"])
    if failures:
        print(f"{failures} mismatching answer(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

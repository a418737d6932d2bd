#!/usr/bin/env python3
"""Time this revision's solver against a baseline's, alternating position by position.

``bench_solver.py --baseline`` runs each set in turn in two processes, so a
change in the shared machine's load between them lands in the ratio: on a
noisy day two runs of one revision differed by 10%.  Here both solvers live
in one process (the baseline's ``solver`` package is imported under another
name) and take turns on each position, who goes first alternating, so a
slow minute slows both.  Two copies of one revision come out within about
1% of each other, which is fine enough to judge a 2-3% change.

One thread each, a fresh 1 GiB table per solver and round.  Prints, per set,
Pons' columns for this revision, the baseline's mean time and the speed-up,
and whether both explored the same nodes in all; every answer is checked
against the file.

    python scripts/bench_pair.py --baseline HEAD~1 --sets ply8 --limit 30 --rounds 2
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _args import add_table_log2, at_least_one, parse_args
from bench_solver import ROOT, baseline_tree, find_set, format_time, load_lines

sys.path.insert(0, str(ROOT))


def load_baseline(tree: Path):
    """The baseline's ``solver`` package, imported as ``baseline_solver``.

    The copy sits beside the worktree, in the temporary directory that
    ``main`` removes with it.
    """
    shutil.copytree(
        tree / "solver",
        tree.parent / "baseline_solver",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    sys.path.insert(0, str(tree.parent))
    return importlib.import_module("baseline_solver")


def run_set(entry: tuple, limit: int, rounds: int, table_log2: int, packages: dict) -> dict:
    """Seconds, nodes and mismatches per package over ``rounds`` passes of the set."""
    lines = load_lines(entry[1], limit)
    totals = {name: {"seconds": 0.0, "nodes": 0, "bad": 0} for name in packages}
    names = list(packages)
    for round_ in range(rounds):
        solvers = {
            name: package.Solver(table_log2=table_log2) for name, package in packages.items()
        }
        for solver in solvers.values():
            solver.clear()  # touch every page now, so first touches aren't timed
        for number, (moves, score) in enumerate(lines):
            order = names if (number + round_) % 2 == 0 else names[::-1]
            for name in order:
                solver = solvers[name]
                position = packages[name].Position.from_moves(moves)
                solver.reset_nodes()
                start = time.perf_counter()
                got = solver.solve(position)
                totals[name]["seconds"] += time.perf_counter() - start
                totals[name]["nodes"] += solver.nodes
                totals[name]["bad"] += got != score
        del solvers  # free both tables before the next round
    for total in totals.values():
        total["count"] = len(lines) * rounds
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--baseline", metavar="REV", required=True, help="git revision whose solver to compare with"
    )
    parser.add_argument(
        "--sets",
        nargs="+",
        type=find_set,
        default=[find_set("ply8")],
        metavar="SET",
        help="sets, as in bench_solver.py (default: ply8)",
    )
    parser.add_argument(
        "--limit",
        type=at_least_one,
        default=30,
        help="first N lines of each set (default: %(default)s)",
    )
    parser.add_argument(
        "--rounds",
        type=at_least_one,
        default=2,
        help="passes over each set, each with fresh tables (default: %(default)s)",
    )
    add_table_log2(parser, 27, "table size as a power of two, 8-byte slots (default: %(default)s)")
    args = parse_args(parser, argv)

    tree = baseline_tree(args.baseline)
    try:
        import solver

        packages = {"new": solver, "baseline": load_baseline(tree)}
        for package in packages.values():  # load (or compile) the kernels before timing
            package.Solver(table_log2=10).solve(package.Position.from_moves("2416615552"))
        print(
            f"strong solves, 1 thread each, table 2^{args.table_log2}, alternating "
            f"position by position with {args.baseline}, {args.rounds} round(s)"
        )
        header = (
            f"{'Test set':<14} {'Pos':>5} {'Mean time':>10} {'Mean nb pos':>12} "
            f"{'K pos/s':>9} {'Bad':>4} {'baseline':>10} {'speed-up':>8} "
            f"{'nodes vs baseline':>17}"
        )
        print(header)
        print("-" * len(header))
        failures = 0
        for entry in args.sets:
            result = run_set(entry, args.limit, args.rounds, args.table_log2, packages)
            new, old = result["new"], result["baseline"]
            count, seconds = new["count"], new["seconds"]
            print(
                f"{entry[2]:<14} {count:>5} {format_time(seconds / count):>10} "
                f"{new['nodes'] / count:>12,.1f} {new['nodes'] / seconds / 1e3:>9,.0f} "
                f"{new['bad']:>4} {format_time(old['seconds'] / count):>10} "
                f"{old['seconds'] / seconds:>7.3f}x "
                f"{'the same' if new['nodes'] == old['nodes'] else old['nodes'] / new['nodes']:>17}",
                flush=True,
            )
            failures += new["bad"] + old["bad"]
        if failures:
            print(f"{failures} mismatching answer(s)", file=sys.stderr)
            return 1
        return 0
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
            capture_output=True,
        )
        shutil.rmtree(tree.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Benchmark a small build's start: its phases beside a bare ``ray.init()``, same run.

Each round, in fresh processes and in turn: a bare ``ray.init()`` on an embedded
local Ray (as the build starts it: every core, no dashboard), then the quick
start's build into a new book with this revision, and with ``--baseline``'s.
The build's own report gives its phases: listing, start, the frontier (and, where
the revision reports it, when its first batch came back).  The first round of
each side is a warm-up (kernels compiled and cached) and is not counted.

    python scripts/bench_start.py --baseline 9f79dfb --rounds 5
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

from _args import at_least_one, parse_args
from bench_book import ROOT, baseline_tree, in_temp_folder, run_in_tree

BARE_INIT = """
import os, time
import ray
started = time.perf_counter()
ray.init(address="local", num_cpus=os.cpu_count(), include_dashboard=False,
         log_to_driver=False, logging_level="ERROR")
print(time.perf_counter() - started)
ray.shutdown()
"""
BUILD = "import sys; from bookgen.cli import main; sys.exit(main(sys.argv[1:]))"
PHASE = re.compile(r"(list|start|frontier|derive) ([0-9.]+) s")
FIRST_BATCH = re.compile(r"first batch back after ([0-9.]+) s")
COLUMNS = ("bare ray.init", "list", "start", "first batch", "frontier", "whole process")


def run(tree: Path, code: str, *args: str) -> tuple[str, float]:
    """stdout and stderr of ``code`` in a fresh Python on ``tree``'s packages, and its wall."""
    started = time.perf_counter()
    done = run_in_tree(tree, code, *args)
    return done.stdout + done.stderr, time.perf_counter() - started


def build_phases(tree: Path, db: Path, root: str, ply: int) -> dict[str, float]:
    """The phases a build of ``root`` to ``ply`` into a new ``db`` reports, and its wall."""
    output, wall = run(
        tree, BUILD, "build", "--root", root, "--ply", str(ply), "--db", str(db), "--no-progress"
    )
    phases = {name: float(seconds) for name, seconds in PHASE.findall(output)}
    first = FIRST_BATCH.search(output)
    if first:
        phases["first batch"] = float(first.group(1))
    phases["whole process"] = wall
    return phases


def measure(args: argparse.Namespace, temp: Path) -> dict[str, list[dict[str, float]]]:
    rounds: dict[str, list[dict[str, float]]] = {}
    with baseline_tree(args.baseline, temp) as baseline:
        sides = {"this": ROOT} | ({"baseline": baseline} if baseline is not None else {})
        for round_ in range(args.rounds + 1):  # round 0 warms the kernels' caches up
            for name, tree in sides.items():
                bare, _ = run(ROOT, BARE_INIT)
                db = temp / f"{name}-{round_}.db"
                phases = build_phases(tree, db, args.root, args.ply)
                db.unlink()
                if round_:
                    rounds.setdefault(name, []).append(
                        {"bare ray.init": float(bare.split()[0])} | phases
                    )
    return rounds


def report(rounds: dict[str, list[dict[str, float]]]) -> None:
    print(f"{'median seconds':<16}" + "".join(f"{c:>15}" for c in COLUMNS))
    for name, measured in rounds.items():
        cells = []
        for column in COLUMNS:
            values = [m[column] for m in measured if column in m]
            cells.append(f"{statistics.median(values):>15.2f}" if values else f"{'-':>15}")
        print(f"{name:<16}" + "".join(cells))
    for name, measured in rounds.items():
        over = [m["start"] - m["bare ray.init"] for m in measured]
        print(
            f"{name}: start minus bare ray.init, median {statistics.median(over):+.2f} s "
            f"(rounds {', '.join(f'{o:+.2f}' for o in over)})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default="44444433", help="the build's root (the quick start's)")
    parser.add_argument("--ply", type=int, default=14, help="the build's last ply")
    parser.add_argument("--rounds", type=at_least_one, default=5, help="counted rounds")
    parser.add_argument(
        "--baseline", metavar="REV", help="git revision whose build to compare with"
    )
    args = parse_args(parser, argv)
    print(
        f"bench_start: root {args.root}, ply {args.ply}, {args.rounds} rounds, "
        f"{os.cpu_count()} cores" + (f"; baseline {args.baseline}" if args.baseline else "")
    )
    report(in_temp_folder(parser, lambda temp: measure(args, temp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Benchmark two routes to a deeper book: one ply at a time under exact parents, or straight.

For each of ``--roots`` random positions at ``--root-ply``, it builds that
root's book to ``--base`` (so that the next ply is grown under exact
parents, as on the shipped book), copies it, and then grows one copy
straight to ``--ply`` (only the deepest ply searched, unbounded: the ply
above it is absent) and the other one ply at a time (each under the exact
ply above).  Both books must be equal entry by entry.  Prints each root's
searched positions, nodes and core seconds of both routes and their ratio;
nodes are the same under any load, seconds are not.

A root's subtree gives a deep position only the parents inside it, so the
one-ply-at-a-time route finds somewhat fewer exact bounds than on a whole book.

    python scripts/bench_route.py --roots 9 --root-ply 9 --base 12 --ply 14
"""

from __future__ import annotations

import argparse
import io
import random
import shutil
import tempfile
from pathlib import Path

from _args import at_least_one, parse_args

from bookgen import Book
from bookgen.builder.driver import build
from solver.position import random_position


def grow(db: Path, root: str, plies: range) -> tuple[int, int, float]:
    """``(searched, nodes, core seconds)`` of building ``db`` to each of ``plies`` in turn."""
    searched = nodes = 0
    core = 0.0
    for ply in plies:
        done = build(str(db), ply, root, workers=1, threads=1, progress=False, out=io.StringIO())
        searched, nodes, core = (
            searched + done.searched,
            nodes + done.nodes,
            core + done.core_seconds,
        )
    return searched, nodes, core


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--roots", type=at_least_one, default=9, help="subtrees to build")
    parser.add_argument("--root-ply", type=int, default=9, help="their roots' ply")
    parser.add_argument("--base", type=int, default=12, help="the ply both routes grow from")
    parser.add_argument("--ply", type=int, default=14, help="the ply both routes reach")
    parser.add_argument("--seed", type=int, default=15)
    args = parse_args(parser, argv)

    rng = random.Random(args.seed)
    print(
        f"from ply {args.base} to {args.ply}, {args.roots} roots at ply {args.root_ply}: "
        "straight against one ply at a time"
    )
    print(
        " root        | straight: searched nodes  core s | by ply: searched nodes  core s | nodes"
    )
    totals = [0, 0]
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.roots):
            root = random_position(rng, args.root_ply).moves
            straight, stepped = Path(folder) / "straight.db", Path(folder) / "stepped.db"
            grow(straight, root, range(args.base, args.base + 1))
            shutil.copy(straight, stepped)
            a = grow(straight, root, range(args.ply, args.ply + 1))
            b = grow(stepped, root, range(args.base + 1, args.ply + 1))
            with (
                Book.open(straight, compiled=False) as one,
                Book.open(stepped, compiled=False) as two,
            ):
                if list(one.entries()) != list(two.entries()):
                    raise SystemExit(f"the two routes' books from {root} differ")
            totals[0] += a[1]
            totals[1] += b[1]
            print(
                f" {root:11} | {a[0]:>8,} {a[1]:>13,} {a[2]:7.1f} | "
                f"{b[0]:>8,} {b[1]:>13,} {b[2]:7.1f} | {b[1] / a[1]:5.2f}"
            )
            for path in (straight, stepped):
                path.unlink()
    print(f"one ply at a time over straight, nodes in all: {totals[1] / totals[0]:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark the book build on one subtree: scaling, overhead, frontier-first.

1. Builds the subtree with each worker layout (``--layouts``, processes x
   threads: ``1x1`` one solver; ``2x1`` two processes with a table each;
   ``1x2`` one process whose two threads share a table), each into a fresh
   SQLite file on a fresh embedded Ray, and checks the books are equal.
   For each: frontier positions per second, scaling efficiency against the
   first layout, and the share of the frontier phase's solver time not spent
   solving (Ray scheduling, serialisation, the driver's database writes,
   threads waiting for a batch's last position).
2. Solves every shallower position of the subtree from scratch, the way the
   frontier is solved (weak, strong in-sign, all best moves), and compares
   its cost with the frontier-first derivation.

    python scripts/bench_build.py --root 44444433 --ply 13
"""

from __future__ import annotations

import argparse
import io
import os
import sqlite3
import sys
import tempfile
import time
from contextlib import closing

from _args import add_table_log2, parse_args

from bookgen.builder.driver import build
from bookgen.builder.listing import keys_by_ply
from bookgen.builder.solve_position import solve_position
from solver import Position, Solver
from solver.packed import moves_of_keys


def book_rows(path: str) -> list[tuple]:
    with closing(sqlite3.connect(path)) as db:
        return db.execute(
            "SELECT key, score, wdl, best_moves, move_scores FROM positions ORDER BY key"
        ).fetchall()


def parse_layout(text: str) -> tuple[int, int]:
    processes, _, threads = text.partition("x")
    try:
        layout = int(processes), int(threads or 1)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"layout {text!r} is not PROCESSESxTHREADS, e.g. 1x2"
        ) from None
    if min(layout) < 1:
        raise argparse.ArgumentTypeError(f"layout {text!r} needs at least one of each")
    return layout


def bench_layouts(
    root: str, ply: int, layouts: list[tuple[int, int]], table_log2: int
) -> dict[tuple[int, int], dict]:
    results = {}
    books = {}
    for layout in layouts:
        processes, threads = layout
        k = processes * threads
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.db")
            started = time.perf_counter()
            summary = build(
                path,
                ply,
                root,
                workers=k,
                threads=threads,
                table_log2=table_log2,
                progress=False,
                out=io.StringIO(),
            )
            wall = time.perf_counter() - started
            books[layout] = book_rows(path)
        frontier_wall = summary.timings["frontier"]
        results[layout] = {
            "solvers": k,
            "positions": summary.searched,
            "wall": wall,
            "frontier_wall": frontier_wall,
            "core": summary.core_seconds,
            "rate": summary.searched / frontier_wall,
            "overhead": 1 - summary.core_seconds / (k * frontier_wall),
            "start": summary.timings.get("start", 0.0),
            "writes": summary.timings.get("writes", 0.0),
            "derive": summary.timings.get("derive", 0.0),
            "derived": summary.derived,
            "batches": summary.batches,
            "nodes": summary.nodes,
        }
    first = books[layouts[0]]
    for layout in layouts[1:]:
        if books[layout] != first:
            sys.exit(f"the book built with layout {layout} differs from {layouts[0]}")
    return results


def bench_scratch(root: str, ply: int, table_log2: int) -> tuple[int, float]:
    """Positions above the frontier, and the seconds to solve them all directly."""
    levels = keys_by_ply(Position.from_moves(root), ply)
    solver = Solver(table_log2=table_log2)
    solver.solve(Position.from_moves(root))  # loads the compiled kernels outside the timing
    solver.clear()
    shallower = [
        moves
        for level in range(ply - 1, min(levels) - 1, -1)
        for moves in moves_of_keys(levels[level], root)
    ]
    started = time.perf_counter()
    for moves in shallower:
        solve_position(solver, moves)
    return len(shallower), time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default="44444433", help="subtree root (default: 44444433)")
    parser.add_argument("--ply", type=int, default=13, help="last ply (default: 13)")
    parser.add_argument(
        "--layouts",
        type=parse_layout,
        nargs="+",
        default=[(1, 1), (2, 1), (1, 2)],
        help="PROCESSESxTHREADS layouts to compare (default: 1x1 2x1 1x2)",
    )
    add_table_log2(parser, 22, "transposition table per process, log2 of slots (default: 22)")
    parser.add_argument(
        "--no-scratch", action="store_true", help="skip the from-scratch comparison"
    )
    args = parse_args(parser, argv)

    print(
        f"subtree {args.root or '(empty board)'} to ply {args.ply}; "
        f"{os.cpu_count()} CPUs on this machine"
    )
    results = bench_layouts(args.root, args.ply, args.layouts, args.table_log2)
    base = results[args.layouts[0]]
    print(
        f"\n{'layout':>7} {'frontier':>9} {'pos/s':>8} {'scaling':>8} {'overhead':>9} "
        f"{'batches':>8} {'M nodes':>8} {'M nodes/s':>10} {'start':>8} {'writes':>8} "
        f"{'derive':>8} {'total wall':>11}"
    )
    for (processes, threads), r in results.items():
        scaling = r["rate"] / (base["rate"] * r["solvers"] / base["solvers"])
        print(
            f"{f'{processes}x{threads}':>7} {r['positions']:>9,} {r['rate']:>8.1f} {scaling:>8.0%} "
            f"{r['overhead']:>9.1%} {r['batches']:>8,} {r['nodes'] / 1e6:>8,.0f} "
            f"{r['nodes'] / r['core'] / 1e6:>10.2f} {r['start']:>6.1f} s "
            f"{r['writes']:>6.2f} s {r['derive']:>6.2f} s {r['wall']:>9.1f} s"
        )
    print(
        "layout: processes x threads; overhead: the share of the solvers' frontier "
        "wall time not spent solving"
    )

    if not args.no_scratch:
        count, seconds = bench_scratch(args.root, args.ply, args.table_log2)
        frontier = base["core"]
        derive = base["derive"]
        print(
            f"\nfrontier first: {base['positions']:,} frontier positions searched in "
            f"{frontier:.1f} core-s; {base['derived']:,} shallower positions derived "
            f"in {derive:.2f} s"
        )
        print(
            f"from scratch:   the same {count:,} shallower positions searched in "
            f"{seconds:.1f} core-s more, {(frontier + seconds) / (frontier + derive):.2f}x "
            f"the frontier-first cost"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

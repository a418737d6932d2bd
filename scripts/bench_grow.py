#!/usr/bin/env python3
"""Benchmark growing a book one ply deeper: the frontier solved plain and with its parents' bounds.

Takes runs of neighbouring positions (in key order, as a build's batches
are) from the frontier at ``--ply`` (by default the ply the book grows
next), whose parents the book ``--db`` holds with their best moves (only a
book's deepest ply keeps them), and solves each run twice, each time with a
fresh solver: as a fresh book would (``solve_position`` alone), and as a
grown one does (with the bounds of ``parent_bounds``).  Both must give the
same scores and best moves.
Prints per run the share of exact bounds, nodes and seconds of both, and
their ratios (nodes are the same under any load; seconds are not).

    python scripts/bench_grow.py --db book.db --count 200         # ply 13 of the shipped book
    python scripts/bench_grow.py --db tests/data/ply10.db --ply 11 --count 300
"""

from __future__ import annotations

import argparse
import time

from _args import parse_args

from bookgen.book.write.store import BookStore
from bookgen.builder.listing import frontier_chunks, keys_by_ply
from bookgen.builder.solve_position import solve_position
from solver import Position, Solver
from solver.packed import positions_of_keys


def solve_run(positions, known, table_log2: int) -> tuple[list, int, float]:
    """(answers, nodes, seconds) of a fresh solver over ``positions``."""
    solver = Solver(table_log2=table_log2)
    solver.solve("4444443")  # kernels loaded before the clock starts
    solver.reset_nodes()
    started = time.perf_counter()
    answers = [solve_position(solver, p, *k)[:2] for p, k in zip(positions, known, strict=True)]
    return answers, solver.nodes, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default="book.db", help="a book holding ply - 1")
    parser.add_argument(
        "--ply",
        type=int,
        default=None,
        help="the frontier to sample (default: the ply the book grows next, "
        "after its deepest complete one)",
    )
    parser.add_argument("--count", type=int, default=200, help="positions per run")
    parser.add_argument(
        "--at",
        type=float,
        nargs="+",
        default=[0.3, 0.7],
        help="where each run starts, as a share of the first listed slice",
    )
    parser.add_argument("--table-log2", type=int, default=24)
    args = parse_args(parser, argv)

    root = Position()
    store = BookStore(args.db, "", root.canonical_key, readonly=True)
    try:
        ply = args.ply or max(store.complete_plies(), default=0) + 1
        parents = store.entries_above(ply)
        kept_best = store.entries_at(ply - 1).best is not None
    finally:
        store.close()
    if parents is None:
        raise SystemExit(f"{args.db} holds no entries at ply {ply - 1}")
    if not kept_best:
        # Only a book's deepest ply keeps best moves; without them no bound is exact.
        raise SystemExit(
            f"{args.db} keeps no best moves at ply {ply - 1} (only its deepest "
            f"ply does): its bounds at ply {ply} would never be exact; leave out "
            "--ply for the ply this book grows next, or give a book whose deepest "
            f"ply is {ply - 1}"
        )
    chunk = next(frontier_chunks(keys_by_ply(root, ply - 1)[ply - 1]))
    print(
        f"ply {ply} frontier of {args.db}, runs of {args.count} neighbours "
        f"(table 2**{args.table_log2})"
    )
    print(" start | exact | plain nodes  seconds | bounded nodes  seconds | nodes  time")
    for at in args.at:
        start = int(at * len(chunk))
        keys = chunk[start : start + args.count]
        bounds = parents.bounds(keys)
        positions = positions_of_keys(keys)
        plain, plain_nodes, plain_s = solve_run(positions, [()] * len(keys), args.table_log2)
        grown, grown_nodes, grown_s = solve_run(
            positions, [bounds.known(i) for i in range(len(keys))], args.table_log2
        )
        if plain != grown:
            raise SystemExit(f"bounded answers differ from plain ones in the run at {at}")
        print(
            f" {at:5.2f} | {bounds.exact.mean():5.0%} | {plain_nodes:>11,} {plain_s:8.1f} | "
            f"{grown_nodes:>13,} {grown_s:8.1f} | {grown_nodes / plain_nodes:5.3f} "
            f"{grown_s / plain_s:5.3f}"
        )


if __name__ == "__main__":
    main()

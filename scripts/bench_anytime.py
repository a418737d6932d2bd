#!/usr/bin/env python3
"""Benchmark the AI under a time budget: how often its move keeps the result, and is exact.

300 positions (fixed seed) at plies 9-16, the ends of random legal games
(issue 15's set, chosen when the book reached ply 8).  Each position is
analysed exactly once (every move's score, by the solver; cached in
``--cache``), then the AI (``Player(Book.open(db), time_budget=...)``)
answers it under each budget.
A move keeps the result when its score has the position's sign, and is
exact when it has the position's score.

    python scripts/bench_anytime.py --db book.db --budgets 0.02 0.1 1
    python scripts/bench_anytime.py --db book.db --nodes 100000 --misses
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from _args import parse_args

from bookgen import Book, Player
from solver import Position, Solver
from solver.position import random_position

PLIES = range(9, 17)


def random_positions(ply: int, count: int, seed: int) -> list[str]:
    """Unfinished positions at ``ply``, the ends of random legal games (fixed seed)."""
    rng = random.Random(seed)
    return [random_position(rng, ply).moves for _ in range(count)]


def positions(count: int, seed: int) -> list[str]:
    """``count`` positions spread evenly over plies 9-16 (fixed seed)."""
    per_ply = {ply: count // len(PLIES) + (i < count % len(PLIES)) for i, ply in enumerate(PLIES)}
    return [moves for ply in PLIES for moves in random_positions(ply, per_ply[ply], seed + ply)]


def analyses(all_moves: list[str], cache: Path) -> dict[str, list[int | None]]:
    """Every move's exact score for each position, from the cache or the solver."""
    known = json.loads(cache.read_text()) if cache.exists() else {}
    missing = [m for m in all_moves if m not in known]
    if missing:
        solver = Solver(table_log2=25)
        started = time.perf_counter()
        for i, moves in enumerate(missing, 1):
            known[moves] = solver.analyze(Position.from_moves(moves))
            if i % 25 == 0:
                print(
                    f"  analysed {i}/{len(missing)} ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known, indent=0, sort_keys=True))
    return known


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def run_budget(
    db: str, budget: float, all_moves: list[str], scores: dict, nodes: bool = False
) -> list[dict]:
    """Each position answered within ``budget`` seconds (or, with ``nodes``, nodes)."""
    rows = []
    with Book.open(db) as book:
        player = (
            Player(book, node_budget=int(budget)) if nodes else Player(book, time_budget=budget)
        )
        # Load the kernels before anything is timed: a position of each ply (another
        # seed's), so that the first searched past the book's last ply is not the one that
        # loads numba, whatever the book's depth.
        for ply in PLIES:
            player.choose(random_positions(ply, 1, seed=-ply)[0])
        for moves in all_moves:
            decision = player.choose(moves)
            move_scores = scores[moves]
            best = max(s for s in move_scores if s is not None)
            got = move_scores[decision.column - 1]
            rows.append(
                {
                    "moves": moves,
                    "how": decision.source,
                    "ply": len(moves),
                    "seconds": decision.seconds,
                    "kept": sign(got) == sign(best),
                    "exact": got == best,
                    "proven": decision.proven,
                    "column": decision.column,
                }
            )
    return rows


def summary(rows: list[dict]) -> str:
    n = len(rows)
    kept = sum(r["kept"] for r in rows)
    exact = sum(r["exact"] for r in rows)
    proven = sum(r["proven"] for r in rows)
    times = sorted(r["seconds"] for r in rows)
    return (
        f"{n:>4} | {kept:>4} ({100 * kept / n:5.1f}%) | {exact:>4} ({100 * exact / n:5.1f}%) | "
        f"{proven:>4} | {statistics.median(times) * 1000:7.1f} | {times[-1] * 1000:7.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="book.db")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.02, 0.1, 1.0])
    parser.add_argument(
        "--nodes",
        type=int,
        nargs="+",
        help="node budgets instead of time budgets: the same answers under any "
        "load, for comparing changes on a shared machine",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path("scripts/data/bench_anytime_scores.json"),
        help="exact analyses, kept between runs (default: %(default)s)",
    )
    parser.add_argument(
        "--misses", action="store_true", help="list the positions whose result the AI's move lost"
    )
    args = parse_args(parser)

    all_moves = positions(args.count, args.seed)
    scores = analyses(all_moves, args.cache)
    header = "   n | keeps the result | exactly optimal | proven | median ms | worst ms"
    for budget in args.nodes or args.budgets:
        rows = run_budget(args.db, budget, all_moves, scores, nodes=bool(args.nodes))
        unit = "nodes" if args.nodes else "s"
        print(f"\nbudget {budget:,} {unit}\n ply {header}")
        for ply in PLIES:
            print(f"  {ply:>2} {summary([r for r in rows if r['ply'] == ply])}")
        print(f" all {summary(rows)}")
        lost = [r for r in rows if not r["kept"]]
        if lost and args.misses:
            print(
                " result lost: "
                + ", ".join(
                    f"{r['moves']} (played {r['column']}, scores {scores[r['moves']]})"
                    for r in lost
                )
            )
        if args.nodes:
            continue
        slowest = sorted(rows, key=lambda r: -r["seconds"])[:3]
        print(
            f" worst answer: {(slowest[0]['seconds'] - budget) * 1000:+.1f} ms against the "
            "budget; slowest: "
            + ", ".join(f"{r['moves']} ({r['how']}, {r['seconds'] * 1000:.1f} ms)" for r in slowest)
        )
        over = [r for r in rows if r["seconds"] > budget + 0.020]
        print(f" answers more than 20 ms over: {len(over)}", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark the perfect AI's answer time per ply, with two books side by side.

For each ply, positions at the ends of random legal games (fixed seed) are
answered by ``Player(book)`` (perfect, no budget) with this book, then with
the baseline book (the order alternating ply by ply).  Not position by
position: a search with one book (a 1 GiB table) would evict the other's
arrays from the caches, and a book answer takes microseconds.  Plies the
book holds get ``--book-count`` positions (a p99 needs many), the others
``--count``.

    python scripts/bench_move_time.py --db book.db --baseline-db tests/data/ply10.db
    python scripts/bench_move_time.py --plies 13 14 --count 60

Targets (issue 28, a book to ply 12): from the book at plies 9-12 a best
move in p99 <= 0.1 ms; at plies 13-14 a median <= 5 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from _args import parse_args
from bench_anytime import random_positions

from bookgen import Book, Player

ROOT = Path(__file__).resolve().parent.parent


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=str(ROOT / "book.db"), help="this book")
    parser.add_argument(
        "--baseline-db",
        default=str(ROOT / "tests" / "data" / "ply10.db"),
        help="the book to compare with (default: the fixed ply-10 book)",
    )
    parser.add_argument("--plies", type=int, nargs="+", default=[9, 10, 11, 12, 13, 14])
    parser.add_argument("--count", type=int, default=60, help="positions a ply past the book")
    parser.add_argument(
        "--book-count", type=int, default=1000, help="positions a ply this book holds"
    )
    parser.add_argument("--seed", type=int, default=2028)
    args = parse_args(parser, argv)

    books = {"this": Book.open(args.db), "baseline": Book.open(args.baseline_db)}
    players = {name: Player(book) for name, book in books.items()}
    # Load the kernels before anything is timed: a position of each ply asked (another
    # seed's), so that the first searched past a book's last ply is not the one that loads
    # numba, whatever the book's depth.
    for player in players.values():
        player.choose("4453")  # a parent ply: its kernel too
        for ply in args.plies:
            player.choose(random_positions(ply, 1, -ply)[0])
    last = books["this"].info.max_ply
    print(
        f"this: {args.db} (complete to ply {last}); baseline: {args.baseline_db} "
        f"(complete to ply {books['baseline'].info.max_ply}); perfect AI, no budget"
    )
    print(
        f"{'ply':>4} {'n':>5} | {'this: median':>12} {'p99':>9} {'worst':>9} {'book':>5} | "
        f"{'baseline: median':>16} {'p99':>9} {'worst':>9} {'book':>5}"
    )
    for ply in args.plies:
        count = args.book_count if ply <= last else args.count
        times: dict[str, list[float]] = {name: [] for name in players}
        from_book = dict.fromkeys(players, 0)
        order = list(players) if ply % 2 == 0 else list(players)[::-1]
        positions = random_positions(ply, count, args.seed + ply)  # the same for both books
        for name in order:
            for moves in positions:
                started = time.perf_counter()
                decision = players[name].choose(moves)
                times[name].append(time.perf_counter() - started)
                from_book[name] += decision.source == "book"
        cells = []
        for name in players:
            ms = [t * 1000 for t in times[name]]
            cells.append(
                f"{statistics.median(ms):>{16 if name == 'baseline' else 12}.3f} "
                f"{percentile(ms, 0.99):>9.3f} {max(ms):>9.1f} "
                f"{from_book[name] / count:>5.0%}"
            )
        print(f"{ply:>4} {count:>5} | {cells[0]} | {cells[1]}   (ms)", flush=True)
    for book in books.values():
        book.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

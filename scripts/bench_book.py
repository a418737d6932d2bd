#!/usr/bin/env python3
"""Benchmark reading a book: opening it, looking positions up one by one and
many at once, the AI's answer; from SQLite and from memory (``in_memory=True``).

Positions are sampled (fixed seed) from the book itself, half of them in
mirrored orientation, so both lookup paths are timed.

    python scripts/bench_book.py --db book.db --lookups 20000
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import subprocess
import sys
import time
from contextlib import closing

from bookgen import Book, Player


def sample_moves(db: str, count: int, seed: int) -> list[str]:
    import numpy as np

    from solver.packed import moves_of_keys

    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        keys = [row[0] for row in conn.execute("SELECT key FROM positions")]
        root = conn.execute("SELECT value FROM meta WHERE name = 'root'").fetchone()[0]
    moves = moves_of_keys(np.array(keys, dtype=np.uint64), root)  # books store keys only
    rng = random.Random(seed)
    picked = [rng.choice(moves) for _ in range(count)]
    # Half in the other orientation: the lookup then goes through the mirror.
    return [m if i % 2 else "".join(str(8 - int(c)) for c in m) for i, m in enumerate(picked)]


def raw_lookups(db: str, positions: list[str]) -> list[float]:
    """One sqlite3 query per known key, no parsing: what Book.get adds to is this."""
    from solver import Position

    keys = [Position.from_moves(m).canonical_key for m in positions]
    times = []
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        for key in keys:
            t = time.perf_counter()
            row = conn.execute("SELECT key, score, best_moves, move_scores FROM positions "
                               "WHERE key = ?", (key,)).fetchone()
            times.append(time.perf_counter() - t)
            assert row is not None
    return times


def random_positions(ply: int, count: int, seed: int) -> list[str]:
    """Unfinished positions at ``ply`` from random legal games (fixed seed)."""
    from solver import Position

    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = Position()
        while position.ply < ply and not position.is_game_over:
            position = position.play(rng.choice(position.legal_moves()))
        if position.ply == ply and not position.is_game_over:
            found.append(position.moves)
    return found


def time_past_the_book(player: Player, ply: int, count: int, seed: int) -> list[float]:
    times = []
    for moves in random_positions(ply, count, seed):
        decision = player.choose(moves)
        assert decision.proven, (moves, decision)
        times.append(decision.seconds)
    return times


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return (f"mean {statistics.fmean(samples) * 1e6:7.1f} us, median {pick(0.5) * 1e6:7.1f} us, "
            f"p99 {pick(0.99) * 1e6:7.1f} us")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="book.db", help="book file (default: book.db)")
    parser.add_argument("--lookups", type=int, default=20_000, help="positions to look up")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--past", type=int, default=0, metavar="N",
                        help="also time the AI on N positions at each of the 2 plies past the book")
    parser.add_argument("--after", type=int, default=None, metavar="PLY",
                        help="the book's last ply for --past (default: from its metadata)")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import bookgen.book.reader"], check=True)
    import_seconds = time.perf_counter() - started

    readers = {}
    open_seconds = {}
    for label, in_memory in (("SQLite", False), ("in memory", True)):
        started = time.perf_counter()
        readers[label] = Book.open(args.db, in_memory=in_memory)
        open_seconds[label] = time.perf_counter() - started
    positions = sample_moves(args.db, args.lookups, args.seed)
    lookups = {label: [] for label in readers}
    for moves in positions:  # the two readers in turn: the machine's noise hits both alike
        for label, book in readers.items():
            t = time.perf_counter()
            entry = book.get(moves)
            lookups[label].append(time.perf_counter() - t)
            assert entry is not None, moves
    from solver import Position

    parents = [Position.from_moves(p) for p in positions[:2000]]
    children = [[p.play(c) for c in p.legal_moves()] for p in parents]  # as the AI asks
    batches = {label: [] for label in readers}
    children_seconds = {}
    answers = {label: [] for label in readers}
    for label, book in readers.items():
        book.get_many(positions[:1000])  # numpy's first call loads it: outside the timing
    for _ in range(5):
        for label, book in readers.items():
            t = time.perf_counter()
            entries = book.get_many(positions)
            batches[label].append(time.perf_counter() - t)
            assert all(e is not None for e in entries)
    for label, book in readers.items():
        t = time.perf_counter()
        for group in children:
            book.get_many(group)
        children_seconds[label] = (time.perf_counter() - t) / len(children)
    players = {label: Player(book) for label, book in readers.items()}
    for moves in positions[:2000]:
        for label, player in players.items():
            t = time.perf_counter()
            decision = player.choose(moves)
            answers[label].append(time.perf_counter() - t)
            assert decision.source == "book", (moves, decision)
    raw = raw_lookups(args.db, positions)
    for book in readers.values():
        book.close()

    print(f"book {args.db}: {len(positions):,} lookups of positions sampled from it")
    print(f"python -c 'import bookgen.book.reader' (a fresh process): {import_seconds * 1e3:.0f} ms")
    print(f"raw sqlite3, by key:        {percentiles(raw)}  (SQLite's floor: no parsing, no objects)")
    for label in readers:
        best = min(batches[label])
        print(f"-- Book.open(db{', in_memory=True' if label == 'in memory' else ''})")
        print(f"Book.open:                  {open_seconds[label] * 1e3:.1f} ms")
        print(f"Book.get:                   {percentiles(lookups[label])}")
        print(f"Book.get_many:              {len(positions) / best:,.0f} positions/s "
              f"(best of {len(batches[label])} calls of {len(positions):,}; median "
              f"{len(positions) / statistics.median(batches[label]):,.0f}/s)")
        print(f"Book.get_many(children):    {children_seconds[label] * 1e6:6.1f} us per call, "
              f"a position's children as Positions")
        print(f"Player.choose from book:    {percentiles(answers[label])}")
    if args.past:
        with Book.open(args.db, in_memory=True) as book:
            last = book.info.max_ply if args.after is None else args.after
            player = Player(book)
            player.choose("4444443")  # load the compiled kernels outside the timing
            for ply in (last + 1, last + 2):
                times = time_past_the_book(player, ply, args.past, args.seed + ply)
                ordered = sorted(times)
                print(f"Player.choose at ply {ply:>2}:  median {ordered[len(ordered) // 2]:.3f} s, "
                      f"worst {ordered[-1]:.3f} s, mean {statistics.fmean(times):.3f} s "
                      f"over {len(times)} random positions (searched)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

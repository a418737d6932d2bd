#!/usr/bin/env python3
"""Check a book against an outside solver: Pascal Pons' ``c4solver``, run with ``-a``.

For a uniform random sample of a book's positions (by default every ply it
holds; ``--plies`` picks), his solver gives every move's score; from them
the position's score and best moves follow.  Each must equal the book's: the
score and best moves everywhere, and every move's score where the book holds
them (below its deepest ply).  7x6 only: his solver is compiled for it.  This
project never ships or builds his solver: build it yourself
(github PascalPons/connect4, ``make``) and give its path.

Prints the positions checked per ply and any disagreement (exit status 1).

    python scripts/check_outside.py --solver /tmp/pons/c4solver --db book.db --count 2000
"""

from __future__ import annotations

import argparse
import random
import subprocess
from pathlib import Path

from _args import at_least_one, parse_args

from bookgen import Book


def sample(db: Path, plies: list[int] | None, count: int, seed: int) -> list:
    """``count`` entries drawn uniformly from the book's plies ``plies`` (all: ``None``)."""
    rng = random.Random(seed)
    chosen: list = []
    seen = 0
    with Book.open(db, compiled=False) as book:
        for entry in book.entries(ply=plies):
            seen += 1  # reservoir sampling: one pass, any size
            if len(chosen) < count:
                chosen.append(entry)
            elif (at := rng.randrange(seen)) < count:
                chosen[at] = entry
    return chosen


def outside_scores(solver: Path, moves: list[str], timeout: float) -> list[list[int | None]]:
    """Every move's score of each position, by Pons' solver (``-a``); ``None``: a full column."""
    done = subprocess.run(
        [str(solver), "-a"],
        input="".join(m + "\n" for m in moves),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    lines = done.stdout.splitlines()
    if len(lines) != len(moves):
        raise SystemExit(f"{solver} answered {len(lines)} lines for {len(moves)} positions")
    rows = []
    for asked, line in zip(moves, lines, strict=True):
        fields = line.split()
        got = fields[0] if len(fields) == 8 else ""  # the empty board's line starts with its scores
        if got != asked:
            raise SystemExit(f"{solver} answered {line!r} for {asked!r}")
        rows.append([None if s == "-1000" else int(s) for s in fields[-7:]])
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--solver", type=Path, required=True, help="Pons' c4solver binary")
    parser.add_argument("--db", type=Path, default=Path("book.db"), help="the book checked")
    parser.add_argument("--plies", type=int, nargs="+", help="the plies sampled (default: all)")
    parser.add_argument("--count", type=at_least_one, default=2000, help="positions checked")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds for the solver")
    args = parse_args(parser, argv)

    entries = sample(args.db, args.plies, args.count, args.seed)
    theirs = outside_scores(args.solver, [e.moves for e in entries], args.timeout)
    wrong, with_moves = 0, 0
    per_ply: dict[int, int] = {}
    for entry, scores in zip(entries, theirs, strict=True):
        score = max(s for s in scores if s is not None)
        best = tuple(col for col, s in enumerate(scores, start=1) if s == score)
        mine = [entry.score, tuple(entry.best_moves)]
        if entry.move_scores is not None:
            mine.append(list(entry.move_scores))
            with_moves += 1
        if mine != [score, best, scores][: len(mine)]:
            wrong += 1
            print(f"{entry.moves!r}: the book says {mine}, Pons' solver {[score, best, scores]}")
        per_ply[entry.ply] = per_ply.get(entry.ply, 0) + 1
    counts = ", ".join(f"ply {p}: {n:,}" for p, n in sorted(per_ply.items()))
    print(
        f"{len(entries):,} positions of {args.db} against {args.solver} ({counts}; every move's "
        f"score compared on {with_moves:,}): {wrong} disagree"
    )
    raise SystemExit(1 if wrong else 0)


if __name__ == "__main__":
    main()

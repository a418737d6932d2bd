#!/usr/bin/env python3
"""Benchmark reading a book, alone or side by side with a baseline revision's reader and book.

Each round runs this revision (and the baseline, if given) in fresh processes, in turn,
on the same positions (sampled from the book with a fixed seed, half of them
mirrored; any board, past 64 bits too): opening the book, ``Book.get`` one at a time, ``get_many`` in one
call, a parent's seven move scores (``get`` of a position above the book's
last ply, not asked before), and the memory the open book holds.  The
baseline reads its own revision's ``book.db`` (``git show REV:book.db``), in
memory as it could, whatever its schema.

    python scripts/bench_book.py --db book.db                  # this revision alone
    python scripts/bench_book.py --baseline db49a35~1 --lookups 20000 --rounds 3
    python scripts/bench_book.py --baseline 6532439 --numba   # as a player or server reads
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from _args import at_least_one, parse_args

ROOT = Path(__file__).resolve().parent.parent

# Runs in a fresh process with PYTHONPATH set to a revision's tree.
WORKER = r"""
import json, sys, time
warm, positions, fresh = json.load(open(sys.argv[2]))
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
if sys.argv[3] == "numba":
    import numba   # as a player or a server has it: this revision then looks up compiled
started = time.perf_counter()
from bookgen import Book
imported = time.perf_counter()
before = rss()
start = time.perf_counter()
book = Book.open(sys.argv[1])
opened = time.perf_counter() - start
held = rss() - before
count = len(book)
for moves in warm:
    book.get(moves)   # the first call of each path, and of each parent ply's chunks
gets = []
for moves in positions:
    t = time.perf_counter()
    entry = book.get(moves)
    gets.append(time.perf_counter() - t)
    assert entry is not None, moves
last = book.info.max_ply
# Positions not asked before: their move scores are decoded, not taken from a cache.
parents = [m for m in fresh if len(m) < last][:5000]
children = []
for moves in parents:
    t = time.perf_counter()
    scores = book.get(moves).move_scores
    children.append(time.perf_counter() - t)
    assert scores is not None and len(scores) == book.board.width
book.get_many(positions[:1000])
rates = []
for _ in range(5):
    t = time.perf_counter()
    book.get_many(positions)
    rates.append(len(positions) / (time.perf_counter() - t))
def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]
print(json.dumps({"import": imported - started, "open": opened, "bytes_held": held,
                  "positions": count, "get_p50": pct(gets, 0.5), "get_p99": pct(gets, 0.99),
                  "children_p50": pct(children, 0.5), "children_p99": pct(children, 0.99),
                  "get_many": max(rates)}))
"""

ROWS = [
    ("Book.open (s)", "open", 1, "{:.3f}"),
    ("Book.get p50 (us)", "get_p50", 1e6, "{:.1f}"),
    ("Book.get p99 (us)", "get_p99", 1e6, "{:.1f}"),
    ("7 move scores p50 (us)", "children_p50", 1e6, "{:.1f}"),
    ("7 move scores p99 (us)", "children_p99", 1e6, "{:.1f}"),
    ("get_many (positions/s)", "get_many", 1, "{:,.0f}"),
    ("memory held (bytes/position)", "per_position", 1, "{:.1f}"),
    ("file (bytes/position)", "file", 1, "{:.2f}"),
]


T = TypeVar("T")


class BenchError(Exception):
    """A side that cannot read its book: one line, not a traceback."""


def in_temp_folder(parser: argparse.ArgumentParser, measure: Callable[[Path], T]) -> T:
    """``measure`` of a temporary folder, removed after; a BenchError ends the script in one line."""
    try:
        with tempfile.TemporaryDirectory() as temp:
            return measure(Path(temp))
    except BenchError as error:
        parser.exit(1, f"{parser.prog}: {error}\n")


# Runs with PYTHONPATH set to a revision's tree: the plies its own reader finds complete.
PLIES = (
    "import json, sys; from bookgen import Book; "
    "print(json.dumps(list(Book.open(sys.argv[1]).info.plies_complete)))"
)


def in_tree(tree: Path, code: str, *args: str) -> str:
    """The output of ``code`` run by a fresh Python on ``tree``'s packages."""
    return run_in_tree(tree, code, *args).stdout


def run_in_tree(tree: Path, code: str, *args: str) -> subprocess.CompletedProcess:
    """``code`` run by a fresh Python on ``tree``'s packages, its output captured; a
    failure is a ``BenchError`` with its last line."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=dict(os.environ, PYTHONPATH=str(tree)),
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BenchError(f"{tree.name if tree != ROOT else 'this revision'}: {last}")
    return done


def sample(db: str, count: int, seed: int, plies_also: list[int] | None = None) -> list[str]:
    """Positions of the plies complete in the book (and in ``plies_also``), with this
    revision's listing: half mirrored."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from bookgen import Book
    from bookgen.builder.listing import keys_by_ply, moves_of_keys
    from solver import C4Error, Position

    try:
        with Book.open(db) as book:
            plies = list(book.info.plies_complete)
            root, board = book.info.root, book.board
    except C4Error as error:
        raise BenchError(f"this revision cannot read --db: {error}") from None
    plies = [p for p in plies if plies_also is None or p in plies_also]
    if not plies:
        raise BenchError(f"no ply is complete in both books ({db} and the baseline's)")
    levels = keys_by_ply(Position.from_moves(root, board), max(plies))
    keys = np.concatenate([levels[p] for p in plies if p in levels])
    rng = random.Random(seed)
    moves = moves_of_keys(keys[[rng.randrange(len(keys)) for _ in range(count)]], root, board)
    return [m if i % 2 else board.mirror_moves(m) for i, m in enumerate(moves)]


def run(tree: Path, db: str, positions: str, numba: bool) -> dict:
    result = json.loads(in_tree(tree, WORKER, db, positions, "numba" if numba else "-"))
    result["per_position"] = result["bytes_held"] / result["positions"]
    result["file"] = os.path.getsize(db) / result["positions"]
    return result


@contextmanager
def baseline_tree(revision: str | None, temp: Path) -> Iterator[Path | None]:
    """A checkout of ``revision`` under ``temp`` for the block (``None`` for none), removed
    after it."""
    if not revision:
        yield None
        return
    tree = temp / revision.replace("/", "_")
    added = subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), revision],
        capture_output=True,
        text=True,
    )
    if added.returncode:
        raise BenchError(f"no baseline {revision!r}: {added.stderr.strip()}")
    try:
        yield tree
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
        )


def measure(args: argparse.Namespace, temp: Path) -> dict[str, list[dict]]:
    """Each side's results, round by round: this revision, and the baseline if asked."""
    sides = {"this": (ROOT, os.path.abspath(args.db))}  # the workers run elsewhere
    plies_also = None
    with baseline_tree(args.baseline, temp) as tree:
        if tree is not None:
            sides["baseline"] = (tree, str(tree / "book.db"))
            # The baseline's own reader says what its book holds: this revision's refuses
            # another schema (cabe95d's book is schema 2).
            plies_also = json.loads(in_tree(tree, PLIES, str(tree / "book.db")))
        positions = temp / "positions.json"
        asked = sample(sides["this"][1], 2 * args.lookups + 2000, args.seed, plies_also)
        positions.write_text(
            json.dumps(
                [asked[:2000], asked[2000 : 2000 + args.lookups], asked[2000 + args.lookups :]]
            )
        )
        results: dict[str, list[dict]] = {name: [] for name in sides}
        for round_ in range(args.rounds):
            order = list(sides) if round_ % 2 == 0 else list(sides)[::-1]
            for name in order:
                results[name].append(run(*sides[name], str(positions), args.numba))
        return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=str(ROOT / "book.db"), help="this revision's book")
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="git revision whose reader and book.db to compare with "
        "(default: none, this revision alone)",
    )
    parser.add_argument("--lookups", type=int, default=20_000)
    parser.add_argument("--rounds", type=at_least_one, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--numba",
        action="store_true",
        help="load numba in each process first, as a player or a server "
        "has it (a reader then looks up with compiled kernels)",
    )
    args = parse_args(parser, argv)

    results = in_temp_folder(parser, lambda temp: measure(args, temp))
    print(
        f"{args.lookups:,} lookups sampled from {args.db}; "
        + (f"baseline {args.baseline}; " if args.baseline else "")
        + f"median of {args.rounds} rounds"
        + (", the two sides alternating" if args.baseline else "")
        + ("; numba loaded first" if args.numba else "")
    )
    names = list(results)
    print(f"{'':32}{'this':>14}" + (f"{'baseline':>14}{'ratio':>9}" if args.baseline else ""))
    for label, name, scale, form in ROWS:
        ours, *theirs = [
            statistics.median(r[name] for r in results[side]) * scale for side in names
        ]
        line = f"{label:32}{form.format(ours):>14}"
        for other in theirs:
            line += f"{form.format(other):>14}{ours / other if other else float('nan'):>9.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

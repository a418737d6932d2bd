#!/usr/bin/env python3
"""Benchmark the book's first touch: lookups in a fresh process that has not loaded numba.

Side by side with a baseline revision's reader and its own ``book.db`` (the
same positions, whatever the schema: this side reads ``--db``), each round in
fresh processes that import only ``from bookgen import Book,
Player``, as a user's script does:

* ``Book.get`` of each position once, positions of every ply in random order;
* ``Player(book).best_move`` of each position once, plies 8-12;
* ``get_many`` of ``--many`` positions sampled over the whole book, its first
  call after ``Book.open`` (alone, and with the cycle collector's walk of the
  entries it made, which comes at the caller's next allocations) and its second;
* ``c4book query 4453`` and ``c4book move 4453``, the whole process, with
  the page cache warm and, if this user may drop it, cold.

    python scripts/bench_first_touch.py --baseline 7717256
    python scripts/bench_first_touch.py --rounds 1 --per-ply 200 --many 20000 --no-cold
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _args import at_least_one, parse_args
from bench_book import ROOT, BenchError, baseline_tree, in_temp_folder, in_tree

# Runs in a fresh process with PYTHONPATH set to a revision's tree: argv mode, book, positions.
WORKER = r"""
import json, sys, time
started = time.perf_counter()
from bookgen import Book, Player
imported = time.perf_counter() - started
mode, db, path = sys.argv[1:4]
asked = json.load(open(path))
started = time.perf_counter()
book = Book.open(db)
out = {"import": imported, "open": time.perf_counter() - started}
if mode == "many":
    import gc
    for name in ("first", "second"):
        started = time.perf_counter()
        got = book.get_many(asked)
        out[name] = len(asked) / (time.perf_counter() - started)
        if name == "first":  # the entries held, as a caller does: the collector walks them
            gc.collect(0)
            out["first walked"] = len(asked) / (time.perf_counter() - started)
        del got
else:
    ask = book.get if mode == "get" else Player(book).best_move
    times = {}
    for moves in asked:
        started = time.perf_counter()
        ask(moves)
        times.setdefault(len(moves), []).append(time.perf_counter() - started)
    out["times"] = times
out["numba"] = "numba" in sys.modules
print(json.dumps(out))
"""

DROP = Path("/proc/sys/vm/drop_caches")
COMMANDS = (("query", "4453"), ("move", "4453"))


def sample(db: str, per_ply: int, many: int, seed: int) -> dict:
    """``per_ply`` positions of each ply (all of a smaller ply) in random order, and ``many``
    sampled over the whole book; half of each mirrored."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from bookgen import Book
    from solver.bitboard import STANDARD

    mirror_moves = STANDARD.mirror_moves
    from solver.packed import moves_of_keys

    rng = np.random.default_rng(seed)

    def moves(keys) -> list[str]:
        return [m if i % 2 else mirror_moves(m) for i, m in enumerate(moves_of_keys(keys, root))]

    with Book.open(db) as book:
        root = book.info.root
        keys = {ply: book.slice_of(ply, 0, n)[0] for ply, n in book.count_by_ply().items()}
    each = [
        m
        for ply in sorted(keys)
        for m in moves(keys[ply][rng.choice(len(keys[ply]), min(per_ply, len(keys[ply])), False)])
    ]
    everything = np.concatenate(list(keys.values()))
    return {
        "get": [each[i] for i in rng.permutation(len(each))],
        "move": [each[i] for i in rng.permutation(len(each)) if len(each[i]) >= 8],
        "many": moves(everything[rng.choice(len(everything), many)]),
    }


def command_seconds(tree: Path, db: str, command: tuple[str, ...], cold: bool) -> float:
    """The whole process of ``c4book <command>`` on ``tree``, the page cache dropped first
    if ``cold``."""
    if cold:
        os.sync()
        DROP.write_text("3\n")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bookgen.cli", *command, "--db", db],
        env=dict(os.environ, PYTHONPATH=str(tree)),
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    seconds = time.perf_counter() - started
    if done.returncode:
        raise BenchError(f"c4book {' '.join(command)} failed: {done.stderr.strip()[-200:]}")
    return seconds


def can_drop() -> bool:
    try:
        os.sync()
        DROP.write_text("3\n")
    except OSError:
        return False
    return True


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def measure(args: argparse.Namespace, temp: Path, cold: bool) -> dict[str, list[dict]]:
    """Each side's results, round by round; the sides alternate."""
    db = os.path.abspath(args.db)
    with baseline_tree(args.baseline, temp) as tree:
        sides = {"this": (ROOT, db)}
        if tree is not None:
            sides["baseline"] = (tree, str(tree / "book.db"))
        files = {}
        for mode, asked in sample(db, args.per_ply, args.many, args.seed).items():
            files[mode] = temp / f"{mode}.json"
            files[mode].write_text(json.dumps(asked))
        for side, book in sides.values():  # compiles the tree's bytecode before any timing
            command_seconds(side, book, COMMANDS[0], cold=False)
        results: dict[str, list[dict]] = {name: [] for name in sides}
        for round_ in range(args.rounds):
            for name in list(sides) if round_ % 2 == 0 else list(sides)[::-1]:
                side, book = sides[name]
                got = {
                    mode: json.loads(in_tree(side, WORKER, mode, book, str(path)))
                    for mode, path in files.items()
                }
                for command in COMMANDS:
                    for state in ("warm", "cold") if cold else ("warm",):
                        got[f"{command[0]} {state}"] = command_seconds(
                            side, book, command, state == "cold"
                        )
                results[name].append(got)
        return results


def report(results: dict[str, list[dict]]) -> None:
    """Medians over the rounds, side by side."""
    names = list(results)

    def median(pick) -> list[float]:
        return [statistics.median(pick(r) for r in results[name]) for name in names]

    def row(label: str, values: list[float], form: str) -> None:
        line = f"{label:34}" + "".join(f"{form.format(v):>14}" for v in values)
        if len(values) == 2:
            line += f"{values[0] / values[1] if values[1] else float('nan'):>9.2f}"
        print(line)

    print(f"{'':34}" + "".join(f"{n:>14}" for n in names) + ("    ratio" if len(names) > 1 else ""))
    for mode, label, unit, scale in (
        ("get", "Book.get", "us", 1e6),
        ("move", "best_move", "ms", 1e3),
    ):
        plies = sorted(results[names[0]][0][mode]["times"], key=int)
        for ply in plies:
            for name, q in (("p50", 0.5), ("p99", 0.99), ("worst", 1.0)):
                row(
                    f"{label} ply {ply} {name} ({unit})",
                    median(lambda r: pct(r[mode]["times"][ply], q) * scale),  # noqa: B023 - called here, in the loop
                    "{:.1f}" if unit == "us" else "{:.3f}",
                )
    row("get_many, first call (positions/s)", median(lambda r: r["many"]["first"]), "{:,.0f}")
    row(
        "get_many, first call and the collector's walk of it (positions/s)",
        median(lambda r: r["many"]["first walked"]),
        "{:,.0f}",
    )
    row("get_many, second call (positions/s)", median(lambda r: r["many"]["second"]), "{:,.0f}")
    row("import bookgen (s)", median(lambda r: r["get"]["import"]), "{:.3f}")
    row("Book.open (s)", median(lambda r: r["get"]["open"]), "{:.3f}")
    for command, _ in COMMANDS:
        for state in ("warm", "cold"):
            if f"{command} {state}" in results[names[0]][0]:
                row(
                    f"c4book {command} 4453, {state} (s)",
                    median(lambda r: r[f"{command} {state}"]),  # noqa: B023 - called here, in the loop
                    "{:.3f}",
                )
    loaded = {
        name: any(r[m]["numba"] for r in results[name] for m in ("get", "move", "many"))
        for name in names
    }
    print("numba loaded by a worker: " + ", ".join(f"{n} {v}" for n, v in loaded.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db",
        default=str(ROOT / "book.db"),
        help="the book this side reads (the baseline: its own)",
    )
    parser.add_argument(
        "--baseline", metavar="REV", help="git revision whose reader to compare with"
    )
    parser.add_argument("--rounds", type=at_least_one, default=3)
    parser.add_argument("--per-ply", type=at_least_one, default=1000)
    parser.add_argument("--many", type=at_least_one, default=200_000)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument(
        "--no-cold", action="store_true", help="time the commands with the page cache warm only"
    )
    args = parse_args(parser, argv)
    cold = not args.no_cold and can_drop()
    results = in_temp_folder(parser, lambda temp: measure(args, temp, cold))
    print(
        f"{args.per_ply} positions a ply, {args.many:,} for get_many, from {args.db}; "
        + (f"baseline {args.baseline}; " if args.baseline else "")
        + f"median of {args.rounds} rounds"
        + ("" if cold else "; page cache not dropped")
    )
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())

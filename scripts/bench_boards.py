#!/usr/bin/env python3
"""Time the solver against Steininger's c4 on the empty board of other sizes, one thread each.

Christophe Steininger's ``c4`` (github ChristopheSteininger/c4) is the
fastest Connect 4 solver we know of and has solved boards beyond 7x6, so it
is the yardstick for ours on any size.  It is compiled for one board size
(``src/solver/settings.h``: BOARD_WIDTH, BOARD_HEIGHT, NUM_THREADS); this
project never ships or builds it.  Build one binary per size yourself, with
NUM_THREADS = 1, and give their paths as a pattern with ``{size}`` in it.

Each solve runs in a fresh process; the two take turns size by size, who goes
first alternating round by round, so a slow minute on the shared machine
slows both.  Times are the solve alone: his ``Time to solve`` line (printed
to 10 ms), ours around ``Solver.solve`` after the kernels are loaded and the
table's pages touched.  Printed per size: the median of each, the median
ratio ours/his, our nodes (his count differently: not comparable), and
whether the two scores and the published table agree.  Any disagreement,
or a binary that fails or plays another size, makes the exit status 1.

    python scripts/bench_boards.py 6x6 7x5 9x4 8x5 --c4 '/tmp/c4-{size}/c4' --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _args import add_table_log2, at_least_one, exit_status, parse_args
from solve_boards import board_arg, check, signed

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).resolve().parent

# Run in a fresh interpreter: one empty-board solve, its row as JSON on the last line.
OURS = """\
import json, sys
sys.path.insert(0, {scripts!r})
from solve_boards import solve_empty
print(json.dumps(solve_empty(sys.argv[1], table_log2=int(sys.argv[2]))))
"""


def run_ours(size: str, table_log2: int, timeout: float) -> dict:
    """Our solve of ``size``'s empty board in a fresh process: score, nodes, seconds."""
    done = subprocess.run(
        [sys.executable, "-c", OURS.format(scripts=str(SCRIPTS)), size, str(table_log2)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"our solver failed on {size}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_his(binary: str, size: str, timeout: float) -> dict:
    """His ``c4`` binary's solve of the empty board: score, seconds (his), wall seconds."""
    start = time.perf_counter()
    done = subprocess.run(
        [binary],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "LC_ALL": "C"},
    )
    wall = time.perf_counter() - start
    out = done.stdout
    shape = re.search(r"Using a (\d+) x (\d+) board.*?and (\d+) threads", out)
    score = re.search(r"Final strong score is (-?\d+)", out)
    seconds = re.search(r"Time to solve\s*=\s*([\d.,]+) s", out)
    if done.returncode != 0 or not (shape and score and seconds):
        raise RuntimeError(
            f"{binary} did not print a result (exit {done.returncode}): "
            f"{(out + done.stderr).strip()[-500:]}"
        )
    if f"{shape[1]}x{shape[2]}" != size:
        raise RuntimeError(f"{binary} plays {shape[1]}x{shape[2]}, not {size}")
    if shape[3] != "1":
        print(f"warning: {binary} runs {shape[3]} threads, not 1", file=sys.stderr)
    return {"score": int(score[1]), "seconds": float(seconds[1].replace(",", "")), "wall": wall}


def bench_size(size: str, binary: str, rounds: int, table_log2: int, timeout: float) -> dict:
    """``rounds`` solves each, taking turns; medians, the median ratio and any disagreement."""
    ours, his = [], []
    for round_ in range(rounds):
        turns = ("ours", "his") if round_ % 2 == 0 else ("his", "ours")
        for who in turns:
            if who == "ours":
                ours.append(run_ours(size, table_log2, timeout))
            else:
                his.append(run_his(binary, size, timeout))
    ratios = [
        o["seconds"] / h["seconds"] for o, h in zip(ours, his, strict=True) if h["seconds"] > 0
    ]
    problems = [
        f"{size}: our score {signed(o['score'])}, his {signed(h['score'])} (round {n + 1})"
        for n, (o, h) in enumerate(zip(ours, his, strict=True))
        if o["score"] != h["score"]
    ]
    problems += sorted({problem for o in ours if (problem := check(o))})
    return {
        "size": size,
        "ours": statistics.median(o["seconds"] for o in ours),
        "his": statistics.median(h["seconds"] for h in his),
        "ratio": statistics.median(ratios) if ratios else None,
        "nodes": statistics.median(o["nodes"] for o in ours),
        "score": ours[0]["score"],
        "problems": problems,
    }


def c4_pattern(text: str) -> str:
    """The path of his binaries, with ``{size}`` where each size goes."""
    if "{size}" not in text:
        raise argparse.ArgumentTypeError(
            f"{text!r} has no {{size}} in it, e.g. '/tmp/c4-{{size}}/c4'"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sizes", nargs="+", type=board_arg, metavar="WxH", help="board sizes, e.g. 6x6 7x5 9x4"
    )
    parser.add_argument(
        "--c4",
        required=True,
        metavar="PATTERN",
        type=c4_pattern,
        help="path of his one-thread c4 binary for each size, with {size} "
        "for WxH, e.g. '/tmp/c4-{size}/c4'",
    )
    parser.add_argument(
        "--rounds",
        type=at_least_one,
        default=3,
        help="solves of each size by each solver (default: %(default)s)",
    )
    add_table_log2(
        parser,
        27,
        "our table as a power of two, 8-byte slots (default: %(default)s, "
        "1 GiB, as his default 1 GB)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=3600,
        help="seconds allowed for one solve, process start included (default: %(default)s)",
    )
    args = parse_args(parser, argv)
    sizes = [str(board) for board in dict.fromkeys(args.sizes)]
    missing = [
        args.c4.format(size=size)
        for size in sizes
        if not os.access(args.c4.format(size=size), os.X_OK)
    ]
    if missing:
        parser.error(f"no c4 binary at {', '.join(missing)}")

    print(
        f"empty board, strong, 1 thread each, ours with table 2^{args.table_log2}, "
        f"{args.rounds} round(s), medians"
    )
    header = (
        f"{'size':<6} {'score':>5} {'ours':>9} {'his':>9} {'ours/his':>8} {'our nodes':>15}  agree"
    )
    print(header)
    print("-" * len(header), flush=True)
    problems = []
    for size in sizes:
        try:
            row = bench_size(
                size, args.c4.format(size=size), args.rounds, args.table_log2, args.timeout
            )
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print(f"{size:<6} failed: {error}", flush=True)
            problems.append(f"{size}: {error}")
            continue
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.2f}"
        print(
            f"{size:<6} {signed(row['score']):>5} {row['ours']:>8.2f}s {row['his']:>8.2f}s "
            f"{ratio:>8} {row['nodes']:>15,.0f}  {'NO' if row['problems'] else 'yes'}",
            flush=True,
        )
        problems += row["problems"]
    return exit_status(problems, f"{len(problems)} DISAGREEMENT(S) OR FAILURE(S)")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Benchmark what the build's driver does outside the search: listing, deriving, writing.

    python scripts/bench_driver.py list --ply 12              # every ply, held whole
    python scripts/bench_driver.py list --ply 14 --stream     # the last ply in key-order chunks
    python scripts/bench_driver.py store --ply 11             # writes, reads, derivation
    python scripts/bench_driver.py dry-run --ply 12           # c4book build --dry-run, timed
    python scripts/bench_driver.py build --root 4444 --ply 14 # a real build (about an hour)
    python scripts/bench_driver.py ceiling                    # the driver's CPU a position

``list`` checks the counts per ply against the published table (plies up
to 10) and the total to ply 12, and reports the peak memory of this process
(``ru_maxrss``) and its growth over the baseline after the kernels are loaded.
``store`` writes a whole ply into a fresh SQLite file (or ``--db``) as the
build writes frontier batches, reads it back as arrays, seals it into one segment, reads
that back, derives the ply above and seals that.  ``build`` runs the real driver on a fresh book (585,676 frontier
positions under 4444 at ply 14) and reports its peak memory, the share of
wall time outside solving and the rows written per second.  Each mode runs
in its own process so that peak memory is its own.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import sys
import tempfile
import time

import numpy as np
import zstandard
from _args import parse_args

from bookgen.book.format.blocks import BLOCK_SIZE, LEVEL
from bookgen.book.format.rows import Rows
from bookgen.book.format.segment import Segment
from bookgen.book.write.store import BookStore
from bookgen.builder.derive import derive
from bookgen.builder.listing import keys_by_ply
from bookgen.builder.missing import MissingKeys
from solver import Position

# Canonical positions per ply (unfinished games), from the published table.
PUBLISHED = [1, 4, 25, 121, 568, 2144, 8231, 27109, 91295, 269531, 809464]
TOTAL_TO_12 = 9_188_816
BATCH = 20_000  # frontier rows per transaction, as the build's largest batches


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux


def rss_gb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e9


def calibration() -> str:
    """How fast this core runs plain Python right now: the machine is shared and noisy."""
    wall, cpu = time.perf_counter(), time.process_time()
    total = 0
    for i in range(10**7):
        total += i
    return (
        f"calibration: a 10^7-step Python loop took {time.perf_counter() - wall:.2f} s "
        f"wall, {time.process_time() - cpu:.2f} s CPU"
    )


def warm_up() -> float:
    """Load the kernels (numba's cache) outside the timings; the baseline memory."""
    keys_by_ply(Position(), 6)
    derive(
        keys_by_ply(Position(), 2)[1], keys_by_ply(Position(), 2)[2], np.zeros(25, dtype=np.int8)
    )
    return rss_gb()


def timed(work) -> tuple:
    """``(result, (wall seconds, CPU seconds))``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, (time.perf_counter() - wall, time.process_time() - cpu)


def report(what: str, count: int, seconds: tuple[float, float], unit: str) -> None:
    wall, cpu = seconds
    print(
        f"{what}: {wall:.2f} s = {count / wall:,.0f} {unit}/s "
        f"(CPU {cpu:.2f} s = {count / cpu:,.0f} {unit}/s)"
    )


def bench_list(ply: int, stream: bool) -> None:
    base = warm_up()
    started, cpu = time.perf_counter(), time.process_time()
    counts = {}
    last = ply - 1 if stream else ply
    levels = keys_by_ply(Position(), last)
    for p, keys in levels.items():
        counts[p] = len(keys)
    listed = time.perf_counter() - started
    if stream:
        frontier = MissingKeys(None, Position(), levels, ply)
        for _chunk in frontier.chunks():
            pass
        counts[ply] = frontier.total
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    for p, n in counts.items():
        check = (
            ""
            if p >= len(PUBLISHED)
            else ("  = published" if n == PUBLISHED[p] else f"  != published {PUBLISHED[p]:,}")
        )
        print(f"  ply {p:>2}: {n:>12,}{check}")
    total = sum(counts.values())
    print(
        f"total to ply {ply}: {total:,}"
        + ("" if ply != 12 else "  = published" if total == TOTAL_TO_12 else "  != published")
    )
    mode = "last ply streamed in key-order chunks" if stream else "every ply held whole"
    print(
        f"listing ({mode}): {wall:.1f} s wall, {cpu:.1f} s CPU ({listed:.1f} s wall "
        f"before the last ply); "
        f"peak memory {peak_gb():.2f} GB, {peak_gb() - base:.2f} GB over the "
        f"{base:.2f} GB baseline = {(peak_gb() - base) * 1e9 / counts[ply]:.1f} bytes "
        f"per ply-{ply} position"
    )


def bench_store(ply: int, db: str | None) -> None:
    warm_up()
    levels = keys_by_ply(Position(), ply)
    children = levels[ply]
    rng = np.random.default_rng(ply)
    scores = rng.integers(-5, 6, len(children)).astype(np.int8)
    best = rng.integers(1, 128, len(children)).astype(np.uint8)
    nodes = rng.integers(0, 10**6, len(children))
    with tempfile.TemporaryDirectory() as tmp:
        store = BookStore(db or os.path.join(tmp, "bench.db"), "", Position().canonical_key)

        def write_frontier():
            for start in range(0, len(children), BATCH):
                part = slice(start, start + BATCH)
                store.insert_new(
                    Rows(ply, children[part], scores[part], best[part], nodes=nodes[part]),
                    search_seconds=1.0,
                )

        _, write = timed(write_frontier)
        report(
            f"frontier writes ({len(children):,} ply-{ply} rows, {BATCH:,} a transaction)",
            len(children),
            write,
            "rows",
        )
        (child_keys, child_scores), read = timed(lambda: store.scores_at(ply))
        report("read back as arrays (rows)", len(child_keys), read, "rows")
        store.mark_complete(ply)
        _, seal = timed(lambda: store.pack_rows(ply))
        report(
            f"seal: {len(children):,} rows into blocks, one transaction",
            len(children),
            seal,
            "rows",
        )
        store._segments.clear()  # read the blocks back from the file, not the cache
        (child_keys, child_scores), read = timed(lambda: store.scores_at(ply))
        report("read back as arrays (sealed)", len(child_keys), read, "rows")
        parents = levels[ply - 1]
        entries, derived = timed(lambda: derive(parents, child_keys, child_scores))
        report(
            f"derivation of ply {ply - 1}, children in memory", len(parents), derived, "positions"
        )

        _, upsert = timed(lambda: store.seal(ply - 1, Segment(parents, entries.scores, None)))
        report("derived ply sealed (one transaction)", len(parents), upsert, "positions")
        report(
            "derivation from the book: read, derive, write",
            len(parents),
            tuple(a + b + c for a, b, c in zip(read, derived, upsert, strict=True)),
            "positions",
        )
        store.close()


def bench_dry_run(ply: int, root: str, sample: int) -> None:
    from bookgen.builder.dryrun import dry_run

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        dry_run(
            os.path.join(tmp, "absent.db"), ply, root, sample=sample, progress=False, out=sys.stdout
        )
        print(
            f"c4book build --ply {ply} --dry-run (root {root or 'empty'}): "
            f"{time.perf_counter() - started:.1f} s wall, peak memory {peak_gb():.2f} GB"
        )


def compressor_bytes() -> int:
    """What zstd's compressor holds to seal a ply in blocks: its own estimate for the
    level and a block's largest frame (its keys' gaps, at most 8 bytes a position), a
    cost of the format's compression that no longer grows with the ply."""
    level = zstandard.ZstdCompressionParameters.from_level(LEVEL, source_size=8 * BLOCK_SIZE)
    return level.estimated_compression_context_size()


def small_build(tmp: str, root: str) -> None:
    """A build of ``root`` and two plies, into ``tmp``: what a build pays once in a process
    (Ray's client and the modules it imports at the first task sent, the kernels) is then
    paid, and what a build after it adds is what grows with its frontier."""
    from bookgen.builder.driver import build

    build(
        os.path.join(tmp, "small.db"),
        len(root) + 2,
        root,
        table_log2=20,
        progress=False,
        out=io.StringIO(),
    )


def bench_build(ply: int, root: str, db: str | None, table_log2: int) -> None:
    from bookgen.builder.driver import build

    before_ray = warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        small_build(tmp, root)  # the driver's fixed cost then lies under the baseline
        base = rss_gb()
        path = db or os.path.join(tmp, "bench.db")
        started = time.perf_counter()
        summary = build(path, ply, root, table_log2=table_log2, progress=False, out=io.StringIO())
        wall = time.perf_counter() - started
        zstd = compressor_bytes()
    print(summary.report())
    solvers = summary.solvers or 1
    solving = summary.core_seconds / solvers
    frontier = summary.frontier or 1
    writes = summary.timings.get("writes", 0.0)
    print(
        f"driver peak memory {peak_gb():.3f} GB: {before_ray:.3f} GB before Ray, "
        f"{base:.3f} GB after a small build (Ray's client loaded), and "
        f"{peak_gb() - base:.3f} GB over that = "
        f"{(peak_gb() - base) * 1e9 / frontier:.1f} bytes per frontier position; "
        f"of which zstd's compressor for the largest segment {zstd / 1e9:.3f} GB, so "
        f"{((peak_gb() - base) * 1e9 - zstd) / frontier:.1f} bytes per frontier position besides"
    )
    print(
        f"wall {wall:.0f} s, of which outside solving {wall - solving:.0f} s = "
        f"{(wall - solving) / wall:.1%} (solving: core-seconds / {solvers} solvers)"
    )
    if writes:
        print(
            f"frontier rows written: {summary.searched:,} in {writes:.1f} s = "
            f"{summary.searched / writes:,.0f} rows/s"
        )


PHASES = ("list", "start", "frontier", "seal", "derive")  # a build's, one after another


def bench_ceiling(ply: int, root: str, db: str | None, workers: int | None) -> None:
    """A real build of cheap positions: what the driver's main loop spends a position."""
    from bookgen.builder.driver import build

    with tempfile.TemporaryDirectory() as tmp:
        small_build(tmp, root)  # what is paid once is then not counted a position
        path = db or os.path.join(tmp, "ceiling.db")
        process_cpu = time.process_time()
        summary = build(path, ply, root, table_log2=20, workers=workers, progress=False)
        process_cpu = time.process_time() - process_cpu
    wall, cpu = summary.timings, summary.driver_cpu
    frontier, derived = summary.searched, summary.derived
    print(
        f"frontier {frontier:,} positions searched in {summary.batches:,} batches, "
        f"{summary.core_seconds / max(frontier, 1) * 1e6:,.0f} core-us a position; "
        f"derived {derived:,}"
    )
    print(f"{'phase':<34}{'wall s':>9}{'driver CPU s':>14}{'driver us a position':>22}")
    for name, what in (
        ("frontier", "frontier (the whole loop)"),
        ("listing", "  of which listing"),
        ("writes", "  of which writes (or handing over)"),
        ("drain", "  of which the writer's drain"),
        ("written", "writer's thread, behind the loop"),
        ("seal", "seal"),
        ("derive", "derive (a position derived)"),
    ):
        if name in cpu:
            count = derived if name == "derive" else frontier
            print(
                f"{what:<34}{wall[name]:>9.2f}{cpu[name]:>14.2f}"
                f"{cpu[name] / max(count, 1) * 1e6:>22.1f}"
            )
    # The loop waits for the database's writes: their wall counts, not only their CPU.
    # (The drain, once at the end, is counted with sealing and deriving.)
    busy = (
        cpu["frontier"] - cpu.get("writes", 0.0) - cpu.get("drain", 0.0) + wall.get("writes", 0.0)
    )
    once = wall.get("drain", 0.0) + wall.get("seal", 0.0) + wall.get("derive", 0.0)
    print(
        f"ceiling of one driver's loop: {frontier / busy:,.0f} frontier positions a second "
        f"({busy / max(frontier, 1) * 1e6:.1f} us a position, the writes' wall counted; "
        f"searched here at {frontier / wall['frontier']:,.0f} a second); then, once, "
        f"{once / max(frontier, 1) * 1e6:.1f} us a frontier position of draining, sealing "
        "and deriving"
    )
    if "written" in wall:
        # Its Python holds the GIL for part of its CPU: counted whole, the bound is safe.
        both = busy + cpu["written"]
        print(
            f"writer's thread: {frontier / wall['written']:,.0f} positions a second written "
            f"({wall['written'] / frontier * 1e6:.1f} us a position, wall: what this "
            f"database sustains here), {cpu['written'] / frontier * 1e6:.1f} us of its CPU; "
            f"the loop and the writer's CPU together: {both / frontier * 1e6:.1f} us a "
            f"position = {frontier / both:,.0f} a second"
        )
    print(
        f"the driver process's CPU in all (Ray's threads in it too): {process_cpu:.2f} s, "
        f"of which its main thread {sum(cpu[k] for k in PHASES if k in cpu):.2f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    p = modes.add_parser("list", help="list every position from the empty board")
    p.add_argument("--ply", type=int, default=12)
    p.add_argument(
        "--stream",
        action="store_true",
        help="list the last ply in key-order chunks, as the build does",
    )
    p = modes.add_parser("store", help="writes, array reads and derivation of one ply")
    p.add_argument("--ply", type=int, default=11)
    p.add_argument("--db", help="an empty PostgreSQL database's URL (default: a SQLite file)")
    p = modes.add_parser("dry-run", help="time c4book build --dry-run")
    p.add_argument("--ply", type=int, default=12)
    p.add_argument("--root", default="")
    p.add_argument("--sample", type=int, default=100)
    for mode, ply, root, what in (
        ("build", 14, "4444", "a real build on a fresh book (about an hour on 2 cores)"),
        ("ceiling", 27, "172542733534117444", "cheap late-game positions: the driver's CPU"),
    ):
        p = modes.add_parser(mode, help=what)
        p.add_argument("--ply", type=int, default=ply)
        p.add_argument("--root", default=root)
        p.add_argument("--db", help="a SQLite path or a PostgreSQL URL (default: temporary)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all)")
    modes.choices["build"].add_argument("--table-log2", type=int, default=27)
    args = parse_args(parser, argv)
    print(
        f"{os.cpu_count()} CPUs on this machine; python {sys.version.split()[0]}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(calibration())
    if args.mode == "list":
        bench_list(args.ply, args.stream)
    elif args.mode == "store":
        bench_store(args.ply, args.db)
    elif args.mode == "dry-run":
        bench_dry_run(args.ply, args.root, args.sample)
    elif args.mode == "ceiling":
        bench_ceiling(args.ply, args.root, args.db, args.workers)
    else:
        bench_build(args.ply, args.root, args.db, args.table_log2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

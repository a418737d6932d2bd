"""Solving the frontier on Ray: batches of missing keys out, results written as they come back.

Batches are neighbouring keys (they share subtrees), sized to take about
``TARGET_BATCH_SECONDS`` each, and smaller near the end so that the workers
finish together.  One batch is in flight per worker process, plus one queued.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING

import numpy as np

from solver.parent_bounds import NO_BOUND, Parents

from ..book.format.rows import Rows
from ..book.write.store import BookStore
from ..book.write.writer import BatchWriter
from ..progress import progress_bar
from .missing import MissingKeys
from .report import BuildSummary, timed

if TYPE_CHECKING:
    from .cluster import WorkerPlan

# Long enough that a batch's threads seldom wait for each other at its end.
TARGET_BATCH_SECONDS = 20.0
FIRST_BATCH = 4
MAX_BATCH = 20_000


def describe(plan: WorkerPlan, table_log2: int) -> str:
    """E.g. '1 process x 2 threads; table 1 GiB per process'."""

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('s') else 's'}"

    size, unit = 8 << table_log2, "bytes"
    for bigger in ("KiB", "MiB", "GiB"):
        if size >= 1024:
            size, unit = size >> 10, bigger
    return (
        f"{plural(plan.processes, 'process')} x {plural(plan.threads, 'thread')}; "
        f"table {size} {unit} per process"
    )


def solve_missing(
    store: BookStore,
    frontier: MissingKeys,
    first: np.ndarray,
    summary: BuildSummary,
    plan: WorkerPlan,
    table_log2: int,
    progress: bool,
    stop: threading.Event,
    solved: list,
    parents: Parents | None = None,
    missing: int | None = None,
) -> None:
    """Send batches of missing keys while the frontier is still being listed; write results.

    Each batch's ``(keys, scores, best)`` is appended to ``solved``.  With
    ``parents``, each batch goes out with the bounds they prove (``solver.parent_bounds``).
    ``missing`` is the whole frontier's count of positions to solve, when known: the
    progress bar's total (else it grows as the frontier is listed).

    The frontier comes in key order, so a batch holds neighbours that share
    most of their subtrees.
    """
    import ray

    from . import cluster
    from .worker import solve_batch

    # One extra batch queued when we fill the cluster, so no core waits on the driver.
    limit = plan.processes + 1 if plan.solvers >= cluster.cluster_cpus() else plan.processes
    task = solve_batch.options(num_cpus=plan.threads)
    in_flight: dict = {}
    per_position = None  # running estimate of seconds per position
    began = time.perf_counter()
    # The bar starts with the first batch back: before it, workers start and load their
    # kernels (compile them, the first time after an install), and a rate would say nothing
    # (the quick start once showed a 15-hour ETA while compiling).
    bar = None
    if progress:
        print(
            f"ply {summary.ply} frontier: starting the workers and loading the search kernels "
            "(compiled once after an install or an upgrade: up to a minute)",
            file=sys.stderr,
        )
    writer = BatchWriter(store)  # into a server, behind this loop: drained below
    try:
        while True:
            while len(in_flight) < limit:
                # per_position is in core-seconds; a batch's threads share its wall time
                size = (
                    FIRST_BATCH * plan.threads
                    if per_position is None
                    else int(
                        min(
                            MAX_BATCH,
                            max(
                                plan.threads,
                                TARGET_BATCH_SECONDS * plan.threads / max(per_position, 1e-7),
                            ),
                        )
                    )
                )
                if frontier.done:
                    # Near the end, smaller batches, so that the workers finish together
                    # instead of one of them solving a last big batch alone.
                    size = min(size, max(plan.threads, frontier.pending // (2 * plan.processes)))
                if len(first):
                    batch, first = first, first[:0]
                else:
                    with timed(summary.timings, "listing", summary.driver_cpu):
                        batch = frontier.take(size)
                if not len(batch):
                    break
                bounds = parents.bounds(batch) if parents is not None else None
                in_flight[task.remote(batch, table_log2, plan.threads, bounds, store.board)] = (
                    batch,
                    bounds,
                )
                if missing is None and bar is not None:
                    bar.total = frontier.total - frontier.stored
                    bar.refresh()
            if not in_flight:
                break
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
            for ref in done:
                keys, bounds = in_flight.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception:
                    # A terminal's Ctrl-C also reaches local workers; their death
                    # is then part of the stop, not an error.
                    time.sleep(0.2)
                    if stop.is_set():
                        raise KeyboardInterrupt from None
                    raise
                with timed(summary.timings, "writes", summary.driver_cpu):
                    writer.put(
                        Rows(summary.ply, keys, result.scores, result.best, nodes=result.nodes),
                        result.seconds,
                    )
                # Copies: views would pin the batch's whole result (nodes and all) in Ray's
                # object store, mapped into this process, until the build's end.
                solved.append((keys, result.scores.copy(), result.best.copy()))
                summary.searched += len(keys)
                if bounds is not None:
                    summary.bounded += int((bounds.low != NO_BOUND).sum())
                    summary.exact += int(bounds.exact.sum())
                if not summary.batches:  # a worker started, its kernels loaded, a batch solved
                    summary.timings["first batch"] = time.perf_counter() - began
                summary.batches += 1
                summary.nodes += int(result.nodes.sum())
                summary.core_seconds += result.seconds
                rate = result.seconds / len(keys)
                per_position = rate if per_position is None else 0.7 * per_position + 0.3 * rate
                if bar is None:
                    bar = progress_bar(
                        total=missing if missing is not None else frontier.total - frontier.stored,
                        initial=len(keys),  # (its rate counts from here)
                        desc=f"ply {summary.ply} frontier",
                        unit="pos",
                        disable=not progress,
                        smoothing=0.05,
                    )
                else:
                    bar.update(len(keys))
            if stop.is_set():
                raise KeyboardInterrupt  # noqa: TRY301 - a stop takes Ctrl-C's path, below
    except KeyboardInterrupt:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        raise
    finally:
        if bar is not None:
            bar.close()
        # Every batch back is written before the ply is sealed or the stop reported.
        try:
            with timed(summary.timings, "drain", summary.driver_cpu):
                writer.close()
        finally:
            written = writer.written()
            summary.unwritten = written.unwritten
            if store.writes_behind:
                summary.timings["written"] = written.seconds
                summary.driver_cpu["written"] = written.cpu_seconds

"""Solving the frontier on Ray: batches of missing keys out, results written as they come back.

Batches are neighbouring keys (they share subtrees), sized to take about
``TARGET_BATCH_SECONDS`` each, and smaller near the end so that the workers
finish together.  One batch is in flight per worker process, plus one queued.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from solver.parent_bounds import NO_BOUND, Bounds, Parents

from ..book.format.rows import Rows
from ..book.format.segment import Segment
from ..book.write.store import BookStore
from ..book.write.writer import BatchWriter
from ..progress import progress_bar
from .missing import MissingKeys
from .report import BuildSummary, timed

if TYPE_CHECKING:
    from tqdm import tqdm

    from .cluster import WorkerPlan
    from .config import BuildConfig
    from .worker import BatchResult

# Long enough that a batch's threads seldom wait for each other at its end.
TARGET_BATCH_SECONDS = 20.0
FIRST_BATCH = 4
MAX_BATCH = 20_000


class Solved(NamedTuple):
    """What a frontier's search solved: each batch's keys, scores and best moves, in the
    order they came back."""

    batches: list[Segment]


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
    config: BuildConfig,
    plan: WorkerPlan,
    store: BookStore,
    frontier: MissingKeys,
    summary: BuildSummary,
    stop: threading.Event,
    *,
    first: np.ndarray,
    missing: int,
    parents: Parents | None = None,
) -> Solved:
    """Send batches of missing keys while the frontier is still being listed; write results.

    ``first`` goes out first; ``missing`` is the whole frontier's count of positions to
    solve, the progress bar's total.  With ``parents``, each batch goes out with the bounds
    they prove (``solver.parent_bounds``).  The summary counts each batch as it comes back,
    so that a build stopped early reports them too.
    """
    search = _Search(config, plan, store, frontier, summary, stop, first, missing, parents)
    if config.progress:
        print(
            f"ply {config.ply} frontier: starting the workers and loading the search kernels "
            "(compiled once after an install or an upgrade: up to a minute)",
            file=sys.stderr,
        )
    writer = BatchWriter(store)  # into a server, behind this loop: drained below
    try:
        return search.run(writer)
    except KeyboardInterrupt:
        search.cancel()
        raise
    finally:
        search.close()
        _drain(writer, store, summary)


class _Search:
    """The loop's state: the batches in flight, the rate that sizes the next, the bar.

    The frontier comes in key order, so a batch holds neighbours that share
    most of their subtrees.
    """

    def __init__(
        self,
        config: BuildConfig,
        plan: WorkerPlan,
        store: BookStore,
        frontier: MissingKeys,
        summary: BuildSummary,
        stop: threading.Event,
        first: np.ndarray,
        missing: int,
        parents: Parents | None,
    ) -> None:
        from . import cluster
        from .worker import solve_batch

        self.config, self.plan, self.store, self.frontier = config, plan, store, frontier
        self.summary, self.stop = summary, stop
        self.first, self.missing, self.parents = first, missing, parents
        # One extra batch queued when we fill the cluster, so no core waits on the driver.
        fills = plan.solvers >= cluster.cluster_cpus()
        self.limit = plan.processes + 1 if fills else plan.processes
        self.task = solve_batch.options(num_cpus=plan.threads)
        self.in_flight: dict = {}  # a batch's result reference: its (keys, bounds)
        self.per_position: float | None = None  # running estimate of seconds per position
        self.began = time.perf_counter()
        # The bar starts with the first batch back: before it, workers start and load their
        # kernels (compile them, the first time after an install), and a rate would say
        # nothing (the quick start once showed a 15-hour ETA while compiling).
        self.bar: tqdm | None = None
        self.solved: list[Segment] = []

    def run(self, writer: BatchWriter) -> Solved:
        """Batches out and back until the frontier is solved, or a stop."""
        while True:
            self._send()
            if not self.in_flight:
                return Solved(self.solved)
            self._receive(writer)
            if self.stop.is_set():
                raise KeyboardInterrupt  # a stop takes Ctrl-C's path: cancel, drain, report

    def cancel(self) -> None:
        import ray

        for ref in self.in_flight:
            ray.cancel(ref, force=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def _send(self) -> None:
        """Batches out until ``limit`` are in flight, or none is left."""
        while len(self.in_flight) < self.limit:
            batch = self._next_batch()
            if not len(batch):
                return
            bounds = self.parents.bounds(batch) if self.parents is not None else None
            ref = self.task.remote(
                batch, self.config.table_log2, self.plan.threads, bounds, self.store.board
            )
            self.in_flight[ref] = (batch, bounds)

    def _next_batch(self) -> np.ndarray:
        if len(self.first):
            batch, self.first = self.first, self.first[:0]
            return batch
        size = self._batch_size()
        with timed(self.summary.timings, "listing", self.summary.driver_cpu):
            return self.frontier.take(size)

    def _batch_size(self) -> int:
        """About ``TARGET_BATCH_SECONDS`` of search at the rate so far; smaller at the end."""
        threads = self.plan.threads
        if self.per_position is None:
            size = FIRST_BATCH * threads
        else:
            # per_position is in core-seconds; a batch's threads share its wall time
            seconds = TARGET_BATCH_SECONDS * threads / max(self.per_position, 1e-7)
            size = int(min(MAX_BATCH, max(threads, seconds)))
        if self.frontier.done:
            # Near the end, smaller batches, so that the workers finish together
            # instead of one of them solving a last big batch alone.
            pending = self.frontier.pending // (2 * self.plan.processes)
            size = min(size, max(threads, pending))
        return size

    def _receive(self, writer: BatchWriter) -> None:
        """The batches back within half a second: written, kept and counted."""
        import ray

        done, _ = ray.wait(list(self.in_flight), num_returns=1, timeout=0.5)
        for ref in done:
            keys, bounds = self.in_flight.pop(ref)
            result = self._result(ref)
            with timed(self.summary.timings, "writes", self.summary.driver_cpu):
                writer.put(
                    Rows(self.config.ply, keys, result.scores, result.best, nodes=result.nodes),
                    result.seconds,
                )
            # Copies: views would pin the batch's whole result (nodes and all) in Ray's
            # object store, mapped into this process, until the build's end.
            self.solved.append(Segment(keys, result.scores.copy(), result.best.copy()))
            self._count(keys, bounds, result)

    def _result(self, ref) -> BatchResult:
        import ray

        try:
            return ray.get(ref)
        except Exception:
            # A terminal's Ctrl-C also reaches local workers; their death
            # is then part of the stop, not an error.
            time.sleep(0.2)
            if self.stop.is_set():
                raise KeyboardInterrupt from None
            raise

    def _count(self, keys: np.ndarray, bounds: Bounds | None, result: BatchResult) -> None:
        """A batch back: in the summary, the rate and the bar."""
        summary = self.summary
        summary.searched += len(keys)
        if bounds is not None:
            summary.bounded += int((bounds.low != NO_BOUND).sum())
            summary.exact += int(bounds.exact.sum())
        if not summary.batches:  # a worker started, its kernels loaded, a batch solved
            summary.timings["first batch"] = time.perf_counter() - self.began
        summary.batches += 1
        summary.nodes += int(result.nodes.sum())
        summary.core_seconds += result.seconds
        rate = result.seconds / len(keys)
        self.per_position = (
            rate if self.per_position is None else 0.7 * self.per_position + 0.3 * rate
        )
        self._advance(len(keys))

    def _advance(self, count: int) -> None:
        if self.bar is None:
            self.bar = progress_bar(
                total=self.missing,
                initial=count,  # (its rate counts from here)
                desc=f"ply {self.config.ply} frontier",
                unit="pos",
                disable=not self.config.progress,
                smoothing=0.05,
            )
        else:
            self.bar.update(count)


def _drain(writer: BatchWriter, store: BookStore, summary: BuildSummary) -> None:
    """Every batch back is written before the ply is sealed or the stop reported."""
    try:
        with timed(summary.timings, "drain", summary.driver_cpu):
            writer.close()
    finally:
        written = writer.written()
        summary.unwritten = written.unwritten
        if store.writes_behind:
            summary.timings["written"] = written.seconds
            summary.driver_cpu["written"] = written.cpu_seconds

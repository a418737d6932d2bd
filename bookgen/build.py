"""``c4book build``: the driver that turns a root and a ply into a book.

Frontier first: only the positions at the last ply are searched, on Ray
workers.  Every shallower position then follows by one ply of negamax over
its children's entries (``derive``), which is exact and nearly free.

The driver is the only writer.  Each finished batch is committed in its own
transaction, so a crash or Ctrl-C loses at most the batches in flight, and
rerunning the same command solves only what is missing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from tqdm import tqdm

from solver import Position
from solver.bitboard import CELLS, TABLE_LOG2_MAX, TABLE_LOG2_MIN
from solver.errors import C4Error

from .build_lock import BuildLock
from .derive import best_of, move_scores_from_children, sign
from .enumerate import positions_by_ply
from .schema import pack_scores
from .ray_connect import RayStartError
from .store import BookStore, iter_chunks, sqlite_path

if TYPE_CHECKING:
    from .cluster import WorkerPlan

DEFAULT_TABLE_LOG2 = 27  # 1 GiB per worker process: neighbours' subtrees stay in it
# Long enough that a batch's threads seldom wait for each other at its end.
TARGET_BATCH_SECONDS = 20.0
FIRST_BATCH = 4
MAX_BATCH = 20_000


class BuildArgumentError(C4Error, ValueError):
    """A ``--root`` or ``--ply`` that cannot be built."""


@dataclass
class BuildSummary:
    root: str
    ply: int
    db: str
    positions_per_ply: dict[int, int] = field(default_factory=dict)
    searched: int = 0          # frontier positions solved by this run
    already_stored: int = 0    # frontier positions found in the book
    derived: int = 0           # shallower positions scored from their children
    nodes: int = 0
    core_seconds: float = 0.0
    wall_seconds: float = 0.0
    batches: int = 0
    layout: str = ""           # how the frontier's solvers ran, once Ray is up
    interrupted: bool = False
    # wall seconds per phase: listing, starting Ray, solving the frontier
    # (of which writing batches), deriving shallower plies
    timings: dict[str, float] = field(default_factory=dict)

    def report(self) -> str:
        lines = [f"book {self.db}: root {self.root or '(empty board)'}, up to ply {self.ply}"]
        lines.append("  ply  positions")
        for ply, count in self.positions_per_ply.items():
            lines.append(f"  {ply:>3}  {count:>9,}")
        lines.append(f"  total {sum(self.positions_per_ply.values()):,} positions")
        lines.append(f"searched {self.searched:,} frontier positions in {self.batches:,} batches "
                     f"({self.already_stored:,} already stored), derived {self.derived:,}")
        if self.layout:
            lines.append(f"solvers: {self.layout}")
        lines.append(f"nodes {self.nodes:,}; wall {self.wall_seconds:.1f} s; "
                     f"core {self.core_seconds:.1f} s")
        if self.timings:
            t = self.timings
            phases = [f"{name} {t[name]:.1f} s" for name in ("list", "start", "frontier")
                      if name in t]
            if "writes" in t:
                phases[-1] += f" (writing {t['writes']:.1f} s)"
            if "derive" in t:
                phases.append(f"derive {t['derive']:.1f} s")
            lines.append("wall by phase: " + ", ".join(phases))
        if self.interrupted:
            lines.append("stopped early: every finished batch is saved; "
                         "run the same command again to resume")
        return "\n".join(lines)


@contextmanager
def _graceful_interrupts():
    """Turn the first Ctrl-C into a request the driver honours between batches.

    A KeyboardInterrupt raised at an arbitrary point could land inside Ray or
    in the middle of a database write; the flag is checked only at safe
    points.  A second Ctrl-C interrupts at once.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_sigint(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _timed(timings: dict[str, float], name: str):
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - start


def check_request(root: str, ply: int) -> Position:
    position = Position.from_moves(root)
    if position.is_game_over:
        raise BuildArgumentError(f"--root {root!r} is a finished game: nothing to build")
    if not position.ply <= ply <= CELLS:
        raise BuildArgumentError(
            f"--ply {ply} must be between the root's ply ({position.ply}) and {CELLS}")
    return position


def build(db: str = "book.db", ply: int = 8, root: str = "", *, address: str | None = None,
          workers: int | None = None, threads: int | None = None,
          table_log2: int = DEFAULT_TABLE_LOG2, progress: bool = True,
          out: IO[str] | None = None, verbose: bool = False) -> BuildSummary:
    """Build (or extend, or resume) the book in ``db``; see the module docstring."""
    from . import cluster

    out = out or sys.stderr
    root_position = check_request(root, ply)
    if address is not None:
        cluster.check_address(address)
    if workers is not None and workers < 1:
        raise BuildArgumentError(f"--workers must be at least 1, got {workers}")
    if threads is not None and threads < 1:
        raise BuildArgumentError(f"--threads must be at least 1, got {threads}")
    if not TABLE_LOG2_MIN <= table_log2 <= TABLE_LOG2_MAX:
        raise BuildArgumentError(f"--table-log2 must be between {TABLE_LOG2_MIN} and "
                                 f"{TABLE_LOG2_MAX}, got {table_log2}")
    started = time.perf_counter()
    store = BookStore(db, root, root_position.canonical_key)
    summary = BuildSummary(root=root, ply=ply, db=db)
    discard = False
    try:
        # Refuses at once while another live build holds this book.
        with BuildLock(store.engine, db), _graceful_interrupts() as stop:
            _build(store, root_position, ply, summary, address, workers, threads, table_log2,
                   progress, stop, verbose)
    except (RayStartError, BuildArgumentError):
        discard = store.created  # nothing was searched: a book this run made goes again
        raise
    finally:
        store.close()
        if discard:
            _remove_new_book(db)
    summary.wall_seconds = time.perf_counter() - started
    print(summary.report(), file=out)
    return summary


def _build(store: BookStore, root_position: Position, ply: int, summary: BuildSummary,
           address: str | None, workers: int | None, threads: int | None, table_log2: int,
           progress: bool, stop: threading.Event, verbose: bool = False) -> None:
    from . import cluster, ray_connect

    timings = summary.timings
    try:
        with _timed(timings, "list"):
            levels = positions_by_ply(root_position, ply)
            frontier = levels[ply]
            stored = store.keys_at(ply)
            missing = [p.moves for p in frontier if p.key not in stored]
        summary.already_stored = len(frontier) - len(missing)
        if missing:
            with _timed(timings, "start"):
                owned = ray_connect.connect(address, workers, verbose=verbose)
            try:
                with _timed(timings, "start"):
                    largest = max(cluster.node_cpus())
                    if threads is not None and threads > largest:
                        # Ray would wait forever for such a node.
                        raise BuildArgumentError(
                            f"--threads {threads} is more than any node's CPUs "
                            f"(at most {largest})")
                    plan = cluster.plan_workers(workers, threads)
                    summary.layout = _describe(plan, table_log2)
                    _warm_up(plan, table_log2)
                with _timed(timings, "frontier"):
                    _solve_frontier(store, missing, summary, plan, table_log2, progress, stop)
            finally:
                if owned:
                    import ray
                    ray.shutdown()
        store.mark_complete(ply)
        with _timed(timings, "derive"):
            _derive_shallower(store, levels, ply, summary, progress, stop)
        store.set_meta(ply=str(max(ply, int(store.meta().get("ply", ply)))))
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        summary.positions_per_ply = {p: n for p, n in store.count_by_ply().items() if p <= ply}


def _remove_new_book(db: str) -> None:
    path = sqlite_path(db)
    if path is not None:
        for name in (path, path + "-wal", path + "-shm", path + "-journal"):
            if os.path.exists(name):
                os.remove(name)


def _describe(plan: WorkerPlan, table_log2: int) -> str:
    """E.g. '1 process x 2 threads; table 1 GiB per process'."""
    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('s') else 's'}"

    size, unit = 8 << table_log2, "bytes"
    for bigger in ("KiB", "MiB", "GiB"):
        if size >= 1024:
            size, unit = size >> 10, bigger
    return (f"{plural(plan.processes, 'process')} x {plural(plan.threads, 'thread')}; "
            f"table {size} {unit} per process")


def _warm_up(plan: WorkerPlan, table_log2: int) -> None:
    """Start every worker and load its kernels, so the frontier phase is all solving."""
    import ray

    from .worker import warm_up

    task = warm_up.options(num_cpus=plan.threads)
    ray.get([task.remote(table_log2, plan.threads) for _ in range(plan.processes)])


def _solve_frontier(store: BookStore, missing: list[str], summary: BuildSummary,
                    plan: WorkerPlan, table_log2: int, progress: bool,
                    stop: threading.Event) -> None:
    import ray

    from . import cluster
    from .worker import solve_batch

    pending = deque(missing)  # sorted by moves: siblings share subtrees
    # One extra batch queued when we fill the cluster, so no core waits on the driver.
    limit = plan.processes + 1 if plan.solvers >= cluster.cluster_cpus() else plan.processes
    task = solve_batch.options(num_cpus=plan.threads)
    in_flight: dict = {}
    per_position = None  # running estimate of seconds per position
    bar = tqdm(total=len(missing), desc=f"ply {summary.ply} frontier", unit="pos",
               disable=not progress, smoothing=0.05)
    try:
        while pending or in_flight:
            while pending and len(in_flight) < limit:
                # per_position is in core-seconds; a batch's threads share its wall time
                size = FIRST_BATCH * plan.threads if per_position is None else int(min(
                    MAX_BATCH, max(plan.threads, TARGET_BATCH_SECONDS * plan.threads
                                   / max(per_position, 1e-7))))
                # Near the end, smaller batches, so that the workers finish together
                # instead of one of them solving a last big batch alone.
                size = min(size, max(plan.threads, len(pending) // (2 * plan.processes)))
                batch = [pending.popleft() for _ in range(min(size, len(pending)))]
                in_flight[task.remote(batch, table_log2, plan.threads)] = batch
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
            for ref in done:
                in_flight.pop(ref)
                try:
                    rows, seconds, _pid = ray.get(ref)
                except Exception:
                    # A terminal's Ctrl-C also reaches local workers; their death
                    # is then part of the stop, not an error.
                    time.sleep(0.2)
                    if stop.is_set():
                        raise KeyboardInterrupt from None
                    raise
                with _timed(summary.timings, "writes"):
                    store.insert_new(rows, search_seconds=seconds)
                summary.searched += len(rows)
                summary.batches += 1
                summary.nodes += sum(r["nodes"] for r in rows)
                summary.core_seconds += seconds
                rate = seconds / len(rows)
                per_position = rate if per_position is None else 0.7 * per_position + 0.3 * rate
                bar.update(len(rows))
            if stop.is_set():
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        raise
    finally:
        bar.close()


def _derive_shallower(store: BookStore, levels: dict[int, list[Position]], ply: int,
                      summary: BuildSummary, progress: bool, stop: threading.Event) -> None:
    """Score plies ply-1 .. root from their children, deepest first."""
    plies = range(ply - 1, min(levels) - 1, -1)
    total = sum(len(levels[p]) for p in plies)
    bar = tqdm(total=total, desc="shallower plies", unit="pos", disable=not progress or total == 0)
    try:
        for p in plies:
            if stop.is_set():
                raise KeyboardInterrupt
            child_scores = store.scores_at(p + 1)
            finished = store.finished_keys_at(p)
            rows = []
            for position in levels[p]:
                if position.key in finished:
                    continue
                scores = move_scores_from_children(
                    position, lambda child: child_scores.get(child.canonical_key))
                score, best = best_of(scores)
                rows.append({"key": position.key, "ply": p, "moves": position.moves,
                             "score": score, "wdl": sign(score), "best_moves": best,
                             "move_scores": pack_scores(scores), "nodes": 0})
            for chunk in iter_chunks(rows, 5000):
                store.upsert(chunk)
            summary.derived += len(rows)
            store.mark_complete(p)
            bar.update(len(levels[p]))
    finally:
        bar.close()

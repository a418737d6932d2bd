"""``c4book build``: the driver that turns a root and a ply into a book.

Frontier first: only the positions at the last ply are searched, on Ray
workers.  Every shallower position then follows by one ply of negamax over
its children's entries (``derive``), which is exact and nearly free.

Positions are packed keys in numpy arrays throughout (``solver.packed``).
The shallower plies are held whole; the frontier, by far the largest ply,
is listed in key-order slices while batches are already out (``stream``),
so the driver's memory is a few bytes per frontier position.

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from solver import Position
from solver.bitboard import CELLS, TABLE_LOG2_MAX, TABLE_LOG2_MIN
from solver.errors import C4Error

from ..book.rows import Rows
from ..book.store import BookStore, sqlite_path
from .build_lock import BuildLock
from .derive import derive
from .enumerate import contains_sorted, keys_by_ply
from .parent_bounds import NO_BOUND, Parents, read_parents
from .ray_connect import RayStartError
from .stream import FrontierStream

if TYPE_CHECKING:
    from .cluster import WorkerPlan

DEFAULT_TABLE_LOG2 = 27  # 1 GiB per worker process: neighbours' subtrees stay in it
# Long enough that a batch's threads seldom wait for each other at its end.
TARGET_BATCH_SECONDS = 20.0
FIRST_BATCH = 4
MAX_BATCH = 20_000
DERIVE_CHUNK = 500_000  # parents derived and written per transaction


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
    frontier: int = 0          # positions at the last ply
    derived: int = 0           # shallower positions scored from their children
    nodes: int = 0
    core_seconds: float = 0.0
    wall_seconds: float = 0.0
    batches: int = 0
    bounded: int = 0           # searched positions whose parents' entries bound the score
    exact: int = 0             # of which the score was exact, leaving only the best moves
    layout: str = ""           # how the frontier's solvers ran, once Ray is up
    solvers: int = 0           # solver threads in all, once Ray is up
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
        if self.bounded:
            lines.append(f"bounded by the ply above: {self.bounded:,} "
                         f"(exact: {self.exact:,}, searched for best moves only)")
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
            levels = keys_by_ply(root_position, ply - 1) if ply > root_position.ply else {}
            frontier = FrontierStream(store, root_position, levels, ply)
            first = frontier.take(FIRST_BATCH)
        solved: list[tuple[np.ndarray, np.ndarray]] = []   # (keys, scores) of each batch
        if len(first) or not frontier.done:
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
                    summary.solvers = plan.solvers
                    _warm_up(plan, table_log2)
                with _timed(timings, "frontier"):
                    parents = read_parents(store, ply) if ply > root_position.ply else None
                    _solve_frontier(store, frontier, first, summary, plan, table_log2,
                                    progress, stop, solved, parents)
                    del parents
            finally:
                if owned:
                    import ray
                    ray.shutdown()
        summary.already_stored, summary.frontier = frontier.stored, frontier.total
        store.mark_complete(ply)
        with _timed(timings, "derive"):
            # Scores just solved need not be read back, unless some were stored before.
            known = _sorted_scores(ply, solved) if not frontier.stored else None
            del solved
            _derive_shallower(store, levels, ply, summary, progress, stop, known)
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
    hold = 0.5 if plan.processes > 1 else 0.0
    ray.get([task.remote(table_log2, plan.threads, hold) for _ in range(plan.processes)])


def _solve_frontier(store: BookStore, frontier: FrontierStream, first: np.ndarray,
                    summary: BuildSummary, plan: WorkerPlan, table_log2: int, progress: bool,
                    stop: threading.Event, solved: list, parents: Parents | None = None) -> None:
    """Send batches of missing keys while the frontier is still being listed; write results.

    Each batch's ``(keys, scores)`` is appended to ``solved``.  With
    ``parents``, each batch goes out with the bounds they prove (``parent_bounds``).

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
    bar = tqdm(total=frontier.total - frontier.stored, desc=f"ply {summary.ply} frontier",
               unit="pos", disable=not progress, smoothing=0.05)
    try:
        while True:
            while len(in_flight) < limit:
                # per_position is in core-seconds; a batch's threads share its wall time
                size = FIRST_BATCH * plan.threads if per_position is None else int(min(
                    MAX_BATCH, max(plan.threads, TARGET_BATCH_SECONDS * plan.threads
                                   / max(per_position, 1e-7))))
                if frontier.done:
                    # Near the end, smaller batches, so that the workers finish together
                    # instead of one of them solving a last big batch alone.
                    size = min(size, max(plan.threads, frontier.pending // (2 * plan.processes)))
                if len(first):
                    batch, first = first, first[:0]
                else:
                    with _timed(summary.timings, "listing"):
                        batch = frontier.take(size)
                if not len(batch):
                    break
                bounds = parents.bounds(batch) if parents is not None else None
                in_flight[task.remote(batch, table_log2, plan.threads, bounds)] = (batch, bounds)
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
                with _timed(summary.timings, "writes"):
                    store.insert_new(Rows(summary.ply, keys, result.scores, result.best,
                                          nodes=result.nodes), search_seconds=result.seconds)
                solved.append((keys, result.scores))
                summary.searched += len(keys)
                if bounds is not None:
                    summary.bounded += int((bounds.low != NO_BOUND).sum())
                    summary.exact += int(bounds.exact.sum())
                summary.batches += 1
                summary.nodes += int(result.nodes.sum())
                summary.core_seconds += result.seconds
                rate = result.seconds / len(keys)
                per_position = rate if per_position is None else 0.7 * per_position + 0.3 * rate
                bar.update(len(keys))
            if stop.is_set():
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        raise
    finally:
        bar.close()


def _sorted_scores(ply: int, solved: list) -> tuple[int, np.ndarray, np.ndarray]:
    """``(ply, keys, scores)`` of the batches solved, in key order; empties ``solved``.

    Batches are cut in key order from the stream, so ordered by their first
    key they join sorted, with no sort (its index array would be the
    driver's peak: 8 more bytes a frontier position); the check costs one.
    """
    solved.sort(key=lambda batch: int(batch[0][0]))   # no batch is empty
    keys = np.concatenate([k for k, _ in solved]) if solved else np.empty(0, np.uint64)
    scores = np.concatenate([s for _, s in solved]) if solved else np.empty(0, np.int8)
    solved.clear()
    if len(keys) > 1 and not (keys[1:] >= keys[:-1]).all():   # never so far; stay exact anyway
        order = np.argsort(keys, kind="stable")
        keys, scores = keys[order], scores[order]
    return ply, keys, scores


def _derive_shallower(store: BookStore, levels: dict[int, np.ndarray], ply: int,
                      summary: BuildSummary, progress: bool, stop: threading.Event,
                      known: tuple | None = None) -> None:
    """Score plies ply-1 .. root from their children, deepest first.

    One ply's children are two sorted arrays (keys, scores): ``known`` (the
    frontier just solved), or the ply just derived, or else read from the
    book.  Parents are derived in chunks, each written in one transaction,
    so an interrupted derivation resumes where it stopped.
    """
    plies = [p for p in sorted(levels, reverse=True) if p < ply]
    total = sum(len(levels[p]) for p in plies)
    bar = tqdm(total=total, desc="shallower plies", unit="pos", disable=not progress or total == 0)
    try:
        for p in plies:
            if stop.is_set():
                raise KeyboardInterrupt
            parents = levels[p]
            parents = parents[~contains_sorted(store.finished_keys_at(p), parents)]
            derived = []
            if len(parents):
                _, child_keys, child_scores = (known if known and known[0] == p + 1
                                               else (p + 1, *store.scores_at(p + 1)))
                known = None
                for start in range(0, len(parents), DERIVE_CHUNK):
                    if stop.is_set():
                        raise KeyboardInterrupt
                    entries = derive(parents[start:start + DERIVE_CHUNK], child_keys,
                                     child_scores)
                    store.upsert(Rows(p, entries.keys, entries.scores, entries.best,
                                      entries.move_scores))
                    derived.append(entries.scores)
                    bar.update(len(entries.keys))
                del child_keys, child_scores
            if len(parents) == len(levels[p]):   # the whole ply is in hand for the next
                known = (p, parents, np.concatenate(derived) if derived
                         else np.empty(0, np.int8))
            summary.derived += len(parents)
            store.mark_complete(p)
            bar.update(len(levels[p]) - len(parents))
    finally:
        bar.close()

"""``c4book build``: the driver that turns a root and a ply into a book.

Frontier first: only the positions at the last ply are searched, on Ray
workers.  Every shallower position then follows by one ply of negamax over
its children's entries (``derive``), which is exact and nearly free.

Positions are packed keys in numpy arrays throughout (``solver.packed``).
The shallower plies are held whole; the frontier, by far the largest ply,
is listed in key-order slices while batches are already out (``missing``,
``schedule``),
so the driver's memory is a few bytes per frontier position.

The driver is the only writer.  Each finished batch is committed in its own
transaction, so a crash or Ctrl-C loses at most the batches in flight, and
rerunning the same command solves only what is missing.
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO, TYPE_CHECKING

import numpy as np

from solver import Board

from ..book.format.errors import BookConnectionError, BookError
from ..book.format.segment import Segment
from ..book.write.lock import BuildLock
from ..book.write.sqlite_file import reclaim_space, remove_book_files
from ..book.write.store import BookStore
from ..progress import progress_bar
from .config import WORKER_TABLE_LOG2, BuildArgumentError, BuildConfig
from .derive import derive
from .interrupts import WITH_HANGUP, StopRequest, graceful_interrupts
from .listing import key_ints, keys_by_ply
from .missing import MissingKeys
from .part import Part
from .report import BuildSummary, timed
from .schedule import FIRST_BATCH, Solved, describe, solve_missing

if TYPE_CHECKING:
    from .cluster import WorkerPlan

__all__ = ["BuildArgumentError", "BuildConfig", "build"]  # the command line's, and the tests'

DERIVE_CHUNK = 500_000  # parents derived and written per transaction


def build(
    db: str | os.PathLike = "book.db",
    ply: int = 8,
    root: str = "",
    *,
    address: str | None = None,
    workers: int | None = None,
    threads: int | None = None,
    table_log2: int = WORKER_TABLE_LOG2,
    progress: bool = True,
    out: IO[str] | None = None,
    verbose: bool = False,
    board: Board | str | None = None,
    part: Part | str | None = None,
) -> BuildSummary:
    """Build (or extend, or resume) the book in ``db``; see the module docstring.

    ``board`` is the board of a new book (7x6 by default); an existing book
    keeps its own, and a ``board`` that is not it is refused.  ``part``
    (``Part`` or ``"I/K"``): search and store only that part of the frontier,
    and leave the ply unsealed, for ``c4book merge`` (``part``).  The
    settings are checked into a ``BuildConfig`` before anything is written.
    """
    config = BuildConfig.create(
        db,
        ply,
        root,
        board=board,
        address=address,
        workers=workers,
        threads=threads,
        table_log2=table_log2,
        progress=progress,
        verbose=verbose,
        part=part,
    )
    out = out or sys.stderr
    started = time.perf_counter()
    summary = BuildSummary(
        root=config.root,
        ply=config.ply,
        db=config.db,
        board=str(config.board),
        part=config.part and str(config.part),
    )
    # From the book's first write to the report: a signal in any step is a clean stop.
    with graceful_interrupts(WITH_HANGUP) as stop:
        _build_locked(config, summary, stop)
        if stop.is_set():  # also when it came during the last step: the run was stopped
            summary.interrupted, summary.stopped_by = True, stop.signal
        summary.wall_seconds = time.perf_counter() - started
        print(summary.report(), file=out)
    return summary


def _build_locked(config: BuildConfig, summary: BuildSummary, stop: StopRequest) -> None:
    """``_build`` under the book's write lock; a book it made and wrote nothing into is
    removed again when it fails (a full disk, no Ray): a rerun finds no half-made file."""
    position = config.position
    store = BookStore(config.db, config.root, position.canonical_key, board=position.board)
    discard = False
    try:
        # Refuses at once while another live build holds this book.
        with BuildLock(store.engine, config.db):
            _build(store, config, summary, stop)
    except Exception as error:
        discard = store.created and not store.wrote
        if isinstance(error, BookConnectionError):  # each batch was its own transaction
            raise BookConnectionError(
                f"{error}; every batch written before is kept: run the same command "
                "again once the server is back, to resume"
            ) from None
        raise
    finally:
        store.close()
        if discard:
            remove_book_files(config.db)


def _build(store: BookStore, config: BuildConfig, summary: BuildSummary, stop: StopRequest) -> None:
    """List the frontier, solve what it misses, then seal it and derive the plies above."""
    timings, cpu = summary.timings, summary.driver_cpu
    ply, position = config.ply, config.position
    try:
        with timed(timings, "list", cpu):
            levels = keys_by_ply(position, ply - 1) if ply > position.ply else {}
            frontier = MissingKeys(store, position, levels, ply, part=config.part)
            first = frontier.take(FIRST_BATCH)
        solved = Solved([])
        if len(first) or not frontier.done:
            solved = _solve_frontier(store, config, summary, stop, frontier, first)
        summary.already_stored, summary.frontier = frontier.stored, frontier.total
        stop.check()  # before sealing the frontier
        if config.part is not None:
            return  # a part: the ply is sealed, and the plies above derived, after the merge
        _seal_and_derive(store, config, summary, stop, levels, solved, frontier.stored)
    except KeyboardInterrupt:
        summary.interrupted = True
        summary.stopped_by = stop.signal
    finally:
        summary.positions_per_ply = _stored_counts(store, ply)


def _solve_frontier(
    store: BookStore,
    config: BuildConfig,
    summary: BuildSummary,
    stop: StopRequest,
    frontier: MissingKeys,
    first: np.ndarray,
) -> Solved:
    """Start (or join) Ray, lay out its solvers and solve the frontier's missing keys."""
    from . import ray_connect

    timings, cpu = summary.timings, summary.driver_cpu
    with timed(timings, "list", cpu):
        total, stored = frontier.count()  # the progress bar's total, from the start
    # Known now, so that a build stopped early reports them too.
    summary.already_stored, summary.frontier = stored, total
    stop.check()  # stopped while listing: no Ray to start
    with timed(timings, "start", cpu):
        owned = ray_connect.connect(config.address, config.workers, verbose=config.verbose)
        stop.arm()  # in case this Ray's handlers got past ray_connect
    try:
        stop.check()  # stopped while Ray started: shut down below
        with timed(timings, "start", cpu):
            plan = _plan_workers(config, summary)
        stop.check()
        with timed(timings, "frontier", cpu):
            ply, root_ply = config.ply, config.position.ply
            parents = store.entries_above(ply) if ply > root_ply else None
            solved = solve_missing(
                config,
                plan,
                store,
                frontier,
                summary,
                stop,
                first=first,
                missing=total - stored,
                parents=parents,
            )
            del parents
        return solved
    finally:
        if owned:
            import ray

            ray.shutdown()
            stop.arm()  # its C++ core can leave SIGTERM at the default: death


def _plan_workers(config: BuildConfig, summary: BuildSummary) -> WorkerPlan:
    """How the solvers are laid out on the cluster now up; said in the summary."""
    from . import cluster

    largest = max(cluster.node_cpus())
    if config.threads is not None and config.threads > largest:
        # Ray would wait forever for such a node.
        raise BuildArgumentError(
            f"--threads {config.threads} is more than any node's CPUs (at most {largest})"
        )
    plan = cluster.plan_workers(config.workers, config.threads)
    summary.layout = describe(plan, config.table_log2)
    summary.solvers = plan.solvers
    return plan


def _seal_and_derive(
    store: BookStore,
    config: BuildConfig,
    summary: BuildSummary,
    stop: StopRequest,
    levels: dict[int, np.ndarray],
    solved: Solved,
    stored: int,
) -> None:
    """Seal the frontier whole, derive the plies above, and record the book's new ply.

    When none of the frontier was ``stored`` before, what this run ``solved``
    is the whole ply: sealed from memory, not read back (reading rows costs
    the driver several times their arrays).
    """
    timings, cpu, ply = summary.timings, summary.driver_cpu, config.ply
    store.mark_complete(ply)
    entries = _sorted_entries(solved.batches) if solved.batches and not stored else None
    solved.batches.clear()  # joined, or to be read back: either way no longer held
    with timed(timings, "seal", cpu):
        if entries is None:
            store.pack_rows(ply)
        else:
            store.seal(ply, entries)
    with timed(timings, "derive", cpu):
        # Nor are its scores read back to derive the ply above.
        known = None if entries is None else (ply, entries.keys, entries.scores)
        del entries  # its best moves
        _derive_shallower(store, levels, ply, summary, config.progress, stop, known)
    stop.check()
    store.set_meta(ply=str(max(ply, int(store.meta().get("ply", ply)))))
    reclaim_space(store.engine)  # the pages of the rows the seals dropped


def _stored_counts(store: BookStore, ply: int) -> dict[int, int] | None:
    """Positions stored per ply up to ``ply``, for the report; ``None`` when the book cannot
    be read (its server gone), which must not hide the error that ended the build."""
    try:
        return {p: n for p, n in store.count_by_ply().items() if p <= ply}
    except BookError:
        return None


def _sorted_entries(solved: list[Segment]) -> Segment:
    """The batches solved, joined in key order; empties ``solved``.

    Batches are cut in key order from the stream, so ordered by their first
    key they join sorted, with no sort (its index array would be the
    driver's peak: 8 more bytes a frontier position); the check costs one.
    """
    solved.sort(key=lambda batch: key_ints(batch[0][:1])[0])  # no batch is empty
    columns = [np.concatenate(column) for column in zip(*solved, strict=True)]
    solved.clear()
    keys = columns[0]
    if keys.ndim == 2:  # keys of two words (``(n, 2)`` rows)
        from ..book.format.wide_keys import increasing, order

        if len(keys) > 1 and not increasing(keys):
            columns = [column[order(keys)] for column in columns]
        return Segment(*columns)
    if len(keys) > 1 and not (keys[1:] >= keys[:-1]).all():  # never so far; stay exact anyway
        ordered = np.argsort(keys, kind="stable")
        columns = [column[ordered] for column in columns]
    return Segment(*columns)


def _derive_shallower(
    store: BookStore,
    levels: dict[int, np.ndarray],
    ply: int,
    summary: BuildSummary,
    progress: bool,
    stop: StopRequest,
    known: tuple | None = None,
) -> None:
    """Score plies ply-1 .. root from their children, deepest first, each sealed whole.

    One ply's children are two sorted arrays (keys, scores): ``known`` (the
    ply just solved or derived), or else read from the book.  A ply is
    derived in memory, a chunk at a time, and sealed in one transaction;
    a ply already sealed is left as it is, so an interrupted derivation
    resumes at the first ply it had not sealed.
    """
    plies = [p for p in sorted(levels, reverse=True) if p < ply and not store.is_sealed(p)]
    total = sum(len(levels[p]) for p in plies)
    bar = progress_bar(
        total=total, desc="shallower plies", unit="pos", disable=not progress or total == 0
    )
    try:
        for p in plies:
            parents = levels[p]
            _, child_keys, child_scores = (
                known if known and known[0] == p + 1 else (p + 1, *store.scores_at(p + 1))
            )
            chunks: list[np.ndarray] = []
            for start in range(0, len(parents), DERIVE_CHUNK):
                stop.check()
                entries = derive(
                    parents[start : start + DERIVE_CHUNK],
                    child_keys,
                    child_scores,
                    board=store.board,
                )
                chunks.append(entries.scores)
                bar.update(len(entries.keys))
            del child_keys, child_scores
            scores = np.concatenate(chunks) if chunks else np.empty(0, np.int8)
            store.seal(p, Segment(parents, scores, None))  # its children give its best moves
            known = (p, parents, scores)
            summary.derived += len(parents)
    finally:
        bar.close()

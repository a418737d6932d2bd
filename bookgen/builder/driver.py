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
from typing import IO

import numpy as np

from solver import Board, Position

from ..book.lock import BuildLock
from ..book.schema import BookConnectionError, BookError
from ..book.segment import Segment
from ..book.store import BookStore, reclaim_space, remove_book_files
from ..progress import progress_bar
from .config import WORKER_TABLE_LOG2, BuildArgumentError, BuildConfig
from .derive import derive
from .interrupts import StopRequest, graceful_interrupts
from .listing import keys_by_ply
from .missing import MissingKeys
from .part import Part
from .report import BuildSummary, timed
from .schedule import FIRST_BATCH, describe, solve_missing

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
    and leave the ply unsealed, for ``c4book merge`` (``part``).
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
    db, root_position, address, part = config.db, config.position, config.address, config.part
    started = time.perf_counter()
    summary = BuildSummary(
        root=root, ply=ply, db=db, board=str(root_position.board), part=part and str(part)
    )
    # From the book's first write to the report: a signal in any step is a clean stop.
    with graceful_interrupts() as stop:
        store = BookStore(db, root, root_position.canonical_key, board=root_position.board)
        discard = False
        try:
            # Refuses at once while another live build holds this book.
            with BuildLock(store.engine, db):
                _build(
                    store,
                    root_position,
                    ply,
                    summary,
                    address,
                    workers,
                    threads,
                    table_log2,
                    progress,
                    stop,
                    verbose,
                    part,
                )
        except Exception as error:
            # A book this run made and wrote nothing into goes again (a full disk, no Ray):
            # the rerun finds no half-made file in its place.
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
                remove_book_files(db)
        if stop.is_set():  # also when it came during the last step: the run was stopped
            summary.interrupted, summary.stopped_by = True, stop.signal
        summary.wall_seconds = time.perf_counter() - started
        print(summary.report(), file=out)
    return summary


def _build(
    store: BookStore,
    root_position: Position,
    ply: int,
    summary: BuildSummary,
    address: str | None,
    workers: int | None,
    threads: int | None,
    table_log2: int,
    progress: bool,
    stop: StopRequest,
    verbose: bool = False,
    part: Part | None = None,
) -> None:
    from . import cluster, ray_connect

    timings, cpu = summary.timings, summary.driver_cpu
    try:
        with timed(timings, "list", cpu):
            levels = keys_by_ply(root_position, ply - 1) if ply > root_position.ply else {}
            frontier = MissingKeys(store, root_position, levels, ply, part=part)
            first = frontier.take(FIRST_BATCH)
        solved: list[tuple[np.ndarray, ...]] = []  # (keys, scores, best) of each batch
        if len(first) or not frontier.done:
            with timed(timings, "list", cpu):
                total, stored = frontier.count()  # the progress bar's total, from the start
            # Known now, so that a build stopped early reports them too.
            summary.already_stored, summary.frontier = stored, total
            stop.check()  # stopped while listing: no Ray to start
            with timed(timings, "start", cpu):
                owned = ray_connect.connect(address, workers, verbose=verbose)
                stop.arm()  # in case this Ray's handlers got past ray_connect
            try:
                stop.check()  # stopped while Ray started: shut down below
                with timed(timings, "start", cpu):
                    largest = max(cluster.node_cpus())
                    if threads is not None and threads > largest:
                        # Ray would wait forever for such a node.
                        raise BuildArgumentError(
                            f"--threads {threads} is more than any node's CPUs (at most {largest})"
                        )
                    plan = cluster.plan_workers(workers, threads)
                    summary.layout = describe(plan, table_log2)
                    summary.solvers = plan.solvers
                stop.check()
                with timed(timings, "frontier", cpu):
                    parents = store.entries_above(ply) if ply > root_position.ply else None
                    solve_missing(
                        store,
                        frontier,
                        first,
                        summary,
                        plan,
                        table_log2,
                        progress,
                        stop,
                        solved,
                        parents,
                        total - stored,
                    )
                    del parents
            finally:
                if owned:
                    import ray

                    ray.shutdown()
                    stop.arm()  # its C++ core can leave SIGTERM at the default: death
        summary.already_stored, summary.frontier = frontier.stored, frontier.total
        stop.check()  # before sealing the frontier
        if part is not None:
            return  # a part: the ply is sealed, and the plies above derived, after the merge
        store.mark_complete(ply)
        # The frontier, sealed whole with its best moves.  When none of it was stored
        # before, what this run solved is the whole ply: sealed from memory, not read
        # back (reading rows costs the driver several times their arrays).
        entries = _sorted_entries(solved) if solved and not frontier.stored else None
        del solved
        with timed(timings, "seal", cpu):
            if entries is None:
                store.pack_rows(ply)
            else:
                store.seal(ply, entries)
        with timed(timings, "derive", cpu):
            # Nor are its scores read back to derive the ply above.
            known = None if entries is None else (ply, entries.keys, entries.scores)
            del entries  # its best moves
            _derive_shallower(store, levels, ply, summary, progress, stop, known)
        stop.check()
        store.set_meta(ply=str(max(ply, int(store.meta().get("ply", ply)))))
        reclaim_space(store.engine)  # the pages of the rows the seals dropped
    except KeyboardInterrupt:
        summary.interrupted = True
        summary.stopped_by = stop.signal
    finally:
        summary.positions_per_ply = _stored_counts(store, ply)


def _stored_counts(store: BookStore, ply: int) -> dict[int, int] | None:
    """Positions stored per ply up to ``ply``, for the report; ``None`` when the book cannot
    be read (its server gone), which must not hide the error that ended the build."""
    try:
        return {p: n for p, n in store.count_by_ply().items() if p <= ply}
    except BookError:
        return None


def _sorted_entries(solved: list) -> Segment:
    """The ``(keys, scores, best)`` batches solved, joined in key order; empties ``solved``.

    Batches are cut in key order from the stream, so ordered by their first
    key they join sorted, with no sort (its index array would be the
    driver's peak: 8 more bytes a frontier position); the check costs one.
    """
    solved.sort(key=lambda batch: int(batch[0][0]))  # no batch is empty
    columns = [np.concatenate(column) for column in zip(*solved, strict=True)]
    solved.clear()
    keys = columns[0]
    if len(keys) > 1 and not (keys[1:] >= keys[:-1]).all():  # never so far; stay exact anyway
        order = np.argsort(keys, kind="stable")
        columns = [column[order] for column in columns]
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

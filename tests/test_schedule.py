"""The frontier's search on Ray: batches out, results written and returned."""

import threading

import numpy as np
import pytest
from conftest import SMALL_ROOT, open_store

from bookgen.book.write.store import BookStore
from bookgen.builder.cluster import WorkerPlan
from bookgen.builder.config import BuildConfig
from bookgen.builder.listing import keys_by_ply
from bookgen.builder.missing import MissingKeys
from bookgen.builder.report import BuildSummary
from bookgen.builder.schedule import FIRST_BATCH, Solved, describe, solve_missing
from solver import Position, Solver
from solver.packed import moves_of_key


def search(path: str, stop: threading.Event, ply: int = 10):
    """``solve_missing`` on ply ``ply`` below the small book's root, into a new book at
    ``path``: ``(what it returned or raised, the summary, the rows written)``."""
    config = BuildConfig(path, ply, SMALL_ROOT, table_log2=18, progress=False)
    root = config.position
    store = BookStore(path, SMALL_ROOT, root.canonical_key)
    try:
        frontier = MissingKeys(store, root, keys_by_ply(root, ply - 1), ply)
        first = frontier.take(FIRST_BATCH)
        total, stored = frontier.count()
        summary = BuildSummary(root=SMALL_ROOT, ply=ply, db=path)
        outcome: Solved | KeyboardInterrupt
        try:
            outcome = solve_missing(
                config,
                WorkerPlan(2, 1),
                store,
                frontier,
                summary,
                stop,
                first=first,
                missing=total - stored,
            )
        except KeyboardInterrupt as stopped:
            outcome = stopped
        return outcome, summary, store.entries_at(ply)
    finally:
        store.close()


def test_the_search_returns_each_batch_it_solved_as_it_wrote_it(
    small_book_path, tmp_path, ray_session
):
    solved, summary, written = search(str(tmp_path / "ten.db"), threading.Event())
    batches = sorted(solved.batches, key=lambda batch: int(batch.keys[0]))
    keys = np.concatenate([batch.keys for batch in batches])
    scores = np.concatenate([batch.scores for batch in batches])
    best = np.concatenate([batch.best for batch in batches])
    frontier = keys_by_ply(Position.from_moves(SMALL_ROOT), 10)[10]
    assert np.array_equal(keys, frontier) and np.array_equal(keys, written.keys)
    assert np.array_equal(scores, written.scores) and np.array_equal(best, written.best)
    book = open_store(small_book_path)
    try:
        assert np.array_equal(scores, book.scores_at(10)[1])  # derived there, solved here
    finally:
        book.close()
    solver = Solver(table_log2=18)
    for key, score, bits in zip(keys, scores, best, strict=True):
        position = Position.from_moves(moves_of_key(int(key)))
        moves = solver.analyze(position)
        assert score == max(s for s in moves if s is not None)
        assert bits == sum(1 << c for c, s in enumerate(moves) if s == score)
    assert (summary.searched, summary.batches) == (36, len(batches))
    assert summary.nodes > 0 and summary.core_seconds > 0 and summary.unwritten == 0
    assert summary.timings["first batch"] > 0


def test_a_stop_returns_nothing_and_counts_what_it_wrote(tmp_path, ray_session):
    stop = threading.Event()
    stop.set()  # asked before the first batch came back: those out are cancelled
    stopped, summary, written = search(str(tmp_path / "stopped.db"), stop, ply=11)
    assert isinstance(stopped, KeyboardInterrupt)
    assert summary.searched == len(written.keys) < 136 and summary.unwritten == 0


@pytest.mark.parametrize(
    "processes, threads, table_log2, said",
    [
        (1, 2, 27, "1 process x 2 threads; table 1 GiB per process"),
        (2, 1, 18, "2 processes x 1 thread; table 2 MiB per process"),
        (3, 4, 10, "3 processes x 4 threads; table 8 KiB per process"),
        (1, 1, 6, "1 process x 1 thread; table 512 bytes per process"),
    ],
)
def test_the_layout_is_said_in_words(processes, threads, table_log2, said):
    assert describe(WorkerPlan(processes, threads), table_log2) == said

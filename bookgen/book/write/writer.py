"""The build's frontier batches written behind its loop, by a thread with a connection of its own.

Into a database server the loop would otherwise wait out each batch's
transaction (most of its time a position: ``docs/scaling.md``); handed to
this thread, the batches are written in the order given, each in its own
transaction as ``BookStore.insert_new`` writes it, while the loop goes on.
The queue is bounded, so the loop waits only when the database falls
``DEPTH`` batches behind, and memory stays a few batches.  Into SQLite the
batches are written in the loop, as before: there the write is the driver's
own CPU, which a thread would only contend for.

Closing drains: every batch handed over is written before ``close`` returns,
so the build seals only what is stored, and a stopped build keeps every
batch it had back.  A second stop during the drain ends it after the batch
being written (each is one transaction, so the book stays whole); the
batches left are counted (``Written.unwritten``) and, being absent from the
book, solved again by a resume.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..format.rows import Rows
    from .store import BookStore

DEPTH = 4  # batches handed over and not yet written, at most


class Written(NamedTuple):
    """What the writer did: rows written, the wall and CPU seconds of its thread's writes,
    and frontier positions handed over but never written (a second stop, or an error)."""

    rows: int
    seconds: float
    cpu_seconds: float
    unwritten: int


class BatchWriter:
    """``put`` a batch, ``close`` to drain; behind the loop when ``store.writes_behind``."""

    def __init__(self, store: BookStore):
        self._store = store
        self._rows = self._unwritten = 0
        self._seconds = self._cpu = 0.0
        self._error: BaseException | None = None
        self._abandon = threading.Event()  # a second stop: write nothing more
        self._queue: queue.Queue[tuple[Rows, float] | None] = queue.Queue(DEPTH)
        self._thread = None
        if store.writes_behind:
            self._thread = threading.Thread(target=self._run, name="c4book-writer", daemon=True)
            self._thread.start()

    def put(self, rows: Rows, search_seconds: float) -> None:
        """Write ``rows`` (with the search time that made them), or hand them to the thread;
        an error of an earlier batch's write is raised here."""
        if self._thread is None:
            self._write(rows, search_seconds)
            return
        self._raise()
        self._queue.put((rows, search_seconds))

    def close(self) -> Written:
        """Wait until every batch handed over is written; raise the first write's error."""
        if self._thread is not None:
            try:
                self._queue.put(None)
                self._thread.join()
            except KeyboardInterrupt:  # a second stop: the batch being written, then no more
                self._abandon.set()
                self._queue.put(None)  # (a second end mark, if the first got in, is never read)
                self._thread.join()
                raise
            finally:
                self._thread = None
        self._raise()
        return self.written()

    def written(self) -> Written:
        return Written(self._rows, self._seconds, self._cpu, self._unwritten)

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _write(self, rows: Rows, search_seconds: float) -> None:
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            self._rows += self._store.insert_new(rows, search_seconds=search_seconds)
        finally:
            self._seconds += time.perf_counter() - start
            self._cpu += time.thread_time() - cpu

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            rows, search_seconds = item
            if self._error is not None or self._abandon.is_set():
                self._unwritten += len(rows)
                continue
            try:
                self._write(rows, search_seconds)
            except BaseException as error:  # noqa: BLE001 - raised in the loop's thread
                self._error = error
                self._unwritten += len(rows)

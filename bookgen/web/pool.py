"""The server's searches: a fixed set of threads, each with its own state, and a bound on waiting.

A ``Solver`` (and so a ``Player``) must not run two searches at once, so
every thread builds its own, once, when it starts; the search kernels
release the GIL, so the threads search in parallel while the event loop
goes on answering from the book.  At most ``workers + waiting`` jobs are
admitted at once: past that ``run`` raises ``PoolFullError`` at once, and
the server answers 503, rather than queueing requests for minutes.

``LockedBook`` is how the threads and the event loop share one open book:
the reader was written for one caller at a time (one database connection,
caches filled as it reads), so every call goes through one lock.  A lookup
holds it for microseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any


class PoolFullError(RuntimeError):
    """Every worker is busy and the waiting line is full."""


class SolvePool:
    """``await pool.run(fn, *args)`` calls ``fn(state, *args)`` on a worker thread.

    ``make_state()`` runs once in each thread as it starts (building solvers,
    loading the search kernels), so that no request pays for it.
    """

    def __init__(self, make_state: Callable[[], Any], workers: int, waiting: int):
        if workers < 1 or waiting < 0:
            raise ValueError(
                f"a pool needs a worker or more and no negative waiting line, "
                f"got workers={workers!r}, waiting={waiting!r}"
            )
        self.workers, self.limit = workers, workers + waiting
        self._make_state = make_state
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._admitted = 0
        self._threads: list[threading.Thread] = []

    @property
    def busy(self) -> int:
        """Jobs admitted and not finished: running or waiting."""
        return self._admitted

    def start(self) -> None:
        for number in range(self.workers):
            thread = threading.Thread(
                target=self._work, name=f"c4book-web-{number + 1}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def close(self, timeout: float = 5.0) -> None:
        """Let each worker finish its job, then stop it (waiting jobs are still run first)."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout)
        self._threads = []

    async def run(self, fn: Callable, *args) -> Any:
        with self._lock:
            if self._admitted >= self.limit:
                raise PoolFullError(
                    f"the server is busy: {self._admitted} searches running or "
                    "waiting; try again in a moment"
                )
            self._admitted += 1
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put((fn, args, loop, future))
        # A client that goes away cancels only its wait: the slot is given back
        # when the worker is done, so the bound holds.
        return await future

    def _work(self) -> None:
        state = None
        failed: BaseException | None = None
        try:
            state = self._make_state()
        except Exception as caught:  # noqa: BLE001 - every job on this thread then answers with it
            failed = caught
        while (job := self._jobs.get()) is not None:
            fn, args, loop, future = job
            result, error = None, failed
            try:
                if failed is None:
                    result = fn(state, *args)
            except BaseException as caught:  # noqa: BLE001 - handed to the waiting request, which re-raises it
                error = caught
            finally:
                with self._lock:
                    self._admitted -= 1
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is waiting
                loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future, result, error) -> None:
    if future.done():  # the request was cancelled
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class LockedBook:
    """A book that many threads may call: each call to it holds one lock."""

    def __init__(self, book):
        self._book = book
        self._lock = threading.Lock()

    def __getattr__(self, name: str):
        value = getattr(self._book, name)
        if not callable(value):
            return value
        lock = self._lock

        def locked(*args, **kwargs):
            with lock:
                return value(*args, **kwargs)

        return locked

    def get(self, moves):
        """``Book.get`` under the lock (the hot path's call, so spelled out)."""
        with self._lock:
            return self._book.get(moves)

    def __contains__(self, moves) -> bool:
        return self.get(moves) is not None

    def __repr__(self) -> str:
        return f"LockedBook({self._book!r})"

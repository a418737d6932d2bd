"""``Alarm``: calls a function at a deadline, from one long-lived thread.

The search kernels release the GIL, so another thread can stop them at a
deadline.  A thread per deadline stalls the searches on a loaded machine
(``Thread.start`` waits for the new thread to be scheduled, which may then
hold the GIL while it is preempted); one thread that sleeps on a condition
avoids both.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Alarm:
    """``set(deadline, ring)`` calls ``ring()`` at ``deadline`` (``time.perf_counter``) unless
    ``cancel()`` comes first.  ``ring`` runs with the alarm's lock held, so after
    ``cancel()`` returns it can no longer run."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._deadline: float | None = None
        self._ring: Callable[[], None] | None = None
        self._thread: threading.Thread | None = None

    def set(self, deadline: float, ring: Callable[[], None]) -> None:
        with self._condition:
            self._deadline, self._ring = deadline, ring
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="c4book-alarm", daemon=True)
                self._thread.start()
            self._condition.notify()

    def cancel(self) -> None:
        with self._condition:
            self._deadline = self._ring = None

    def _run(self) -> None:
        with self._condition:
            while True:
                if self._deadline is None or self._ring is None:  # (set and cleared together)
                    self._condition.wait()
                    continue
                left = self._deadline - time.perf_counter()
                if left > 0:  # (a wait past TIMEOUT_MAX would kill this thread)
                    self._condition.wait(min(left, threading.TIMEOUT_MAX))
                    continue
                ring, self._deadline, self._ring = self._ring, None, None
                ring()

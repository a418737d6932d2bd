"""Stopping a build cleanly: a first Ctrl-C becomes a request the driver honours."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


@contextmanager
def graceful_interrupts():
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

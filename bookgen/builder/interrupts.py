"""Stopping a build cleanly: Ctrl-C or SIGTERM becomes a request the driver honours.

``timeout``, a cluster scheduler, ``ray job stop`` or the end of a login
session stop a build with SIGTERM; a terminal with Ctrl-C (SIGINT).  Either
way the first signal only sets a flag, which the driver checks between steps
(listing, starting Ray, each batch, each derived chunk, each sealed ply):
what is solved gets written, Ray is shut down, the lock released, the report
says how to resume, and the exit status is 128 + the signal's number (130,
143), whichever step it came in.  A second signal interrupts at once.

Ray installs SIGTERM handlers of its own (``ray.init``'s exits at once);
``ray_connect`` keeps them out, and the handlers are armed again once Ray is
up and after it shut down all the same.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest(threading.Event):
    """Set by the first Ctrl-C or SIGTERM; ``signal`` says which (None until then)."""

    def __init__(self) -> None:
        super().__init__()
        self.signal: int | None = None

    def arm(self) -> None:
        """(Re)install the handlers: call again after anything that installs its own."""
        if threading.current_thread() is threading.main_thread():
            for number in SIGNALS:
                signal.signal(number, self._on_signal)

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if a stop was requested: called between steps."""
        if self.is_set():
            raise KeyboardInterrupt

    def _on_signal(self, signum, frame) -> None:
        if self.is_set():
            raise KeyboardInterrupt
        self.signal = signum
        self.set()

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, as a shell reports a process it stopped."""
        return 128 + (self.signal or signal.SIGINT)


@contextmanager
def graceful_interrupts():
    """A ``StopRequest`` armed for the block; the previous handlers come back after it."""
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {number: signal.getsignal(number) for number in SIGNALS}
    stop.arm()
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)

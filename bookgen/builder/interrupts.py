"""Stopping a build cleanly: Ctrl-C, SIGTERM or SIGHUP becomes a request the driver honours.

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

A closed terminal (SIGHUP) stops a build, and ``merge`` between slices, the same
way: the exit status is 129 then.  ``export``, whose every step an interrupt
may cut (it leaves no file), has SIGTERM and SIGHUP raise at once, as Ctrl-C
does (``signals_as_interrupts``).  Either way the exception is a ``Stopped``
(a ``KeyboardInterrupt``) naming the signal, and the command line says which
(``stop_status``).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)
WITH_HANGUP = (*SIGNALS, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A stop by a signal, raised as Ctrl-C's ``KeyboardInterrupt`` is: ``signal`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signal = signum


def stop_status(stop: KeyboardInterrupt) -> tuple[str, int]:
    """How a command stopped by ``stop`` says so, and its exit status (128 + the signal)."""
    signum = getattr(stop, "signal", signal.SIGINT)
    if signum == signal.SIGINT:
        return "interrupted", 128 + signum
    return f"interrupted by {signal.Signals(signum).name}", 128 + signum


class StopRequest(threading.Event):
    """Set by the first of ``signals`` (Ctrl-C, SIGTERM); ``signal`` says which (None until
    then)."""

    def __init__(self, signals: tuple[int, ...] = SIGNALS) -> None:
        super().__init__()
        self.signals = signals
        self.signal: int | None = None

    def arm(self) -> None:
        """(Re)install the handlers: call again after anything that installs its own."""
        if threading.current_thread() is threading.main_thread():
            for number in self.signals:
                signal.signal(number, self._on_signal)

    def check(self) -> None:
        """Raise ``Stopped`` if a stop was requested: called between steps."""
        if self.is_set():
            raise Stopped(self.signal or signal.SIGINT)

    def _on_signal(self, signum, frame) -> None:
        if self.is_set():
            raise Stopped(signum)
        self.signal = signum
        self.set()

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, as a shell reports a process it stopped."""
        return 128 + (self.signal or signal.SIGINT)


@contextmanager
def graceful_interrupts(signals: tuple[int, ...] = SIGNALS):
    """A ``StopRequest`` for ``signals``, armed for the block; the previous handlers come
    back after it."""
    stop = StopRequest(signals)
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    with _handlers_restored(signals):
        stop.arm()
        yield stop


@contextmanager
def signals_as_interrupts():
    """For the block, SIGTERM and SIGHUP raise ``Stopped`` in the main thread, as Ctrl-C
    raises ``KeyboardInterrupt``: wherever the block is, it unwinds."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stopped(signum, frame):
        raise Stopped(signum)

    stopping = (signal.SIGTERM, signal.SIGHUP)
    with _handlers_restored(stopping):
        for number in stopping:
            signal.signal(number, stopped)
        yield


@contextmanager
def _handlers_restored(signals: tuple[int, ...]):
    """The handlers of ``signals`` put back as they were after the block."""
    previous = {number: signal.getsignal(number) for number in signals}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)

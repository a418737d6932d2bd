"""Progress bars: redrawn on a terminal, a plain line now and then anywhere else.

Off a terminal (a log file, ``nohup``, a Ray job's log that ``ray job logs`` shows)
tqdm would still redraw its bar with carriage returns ten times a second: one
endless line.  There, each update becomes a line of its own, at most one every
``LOG_SECONDS``, plus the first and the last.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from tqdm import tqdm

LOG_SECONDS = 10.0
NOTICE_SECONDS = 1.0  # a wait shorter than this needs no word
SEARCH_NOTICE = (
    "searching (the first search after an install or an upgrade also compiles "
    "the search kernels: up to a minute)"
)


def progress_bar(iterable=None, **options) -> tqdm:
    """``tqdm(iterable, **options)`` on a terminal (stderr unless ``file``), else lines."""
    from tqdm import tqdm  # (here: a one-off query's notice need not load it)

    stream = options.pop("file", None) or sys.stderr
    if _is_terminal(stream):
        return tqdm(iterable, file=stream, **options)
    options.setdefault("mininterval", LOG_SECONDS)
    options.setdefault("maxinterval", LOG_SECONDS)
    return tqdm(iterable, file=_Lines(stream), ascii=True, **options)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no such method, or a closed file
        return False


class _Lines:
    """A stream that turns tqdm's redraws (carriage return, bar, padding) into lines."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line:
            self._stream.write(line + "\n")

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def notice_if_slow(
    text: str, stream: IO[str] | None = None, seconds: float | None = None
) -> Iterator[None]:
    """Write ``text`` as a line to ``stream`` (stderr) if the block is still running after
    ``seconds`` (``NOTICE_SECONDS``): a command never waits in silence, a quick one says
    nothing."""
    stream = stream or sys.stderr
    wait = NOTICE_SECONDS if seconds is None else seconds
    timer = threading.Timer(wait, lambda: print(text, file=stream, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()

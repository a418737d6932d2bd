"""Progress bars: redrawn on a terminal, a plain line now and then anywhere else.

Off a terminal (a log file, ``nohup``, a Ray job's log that ``ray job logs`` shows)
tqdm would still redraw its bar with carriage returns ten times a second: one
endless line.  There, each update becomes a line of its own, at most one every
``LOG_SECONDS``, plus the first and the last.
"""

from __future__ import annotations

import sys

from tqdm import tqdm

LOG_SECONDS = 10.0


def progress_bar(iterable=None, **options) -> tqdm:
    """``tqdm(iterable, **options)`` on a terminal (stderr unless ``file``), else lines."""
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

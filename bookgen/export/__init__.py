"""A book as a data set: ``c4book export`` to Parquet, CSV or Tromp's UCI layout.

    from bookgen.export import export
    export("book.parquet", plies="8-12")              # ./book.db, else the installed book
    export("ply8.data", plies=8, db="book.db")       # the UCI layout, from the suffix

One row a stored position (``--mirrors``: and each mirror image), a slice of
a ply at a time (``bookgen.book.read.scan``), so memory stays bounded whatever the
book's size.  A file is written under a temporary name beside ``out`` and
renamed at the end: an error or an interrupt leaves nothing at ``out``; a
device or a pipe is written into directly (``output``).  Formats: ``parquet`` (the ``data`` extra), ``csv`` and ``uci``; the columns
are in ``table`` and ``docs/data.md``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from typing import NamedTuple

from solver.errors import C4Error

from ..book.read.reader import Book
from ..book.read.scan import mirrored, plies_of, slices, stored_plies
from ..progress import progress_bar
from . import table
from .output import Output, OutputError

__all__ = ["ExportError", "Exported", "MissingExtraError", "OutputError", "export", "format_of"]

FORMATS = ("parquet", "csv", "uci")
SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".data": "uci"}


class ExportError(C4Error, ValueError):
    """An export asked in a way that cannot be done: an unknown format, say."""


class MissingExtraError(C4Error, ImportError):
    """A format whose library is not installed."""


class Exported(NamedTuple):
    path: str
    format: str
    rows: int
    plies: tuple[int, ...]
    seconds: float


def format_of(out: str, format: str | None = None) -> str:
    """``format`` if given (checked), else the one ``out``'s suffix names."""
    if format is not None:
        if format not in FORMATS:
            raise ExportError(f"format {format!r} is not one of {', '.join(FORMATS)}")
        return format
    suffix = os.path.splitext(out)[1].lower()
    if suffix not in SUFFIXES:
        raise ExportError(
            f"cannot tell the format of {out!r} from its suffix: give --format "
            f"{'|'.join(FORMATS)} (or name it {', '.join(SUFFIXES)})"
        )
    return SUFFIXES[suffix]


def _writer(format: str):
    """The format's writer class; a ``MissingExtraError`` naming the extra it needs."""
    if format == "parquet":
        try:
            from .parquet import Writer
        except ImportError as error:
            raise MissingExtraError(
                f"--format parquet needs the data extra (missing "
                f"{error.name or 'pyarrow'}): pip install 'c4book[data]'"
            ) from None
        return Writer
    if format == "csv":
        from .csvfile import Writer as CsvWriter

        return CsvWriter
    from .uci import Writer as UciWriter

    return UciWriter


def export(
    out: str,
    format: str | None = None,
    plies: int | str | Iterable[int] | None = None,
    db: str | Book | None = None,
    mirrors: bool = False,
    force: bool = False,
    progress: bool = False,
) -> Exported:
    """Write the book at ``db`` (a path, a URL or an open ``Book``; by default ./book.db,
    else the installed book) to ``out``.  ``plies``: a ply, ``"LO-HI"`` or a range (by
    default every ply).  ``force`` replaces an existing file ``out``; a device or a pipe
    is written into without it."""
    start = time.perf_counter()
    output = Output(out, force)
    chosen_format = format_of(out, format)
    writer = _writer(chosen_format)
    book = db if isinstance(db, Book) else Book.open(db)
    try:
        chosen = plies_of(book, plies)
        meta = table.metadata(book.db, book.board, book.info.root, mirrors)
        with output.opened() as sink:
            rows = _write(writer(sink, book.board, meta), book, chosen, mirrors, progress)
    finally:
        if book is not db:
            book.close()
    return Exported(out, chosen_format, rows, tuple(chosen), time.perf_counter() - start)


def _write(writer, book: Book, plies: list[int], mirrors: bool, progress: bool) -> int:
    """Every slice of ``plies`` (and its mirror images) through ``writer``: the rows written."""
    held = stored_plies(book)
    rows = 0
    with progress_bar(
        total=sum(held[p] for p in plies),
        desc="export",
        unit="pos",
        unit_scale=True,
        disable=not progress,
        file=sys.stderr,
    ) as bar:
        try:
            for part in slices(book, plies):
                rows += writer.write(part)
                if mirrors:
                    rows += writer.write(mirrored(part, book.board))
                bar.update(part.size)
        finally:
            writer.close()
    return rows

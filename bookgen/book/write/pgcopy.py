"""Rows into PostgreSQL by binary ``COPY``: a batch's bytes made by numpy, one round trip.

An ``INSERT`` of many rows costs the server a parse and a plan per statement
and the driver a Python value per field; ``COPY ... (FORMAT BINARY)`` takes
the whole batch as one stream of fixed-layout records, which numpy builds a
column at a time.  ``COPY`` knows no ``ON CONFLICT``: the store copies
straight into ``positions`` in a savepoint, and where a key is already
stored (the copy then fails whole) copies into a temporary table instead
(``STAGING``: no index, emptied at each commit), from which one ``INSERT ...
SELECT ... ON CONFLICT (key)`` moves the rows.  So the writes stay
idempotent, keyed by the canonical key, and the common case, where no key is
stored yet, skips ``ON CONFLICT``'s cost (about 2 us a row of the server's).

A key past 64 bits is a ``bytea`` of 16 bytes (``wide_keys``): in the stream a
field of 16 bytes, the key's big-endian bytes as SQL holds them, laid by numpy
as the one-word key's 8 are.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..format.names import COLUMNS
from ..format.rows import Rows
from ..format.scores import BEST_TEXT
from ..format.wide_keys import KEY_BYTES, blobs_of

STAGING = "c4book_staging"
_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # the format's header: no flags, no extension
_TRAILER = b"\xff\xff"  # a field count of -1 ends the stream
_TEXT_WIDTH = max(map(len, BEST_TEXT))
_TEXT_BYTES = np.array([t.encode().ljust(_TEXT_WIDTH, b"\0") for t in BEST_TEXT]).view(
    (np.uint8, _TEXT_WIDTH)
)
_TEXT_LENGTHS = np.array([len(t) for t in BEST_TEXT], np.int32)


def staging_sql() -> str:
    """The temporary table, made once a session: the rows' columns without their index."""
    return (
        f"CREATE TEMPORARY TABLE IF NOT EXISTS {STAGING} "
        "(LIKE positions INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
    )


def copy_sql(table: str) -> str:
    return f"COPY {table} ({', '.join(COLUMNS)}) FROM STDIN (FORMAT BINARY)"


def move_sql(conflict: str) -> str:
    """The staged rows into ``positions``; ``conflict`` is what a stored key does."""
    columns = ", ".join(COLUMNS)
    return (
        f"INSERT INTO positions ({columns}) SELECT {columns} FROM {STAGING} "
        f"ON CONFLICT (key) {conflict}"
    )


def copy_stream(rows: Rows, chunk: int) -> Iterator[bytes]:
    """``rows`` (keys as SQL stores them) as a binary ``COPY`` stream of ``COLUMNS``, made
    ``chunk`` rows at a time: memory stays a few times one chunk's."""
    yield _SIGNATURE
    for start in range(0, len(rows), chunk):
        yield records(rows[start : start + chunk])
    yield _TRAILER


def records(rows: Rows) -> bytes:
    """The stream's records of ``rows``, one a row, between its header and its trailer."""
    count = len(rows)
    width = rows.width
    wide = rows.keys.ndim == 2  # keys past 64 bits: 16-byte bytea
    key_size = KEY_BYTES if wide else 8
    fields = [
        ("n", ">i2"),
        ("key_len", ">i4"),
        ("key", "u1", (KEY_BYTES,)) if wide else ("key", ">i8"),
        ("ply_len", ">i4"),
        ("ply", ">i2"),
        ("score_len", ">i4"),
        ("score", ">i2"),
        ("wdl_len", ">i4"),
        ("wdl", ">i2"),
        ("best_len", ">i4"),
        ("best", "u1", (_TEXT_WIDTH,)),
        ("moves_len", ">i4"),
        ("moves", "u1", (width,)),
        ("nodes_len", ">i4"),
        ("nodes", ">i8"),
        ("sum_len", ">i4"),
        ("sum", ">i8"),
    ]
    record = np.zeros(count, np.dtype(fields))
    record["n"] = len(COLUMNS)
    for name, size in (("key", key_size), ("ply", 2), ("score", 2), ("wdl", 2), ("nodes", 8)):
        record[f"{name}_len"] = size
    record["sum_len"] = 8
    if wide:
        record["key"] = blobs_of(rows.keys).view(np.uint8).reshape(count, KEY_BYTES)
    else:
        record["key"] = rows.keys.view(np.int64) if rows.keys.dtype == np.uint64 else rows.keys
    record["ply"] = rows.ply
    record["score"] = rows.scores
    record["wdl"] = np.sign(rows.scores)
    best = np.asarray(rows.best, np.intp)
    record["best_len"] = _TEXT_LENGTHS[best]
    record["best"] = _TEXT_BYTES[best]
    if rows.move_scores is None:
        record["moves_len"] = -1  # NULL: the frontier keeps no move scores
    else:
        record["moves_len"] = width
        record["moves"] = rows.move_scores
    if rows.nodes is not None:
        record["nodes"] = rows.nodes
    record["sum"] = rows.checksums()
    # Each record as bytes, less the text's padding past its length: one mask for all.
    matrix = record.view(np.uint8).reshape(count, record.dtype.itemsize)
    keep = np.ones(matrix.shape, bool)
    start = record.dtype.fields["best"][1]  # type: ignore[index]  # a structured dtype's
    keep[:, start : start + _TEXT_WIDTH] = np.arange(_TEXT_WIDTH) < _TEXT_LENGTHS[best][:, None]
    return matrix[keep].tobytes()

"""Rows of the ``positions`` table, as columns: written without a Python object per row,
and read back checked against their checksums (``checksum``).

The driver writes millions of rows.  A tuple per row costs more than the
insert itself: building it, and the garbage collector walking every tuple
still alive (all of them, until the batch is written).  So rows stay numpy
columns until they are bound, and then become one flat list of values,
sliced into a plain tuple of parameters per statement of many rows.
Reading (``read_rows``) takes every field of a row and checks it before any
of it is used: a damaged row is ``CorruptBookError`` naming its ply and key.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import repeat

import numpy as np

from .checksum import move_score_words, row_checksums
from .collector import paused
from .errors import corrupt_database, cursor_error, damaged_ply
from .names import COLUMNS
from .scores import BEST_BITS, BEST_TEXT
from .segment import Segment
from .sql import driver_connection
from .wide_keys import KEY_BYTES, blob_list, empty_rows, rows_of_blobs

READ_CHUNK = 20_000  # rows fetched at a time: each chunk's objects go before the next

_BEST_TEXT = np.array(BEST_TEXT, dtype=object)  # index by bit set: the stored text
_KEPT = (np.int16, np.int64, np.int8)  # what read rows keep of ply, key, score


@dataclass(frozen=True, eq=False)
class Rows:
    """Entries of one ply: keys with their scores and best columns (as bit sets).

    ``move_scores`` is ``(n, width)`` packed bytes (``schema.pack_scores``), or
    ``None`` on the frontier, where only the position itself was searched;
    ``nodes`` is ``None`` for derived entries (stored as 0).  Keys past 64 bits are
    ``(n, 2)`` rows (``wide_keys``), bound as 16-byte blobs.
    """

    ply: int
    keys: np.ndarray
    scores: np.ndarray
    best: np.ndarray
    move_scores: np.ndarray | None = None
    nodes: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, part: slice) -> Rows:
        return Rows(
            self.ply,
            self.keys[part],
            self.scores[part],
            self.best[part],
            None if self.move_scores is None else self.move_scores[part],
            None if self.nodes is None else self.nodes[part],
        )

    @property
    def width(self) -> int:
        """Bytes of move scores a row: the board's width."""
        return 0 if self.move_scores is None else self.move_scores.shape[1]

    def with_keys(self, keys: np.ndarray) -> Rows:
        return replace(self, keys=keys)

    def insert(self, count: int) -> str:
        """An ``INSERT`` of ``count`` rows with ``?`` placeholders, before its conflict clause.

        What is the same on every row (the ply; no move scores on the
        frontier; no nodes when derived) is written into the statement, not
        bound once per row.  Move scores are bound as one blob a statement,
        each row's seven bytes cut from it in SQL: a blob bound per row
        costs the driver more than the insert (sqlite3 looks up an adapter
        for every ``bytes`` value).
        """
        head = f"INSERT INTO positions ({', '.join(COLUMNS)}) "
        ply, bound_nodes = int(self.ply), self.nodes is not None
        if self.move_scores is None:
            row = f"(?, {ply}, ?, ?, ?, NULL, {'?' if bound_nodes else '0'}, ?)"
            return head + "VALUES " + ", ".join([row] * count)
        width = self.width
        rows = ", ".join(
            f"(?, ?, ?, ?, {1 + width * i}{', ?' if bound_nodes else ''}, ?)" for i in range(count)
        )
        # WHERE true: SQLite's parser needs it before ON CONFLICT after a SELECT.
        return (
            head + f"SELECT column1, {ply}, column2, column3, column4, "
            f"substr(?, column5, {width}), {'column6' if bound_nodes else '0'}, "
            f"{'column7' if bound_nodes else 'column6'} "
            f"FROM (VALUES {rows}) AS v WHERE true"
        )

    def checksums(self) -> np.ndarray:
        """Each row's checksum, as ``read_rows`` checks it (keys as SQL stores them)."""
        return row_checksums(
            self.keys,
            self.ply,
            self.scores,
            np.sign(self.scores),
            self.best,
            move_score_words(self.move_scores, len(self)),
            0 if self.nodes is None else self.nodes,
        )

    def values(self) -> list:
        """The values bound per row, row after row: key, score, win/draw/loss,
        best columns as text, nodes if any, and the row's checksum."""
        columns = [
            blob_list(self.keys) if self.keys.ndim == 2 else self.keys.tolist(),
            self.scores.tolist(),
            np.sign(self.scores).tolist(),
            _BEST_TEXT[self.best].tolist(),
        ]
        if self.nodes is not None:
            columns.append(self.nodes.tolist())
        columns.append(self.checksums().tolist())
        flat = [None] * (len(columns) * len(self))
        for i, column in enumerate(columns):
            flat[i :: len(columns)] = column  # interleaved in C: no loop per row here
        return flat

    def statements(self, per_statement: int) -> Iterator[tuple[int, list[tuple]]]:
        """``(rows per statement, parameter tuples)`` for ``insert(rows per statement)``:
        whole statements of ``per_statement`` rows, then one statement of the rest."""
        flat = self.values()
        width = len(flat) // len(self) if len(self) else 0
        packed = (
            None
            if self.move_scores is None
            else np.ascontiguousarray(self.move_scores, dtype=np.uint8).tobytes()
        )
        whole = len(self) - len(self) % per_statement
        for count, starts in (
            (per_statement, range(0, whole, per_statement)),
            (len(self) - whole, range(whole, len(self), per_statement)),
        ):
            if not count or not starts:
                continue
            if packed is None:
                yield count, [tuple(flat[width * s : width * (s + count)]) for s in starts]
            else:  # the statement's blob first: its placeholder comes first in the SQL
                size = self.width  # move-score bytes a row
                yield (
                    count,
                    [
                        (
                            packed[size * s : size * (s + count)],
                            *flat[width * s : width * (s + count)],
                        )
                        for s in starts
                    ],
                )


# -- reading ------------------------------------------------------------------------


def read_rows(
    conn, where: str, db: str, width: int, offset: int = 0, kind=np.uint8, wide: bool = False
) -> tuple[np.ndarray, Segment]:
    """``(plies, entries)`` of the rows ``where`` selects (SQL of literals only), in
    key order, each row checked against its checksum first; ``offset`` is what keys lose
    on their way into SQL (``store.key_offset``); ``wide``: keys are 16-byte blobs, read
    as ``(n, 2)`` rows.  Fetched in chunks on the driver's own cursor: no result row
    objects, never one list of every row."""
    columns: tuple[list[np.ndarray], ...] = ([], [], [], [])
    plies, keys, scores, best = columns
    cursor = driver_connection(conn).cursor()
    try:
        with paused():
            cursor.execute(f"SELECT {', '.join(COLUMNS)} FROM positions {where} ORDER BY key")
            while chunk := cursor.fetchmany(READ_CHUNK):
                # Narrowed at once: four int64 columns held until the end would be the
                # peak of reading a ply (32 bytes a row, then 56 while they are joined).
                for into, column, kept in zip(
                    (plies, keys, scores, best),
                    _checked(chunk, width, db, wide),
                    (*_KEPT, kind),
                    strict=True,
                ):
                    into.append(column.astype(kept, copy=False))
    except Exception as error:
        named = corrupt_database(db, error) or cursor_error(db, conn, error, "SELECT")
        if named is None:
            raise
        raise named from None
    finally:
        cursor.close()
    if not keys:
        empty = np.empty(0, np.int64)
        return empty.astype(_KEPT[0]), Segment(
            empty_rows() if wide else empty.view(np.uint64),
            empty.astype(np.int8),
            empty.astype(kind),
        )
    stored = np.concatenate(keys).view(np.uint64)
    if offset:
        stored ^= np.uint64(offset)
    return np.concatenate(plies), Segment(stored, np.concatenate(scores), np.concatenate(best))


def _checked(chunk: list[tuple], width: int, db: str, wide: bool) -> tuple[np.ndarray, ...]:
    """``(plies, keys as SQL stores them, scores, best-move bits)`` of fetched rows, every
    field checked: of its type, best moves as written, the checksum right."""
    bad = np.zeros(len(chunk), bool)
    columns = list(zip(*chunk, strict=True))
    plies, keys, scores, best, expected = _fields(columns, width, bad, wide)
    bad |= expected != _integers(columns[7], bad)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise damaged_ply(chunk[at][1], f"its row of key {chunk[at][0]!r} fails its checksum", db)
    return plies, keys, scores, best


def _fields(
    columns: list[tuple], width: int, bad: np.ndarray, wide: bool = False
) -> tuple[np.ndarray, ...]:
    """``(plies, keys, scores, best-move bits, checksums)`` of rows, given as their columns
    in the order of ``COLUMNS`` (a stored checksum, if there, is left out); a field of the
    wrong type or best moves not as written mark their row in ``bad``.  ``wide``: keys are
    16-byte blobs, given back as ``(n, 2)`` rows."""
    key, ply, score, wdl, texts, packed, node = columns[:7]
    plies, scores, wdls, nodes = (_integers(c, bad) for c in (ply, score, wdl, node))
    keys = _blob_keys(key, bad) if wide else _integers(key, bad)
    best = np.fromiter(map(BEST_BITS.get, texts, repeat(-1)), np.int64, len(texts))
    bad |= best < 0
    checksums = row_checksums(
        keys, plies, scores, wdls, best, _move_score_words(packed, width, bad), nodes
    )
    return plies, keys, scores, best, checksums


def stamp_rows(conn, db: str, width: int) -> int:
    """Give every row its checksum, in ``conn``'s transaction: ``upgrade`` from a version
    that kept none, whose rows are taken as they are (nothing can check them).  A row
    that cannot be read as one is ``CorruptBookError``.  The rows stamped."""
    from sqlalchemy import text  # (the writer's: a reader never loads SQLAlchemy)

    stamped, after = 0, None
    update = text("UPDATE positions SET checksum = :checksum WHERE key = :key")
    while True:  # a key range at a time: no read is open while its rows are written
        where = "" if after is None else f"WHERE key > {after}"
        chunk = conn.exec_driver_sql(
            f"SELECT {', '.join(COLUMNS[:7])} FROM positions {where} "
            f"ORDER BY key LIMIT {READ_CHUNK}"
        ).fetchall()
        if not chunk:
            return stamped
        bad = np.zeros(len(chunk), bool)
        checksums = _fields(list(zip(*chunk, strict=True)), width, bad)[-1]
        if bad.any():
            at = int(np.flatnonzero(bad)[0])
            raise damaged_ply(chunk[at][1], f"its row of key {chunk[at][0]!r} cannot be read", db)
        conn.execute(
            update,
            [
                {"checksum": c, "key": row[0]}
                for c, row in zip(checksums.tolist(), chunk, strict=True)
            ],
        )
        stamped += len(chunk)
        after = chunk[-1][0]


def _integers(column: tuple | list, bad: np.ndarray) -> np.ndarray:
    """An integer column as int64; a value of another type (a damaged record) marks its row."""
    if set(map(type, column)) != {int}:
        column = list(column)
        for at, value in enumerate(column):
            if type(value) is not int:
                bad[at], column[at] = True, 0
    return np.fromiter(column, np.int64, len(column))


def _blob_keys(column: tuple, bad: np.ndarray) -> np.ndarray:
    """A column of 16-byte keys as ``(n, 2)`` rows; a value of another type or size (a
    damaged record) marks its row."""
    values = [bytes(v) if type(v) is memoryview else v for v in column]  # (psycopg2's bytea)
    for at, value in enumerate(values):
        if type(value) is not bytes or len(value) != KEY_BYTES:
            bad[at], values[at] = True, bytes(KEY_BYTES)
    return rows_of_blobs(values)


def _move_score_words(column: tuple, width: int, bad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stored move scores (bytes of ``width``, or ``None``) as ``move_score_words``."""
    if column.count(None) == len(column):
        return move_score_words(None, len(column))
    present = [at for at, value in enumerate(column) if value is not None]
    blobs = []
    for at in present:
        value = column[at]
        if not isinstance(value, (bytes, memoryview)) or len(value) != width:
            bad[at], value = True, bytes(width)
        blobs.append(bytes(value))
    low, high = move_score_words(
        np.frombuffer(b"".join(blobs), np.uint8).reshape(-1, width), len(present)
    )
    words = move_score_words(None, len(column))
    words[0][present], words[1][present] = low, high
    return words

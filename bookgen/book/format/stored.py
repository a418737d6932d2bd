"""What a book stores, ply by ply, read back checked: what the writer and ``verify`` read.

A ply's entries are rows while it is built, packed segments as it goes
(``segment``), and blocks once sealed (``sealed``); the reads here
(``keys_at``, ``scores_at``, ``best_at``) join them, so a caller need not
know which a ply is.  Every read of rows checks them (``rows.read_rows``),
every segment and block its CRC: a damaged book raises ``CorruptBookError``,
and is never answered from or sealed.  (The reader, ``read.plies``, opens
sealed plies by their indexes and reads the rest through ``segments_of``.)
"""

from __future__ import annotations

import json

import numpy as np
from sqlalchemy import Engine, func, select

from solver.bitboard import Board

from .checksum import check_meta
from .database import key_offset
from .rows import read_rows
from .schema import Meta, SealedRow, SegmentRow, positions_of
from .sealed import in_old_codec, read_sealed, sealed_and_more, sealed_plies, sealed_sizes
from .segment import Segment, merge, segments_of
from .wide_keys import blob_literal, empty_rows, rows_of, searchsorted, union

KEY_LIMIT = (1 << 64) - 1  # above every key of one word
WIDE_KEY_LIMIT = (1 << 128) - 1  # above every key of two words


class StoredBook:
    """A book's stored entries and meta, read through ``engine``; merged segments are kept."""

    def __init__(self, engine: Engine, db: str, board: Board):
        self.engine, self.db, self.board = engine, db, board
        self._offset = key_offset(board)
        self._positions = positions_of(board)  # (keyed by a blob past 64 bits)
        self._segments: dict[int, Segment | None] = {}  # merged segments by ply, as read

    # -- metadata ----------------------------------------------------------
    def meta(self) -> dict[str, str]:
        """The book's metadata, checked against its checksum."""
        with self.engine.connect() as conn:
            meta = dict(conn.execute(select(Meta.name, Meta.value)).all())
        check_meta(meta, self.db)
        return meta

    def complete_plies(self) -> list[int]:
        return json.loads(self.meta().get("complete_plies", "[]"))

    # -- entries -----------------------------------------------------------
    def _read_rows(self, where: str) -> tuple[np.ndarray, Segment]:
        """``rows.read_rows`` on this book: ``(plies, entries)``, every row checked."""
        with self.engine.connect() as conn:
            return read_rows(
                conn,
                where,
                self.db,
                self.board.width,
                self._offset,
                self.board.column_set_type,
                self.board.is_wide,
            )

    def segment_at(self, ply: int) -> Segment | None:
        """The packed part of ``ply`` (its blocks or its segments merged), or ``None``; read
        once."""
        if ply not in self._segments:
            with self.engine.connect() as conn:
                parts = segments_of(conn, self.board, self.db, ply).get(ply, [])
                if (sealed := sealed_plies(conn, self.board, self.db, ply).get(ply)) is not None:
                    if parts:
                        raise sealed_and_more(ply, self.db)
                    parts.insert(0, read_sealed(conn, sealed, self.board, self.db))
            self._segments[ply] = merge(parts, ply, self.db) if parts else None
        return self._segments[ply]

    def keys_at(self, ply: int, low: int = 0, high: int | None = None) -> np.ndarray:
        """Sorted keys stored at ``ply`` within ``[low, high)`` (``None``: above every key):
        packed, and rows by a range scan of the key.  Every row in the range is checked,
        whatever its ply: a row whose ply was damaged is found here too."""
        if self.board.is_wide:
            return self._wide_keys_at(ply, low, WIDE_KEY_LIMIT if high is None else high)
        offset = self._offset
        high = KEY_LIMIT if high is None else min(int(high), KEY_LIMIT)
        if low >= high:
            return np.empty(0, dtype=np.uint64)
        plies, found = self._read_rows(
            f"WHERE key >= {int(low) - offset} AND key < {min(high - offset, (1 << 63) - 1)}"
        )
        rows = found.keys[plies == ply]
        segment = self.segment_at(ply)
        if segment is None:
            return rows
        packed = segment.keys[
            segment.keys.searchsorted(np.uint64(low)) : segment.keys.searchsorted(
                np.uint64(min(int(high), KEY_LIMIT))
            )
        ]
        return np.union1d(packed, rows) if len(rows) else packed

    def _wide_keys_at(self, ply: int, low: int, high: int) -> np.ndarray:
        """``keys_at`` past 64 bits: ``(n, 2)`` rows, rows of SQL read by a range of blobs."""
        high = min(int(high), WIDE_KEY_LIMIT)
        if low >= high:
            return empty_rows()
        dialect = self.engine.dialect.name
        plies, found = self._read_rows(
            f"WHERE key >= {blob_literal(int(low), dialect)} "
            f"AND key < {blob_literal(high, dialect)}"
        )
        rows = found.keys[plies == ply]
        segment = self.segment_at(ply)
        if segment is None:
            return rows
        start, end = searchsorted(segment.keys, rows_of([int(low), high])).tolist()
        packed = segment.keys[start:end]
        return union(packed, rows) if len(rows) else packed

    def _row_entries(self, ply: int) -> Segment:
        """The rows of ``ply``, checked, with their best-move bits."""
        return self._read_rows(f"WHERE ply = {int(ply)}")[1]

    def entries_at(self, ply: int) -> Segment:
        """Every entry at ``ply``, packed and rows together, in key order; best-move
        bits only if every entry has them (a ply sealed below the last has none)."""
        rows, segment = self._row_entries(ply), self.segment_at(ply)
        if segment is None:
            return rows
        return merge([segment, rows], ply, self.db) if len(rows.keys) else segment

    def scores_at(self, ply: int) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, scores)`` of every entry at ``ply``, sorted by key."""
        entries = self.entries_at(ply)
        return entries.keys, entries.scores

    def best_at(self, ply: int) -> np.ndarray | None:
        """Best-move bits (bit c: column c + 1) of every entry at ``ply``, in key order
        (the order of ``scores_at``), or ``None`` where a sealed ply keeps none."""
        return self.entries_at(ply).best

    def count_by_ply(self) -> dict[int, int]:
        return {ply: packed + rows for ply, (packed, _, rows) in self.storage_by_ply().items()}

    def storage_by_ply(self) -> dict[int, tuple[int, int, int]]:
        """Per ply: ``(positions packed, bytes of their blocks or segments, rows not packed)``."""
        with self.engine.connect() as conn:
            sealed = sealed_sizes(conn, self.board, self.db)
            packed = {
                ply: (int(n), int(size))
                for ply, n, size in conn.execute(
                    select(
                        SegmentRow.ply,
                        func.sum(SegmentRow.count),
                        func.sum(func.length(SegmentRow.data)),
                    ).group_by(SegmentRow.ply)
                )
            }
        for ply, (count, size) in sealed.items():
            more_count, more_size = packed.get(ply, (0, 0))
            packed[ply] = (count + more_count, size + more_size)
        rows = self.row_counts()
        return {
            ply: (*packed.get(ply, (0, 0)), rows.get(ply, 0))
            for ply in sorted(set(packed) | set(rows))
        }

    def row_counts(self) -> dict[int, int]:
        """Rows not yet packed, by ply."""
        with self.engine.connect() as conn:
            return dict(
                sorted(
                    conn.execute(
                        select(self._positions.c.ply, func.count()).group_by(self._positions.c.ply)
                    ).all()
                )
            )

    def is_sealed(self, ply: int) -> bool:
        """Complete, and all of it in blocks: no segments and no rows."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(func.count())
                .select_from(self._positions)
                .where(self._positions.c.ply == ply)
            ).scalar_one()
            segments = conn.execute(
                select(func.count()).select_from(SegmentRow).where(SegmentRow.ply == ply)
            ).scalar_one()
            indexes = conn.execute(
                select(func.count()).select_from(SealedRow).where(SealedRow.ply == ply)
            ).scalar_one()
        return ply in self.complete_plies() and rows == 0 and segments == 0 and indexes == 1

    def in_old_codec(self) -> set[int]:
        """The sealed plies whose blocks are in an older codec than this one's (``sealed``)."""
        with self.engine.connect() as conn:
            return in_old_codec(conn, self.board)

"""Sealed plies read a block at a time: what ``Book.open`` opens instead of reading a ply whole.

A ``LazyPly`` holds a sealed ply's index (``format.sealed``); a lookup finds
the one block that may hold its key, reads it (one or two short queries: no
lock is held between lookups), decodes it and keeps it in the book's
``BlockCache``, a bounded LRU shared by its plies.  Bulk work (many lookups
at once, a whole ply's move scores, an export) asks for ``whole()``: every
block decoded into arrays, kept while the ply is open.

One lock a book guards its reads and decoders (python-zstandard's are not
for two threads at once); a block already cached is read without it.
"""

from __future__ import annotations

import sqlite3
import threading
from bisect import bisect_left
from collections import OrderedDict
from contextlib import suppress
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from solver.bitboard import Board

from ..format.errors import read_failed
from ..format.names import CHUNKS_TABLE
from ..format.sealed import SealedPly, decode, decode_all
from ..format.segment import Segment, empty_segment
from ..format.sql import fetch
from ..format.wide_keys import KeyList

if TYPE_CHECKING:
    from sqlalchemy import Engine

# Blocks a book keeps decoded by default: about 8 MB on 7x6 (a block of 2,048 positions
# decoded is 20 kB), and a parent's seven children's blocks many times over.
CACHE_BLOCKS = 400
_CHUNKS = f"SELECT data FROM {CHUNKS_TABLE} WHERE id >= :first AND id <= :last ORDER BY id"


class Block(NamedTuple):
    """One decoded block: memoryviews (an item read from one is a Python int at once)."""

    keys: memoryview | KeyList  # (keys past 64 bits: ``wide_keys``)
    scores: memoryview
    best: memoryview | None
    start: int  # the place of its first position in its ply
    arrays: Segment  # the same as numpy arrays, for bulk reads


class BlockSource:
    """Reads the chunks of a book's sealed plies: on SQLite through its own read-only
    connection (``sql.open_readonly``: a query a read, in autocommit, so no lock outlives
    it), else a pooled SQLAlchemy connection a read.  Closing it closes what it reads."""

    def __init__(self, source: Engine | sqlite3.Connection, db: str):
        self.db = db
        self._raw = source if isinstance(source, sqlite3.Connection) else None
        self.engine = None if isinstance(source, sqlite3.Connection) else source

    def chunks(self, first: int, last: int) -> list[bytes]:
        """The ``block_chunks`` rows ``first`` to ``last`` (ids), in order."""
        bounds = {"first": first, "last": last}
        if self.engine is not None:
            with self.engine.connect() as conn:
                return [data for (data,) in fetch(conn, _CHUNKS, bounds)]
        if self._raw is None:
            raise ValueError(f"the blocks of {self.db!r} are closed")
        try:
            rows = self._raw.execute(_CHUNKS, bounds).fetchall()
        except sqlite3.Error as error:
            raise read_failed(self.db, error) from None
        return [data for (data,) in rows]

    def close(self) -> None:
        if self._raw is not None:
            self._raw.close()
            self._raw = None
        if self.engine is not None:
            self.engine.dispose()


class BlockCache:
    """The last ``capacity`` blocks decoded, by ``(ply, block)``: least recently used go."""

    def __init__(self, capacity: object = CACHE_BLOCKS):
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise ValueError(f"cache_blocks={capacity!r}: give a whole number of blocks, 1 or more")
        self.capacity: int = capacity
        self._blocks: OrderedDict[tuple[int, int], Block] = OrderedDict()

    def get(self, ply: int, number: int) -> Block | None:
        block = self._blocks.get((ply, number))
        if block is not None:
            # (dropped by another thread in between: still a good block)
            with suppress(KeyError):
                self._blocks.move_to_end((ply, number))
        return block

    def put(self, ply: int, number: int, block: Block) -> None:
        self._blocks[ply, number] = block
        while len(self._blocks) > self.capacity:
            self._blocks.popitem(last=False)

    def holds(self, ply: int, number: int) -> bool:
        return (ply, number) in self._blocks

    def __len__(self) -> int:
        return len(self._blocks)


class LazyPly:
    """A sealed ply, read a block at a time through ``source`` into ``cache``."""

    def __init__(
        self,
        sealed: SealedPly,
        source: BlockSource,
        cache: BlockCache,
        lock: threading.Lock,
        board: Board,
        db: str,
    ):
        self.sealed, self.ply = sealed, sealed.ply
        self._source, self._cache, self._lock = source, cache, lock
        self.board, self.db = board, db
        self._size = sealed.block_index.block_size
        self._whole: Segment | None = None

    def __len__(self) -> int:
        return len(self.sealed)

    def block(self, number: int) -> Block:
        """Block ``number``, decoded: from the cache, else read and kept."""
        block = self._cache.get(self.ply, number)
        if block is not None:
            return block
        with self._lock:
            block = self._cache.get(self.ply, number)  # another thread's, meanwhile
            if block is None:
                first, last, _ = self.sealed.chunks_of(number)
                chunks = self._source.chunks(first, last)
                got = decode(self.sealed, number, chunks, self.db)
                block = Block(
                    KeyList(got.keys) if got.keys.ndim == 2 else memoryview(got.keys),  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
                    memoryview(got.scores),  # type: ignore[arg-type]
                    None if got.best is None else memoryview(got.best),  # type: ignore[arg-type]
                    number * self._size,
                    got,
                )
                self._cache.put(self.ply, number, block)
        return block

    def at_hand(self, key: int) -> bool:
        """Whether looking ``key`` up reads no block: its block is decoded already."""
        number = self.sealed.block_of(key)
        return number < 0 or self._cache.holds(self.ply, number)

    def _locate(self, key: int) -> tuple[Block, int] | None:
        """``key``'s block and its place there, or ``None`` if the ply lacks it."""
        number = self.sealed.block_of(key)
        if number < 0:
            return None
        block = self.block(number)
        at = bisect_left(block.keys, key)
        if at == len(block.keys) or block.keys[at] != key:
            return None
        return block, at

    def find(self, key: int) -> int | None:
        """The place of ``key`` in the ply, or ``None`` if the ply lacks it."""
        found = self._locate(key)
        return None if found is None else found[0].start + found[1]

    def score_of(self, key: int) -> int | None:
        """The score of ``key``, or ``None`` if the ply lacks it."""
        found = self._locate(key)
        return None if found is None else found[0].scores[found[1]]

    def key_at(self, at: int) -> int:
        number, offset = divmod(at, self._size)
        return self.block(number).keys[offset]

    def entry(self, at: int) -> tuple[int, int]:
        """``(score, best-move bits)`` of the ``at``-th position (bits 0 where none kept)."""
        number, offset = divmod(at, self._size)
        block = self.block(number)
        return block.scores[offset], 0 if block.best is None else block.best[offset]

    @property
    def is_whole(self) -> bool:
        return self._whole is not None

    def slice(self, start: int, end: int) -> Segment:
        """The ``start``-th to ``end``-th positions, from their blocks (or the whole ply, if
        it is read whole)."""
        whole = self._whole
        if whole is None:
            end = min(end, len(self))
            if start >= end:
                return empty_segment(self.sealed.decoder.best_type, self.board.is_wide)
            size = self._size
            parts = [self.block(n).arrays for n in range(start // size, (end - 1) // size + 1)]
            whole = Segment(
                np.concatenate([p.keys for p in parts]),
                np.concatenate([p.scores for p in parts]),
                None if parts[0].best is None else np.concatenate([p.best for p in parts]),
            )
            offset = start // size * size  # the first block's place: the bounds within them
            start, end = start - offset, end - offset
        best = None if whole.best is None else whole.best[start:end]
        return Segment(whole.keys[start:end], whole.scores[start:end], best)

    def whole(self, compiled: bool = False) -> Segment:
        """Every block decoded into arrays, kept: for bulk work (``compiled``: decoded by
        numba's kernels, for a caller that has loaded numba)."""
        if self._whole is None:
            with self._lock:
                if self._whole is None:
                    self._whole = self._read_all(compiled)
        return self._whole

    def _read_all(self, compiled: bool) -> Segment:
        sealed, board, db = self.sealed, self.board, self.db
        if not sealed.blocks:
            return decode_all(sealed, [], board, db)
        first, last = sealed.chunks_of(0)[0], sealed.chunks_of(sealed.blocks - 1)[1]
        return decode_all(sealed, self._source.chunks(first, last), board, db, compiled)

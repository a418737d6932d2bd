"""The frontier's missing positions, streamed in key order a chunk at a time.

The deepest ply is listed a slice of key space at a time
(``listing.frontier_chunks``); each slice is checked against the keys the
book already holds in that same range (one range scan of the primary key),
and what is missing is handed out in batches.  The driver so holds the
shallower plies, one slice of the frontier and its stored keys, never the
whole frontier: the first batch goes out after the first slice.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver import Position

from ..book.write.store import BookStore
from .listing import contains_sorted, frontier_chunks, key_ints, root_keys
from .part import Part

CHUNK = 4_000_000  # frontier keys listed per slice: 32 MB, plus a pass over the parents


class MissingKeys:
    """Missing keys of ``ply`` below ``root``; ``levels`` must hold ply - 1.  With a
    ``part``, only that part of the frontier (listed whole once, to count it).

    ``total`` and ``stored`` count the frontier (or part) listed so far; once
    ``done``, they are the whole frontier's (or part's).
    """

    def __init__(
        self,
        store: BookStore | None,
        root: Position,
        levels: dict[int, np.ndarray],
        ply: int,
        chunk: int = CHUNK,
        part: Part | None = None,
    ):
        self.total = 0
        self.stored = 0
        self.done = False
        self._store, self._ply = store, ply
        self._listing = (root, levels, chunk)
        self._part = part
        self._whole = 0 if part is None else sum(map(len, self._listed()))
        self._missing = self._check(self._parts())
        self._buffer = np.empty(0, dtype=np.uint64)

    def _listed(self) -> Iterator[np.ndarray]:
        """The whole frontier, a slice of key space at a time, in key order."""
        root, levels, chunk = self._listing
        if self._ply == root.ply:
            return iter([root_keys(root)])
        return frontier_chunks(levels[self._ply - 1], chunk, root.board)

    def _parts(self) -> Iterator[np.ndarray]:
        """What this build lists: the frontier, or its part."""
        if self._part is None:
            return self._listed()
        return self._part.within(self._listed(), self._whole)

    def _missing_of(self, keys: np.ndarray) -> np.ndarray:
        if self._store is None:
            return keys
        first, last = key_ints(keys[[0, -1]])
        stored = self._store.keys_at(self._ply, first, last + 1)
        return keys[~contains_sorted(stored, keys)]

    def _check(self, parts: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
        for keys in parts:
            if not len(keys):
                continue
            missing = self._missing_of(keys)
            self.total += len(keys)
            self.stored += len(keys) - len(missing)
            yield missing
        self.done = True

    def count(self) -> tuple[int, int]:
        """``(frontier positions, of which stored)``, by a listing pass of its own (the
        stream is left as it was): a progress bar's total from the start."""
        total = stored = 0
        for keys in self._parts():
            if len(keys):
                total += len(keys)
                stored += len(keys) - len(self._missing_of(keys))
        return total, stored

    def chunks(self) -> Iterator[np.ndarray]:
        """Every missing key, one listed slice at a time (for a single pass)."""
        if len(self._buffer):
            yield self._buffer
            self._buffer = np.empty(0, dtype=np.uint64)
        yield from self._missing

    def take(self, count: int) -> np.ndarray:
        """Up to ``count`` missing keys, in key order; an empty array once all are out."""
        while len(self._buffer) < count and not self.done:
            more = next(self._missing, None)
            if more is not None:
                self._buffer = np.concatenate([self._buffer, more]) if len(self._buffer) else more
        batch, self._buffer = self._buffer[:count].copy(), self._buffer[count:]
        if not len(self._buffer):
            self._buffer = np.empty(0, dtype=np.uint64)  # an empty view would keep the slice
        return batch

    @property
    def pending(self) -> int:
        """Missing keys listed but not yet handed out."""
        return len(self._buffer)

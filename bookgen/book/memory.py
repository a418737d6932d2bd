"""A book's rows held in memory: lookups with no database query.

On the shipped book's machine an SQLite query by key is 24 us, more than the
whole budget of a fast lookup; once the book is read into memory a lookup is a
binary search.  Both orientations of every row are kept, so a lookup needs
only the asked position's own key (mirroring a key in Python is a third of a
lookup's work).  Compact, sorted by key:

    keys   array('Q')  each stored key, and its mirror image's key    16 bytes a row
    codes  array('I')  2 * kind + 1 if the key is the mirror image     8 bytes a row

A kind is a distinct (score, best moves, move scores) as stored: a book has
few (the shipped book: 1,208,493 rows, 259,080 kinds), so a lookup's answer is
built once per kind and orientation, by the reader.
"""

from __future__ import annotations

import gc
from array import array
from bisect import bisect_left
from collections.abc import Iterable

import numpy as np

from .keys import mirror_keys

_FETCH = 50_000  # rows per fetch while loading: a bounded list of Python rows at a time


class MemoryIndex:
    """The rows ``(key, score, best_moves, move_scores)`` of a book, by either orientation's key."""

    def __init__(self, batches: Iterable[list[tuple]]):
        """From batches of rows in ascending key order, as the book's primary key gives them."""
        stored = array("Q")
        kinds = array("I")
        kind_of: dict[tuple, int] = {}
        for batch in batches:
            if not batch:
                continue
            keys, scores, bests, packed = zip(*batch)   # columns, transposed in C
            rows = list(zip(scores, bests, packed))
            # New kinds numbered in order of appearance; dict.fromkeys and map
            # keep the loop over rows in C.
            new = [kind for kind in dict.fromkeys(rows) if kind not in kind_of]
            kind_of.update(zip(new, range(len(kind_of), len(kind_of) + len(new))))
            stored.extend(keys)
            kinds.extend(map(kind_of.__getitem__, rows))
        self.columns: list[tuple] = list(kind_of)   # (score, best_moves, move_scores) per kind
        self.rows = len(stored)

        keys = np.frombuffer(stored, dtype=np.uint64)
        if np.any(keys[1:] <= keys[:-1]):
            raise ValueError("rows must come in ascending key order, each key once")
        codes = 2 * np.frombuffer(kinds, dtype=np.uint32)
        mirrors = mirror_keys(keys)
        other = mirrors != keys   # a symmetric position is its own mirror image: once
        all_keys = np.concatenate([keys, mirrors[other]])
        order = np.argsort(all_keys, kind="stable")
        self.keys = array("Q", all_keys[order].tobytes())
        self.codes = array("I", np.concatenate([codes, codes[other] + 1])[order].tobytes())

    @classmethod
    def from_cursor(cls, cursor) -> MemoryIndex:
        """From a DBAPI or SQLAlchemy result of ``key, score, best_moves, move_scores``
        ordered by key, fetched a bounded number of rows at a time."""
        collecting = gc.isenabled()
        gc.disable()   # each row is a new tuple: the collector's walks were a third of the load
        try:
            return cls(iter(lambda: cursor.fetchmany(_FETCH), []))
        finally:
            if collecting:
                gc.enable()

    def __len__(self) -> int:
        return self.rows

    def __repr__(self) -> str:
        return f"<MemoryIndex of {self.rows:,} rows, {len(self.columns):,} kinds>"

    def find(self, key: int) -> int | None:
        """The code (``2 * kind + mirrored``) of the position with ``key``, or ``None``."""
        keys = self.keys
        at = bisect_left(keys, key)
        if at < len(keys) and keys[at] == key:
            return self.codes[at]
        return None

    def find_many(self, keys: np.ndarray) -> np.ndarray:
        """Codes of the positions with ``keys`` (a uint64 array), -1 where there is none."""
        stored = np.frombuffer(self.keys, dtype=np.uint64)
        if not len(stored):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(stored, keys), len(stored) - 1)
        # Only the codes asked for are widened (to hold -1), not the whole array.
        codes = np.frombuffer(self.codes, dtype=np.uint32)[at].astype(np.int64)
        return np.where(stored[at] == keys, codes, -1)

    @property
    def nbytes(self) -> int:
        """Bytes of the two arrays (the kinds' own tuples not counted)."""
        return self.keys.itemsize * len(self.keys) + self.codes.itemsize * len(self.codes)

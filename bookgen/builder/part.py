"""A part of a frontier: ``--part I/K``, for builds by several drivers.

One driver feeds a bounded number of cores (docs/scaling.md).  Past that,
K drivers each build one part of the same frontier into a book of their
own: the part is the I-th of K equal runs of the frontier in key order
(ranks, not key values: keys cluster, so equal ranges of key space would
hold very unequal shares).  Each driver lists the whole frontier to count
it, then searches and stores only its run, and neither seals the ply nor
derives the plies above: ``c4book merge`` gathers the parts' entries into
one book, and a build of the whole ply on it finds them stored, searches
whatever no part stored, seals the ply and derives the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from solver.errors import ArgumentError

MAX_PARTS = 1_000_000
WANTED = f"I/K, the I-th of K parts (1 <= I <= K <= {MAX_PARTS:,}), e.g. 2/8"  # what --part takes


class PartError(ArgumentError):
    """A ``--part`` that names no part."""


class Part(NamedTuple):
    """The ``number``-th (from 1) of ``total`` equal runs of a frontier in key order."""

    number: int
    total: int

    @classmethod
    def parse(cls, text: str) -> Part:
        """``"I/K"``, with 1 <= I <= K; a ``PartError`` naming ``text`` otherwise."""
        number, slash, total = text.strip().partition("/")
        if slash and all(t.isascii() and t.isdigit() for t in (number, total)):
            part = cls(int(number), int(total))
            if 1 <= part.number <= part.total <= MAX_PARTS:
                return part
        raise PartError(f"--part {text!r} is not a part: give {WANTED}")

    def __str__(self) -> str:
        return f"{self.number}/{self.total}"

    def ranks(self, frontier: int) -> tuple[int, int]:
        """The ranks ``[low, high)`` of this part among ``frontier`` positions."""
        return frontier * (self.number - 1) // self.total, frontier * self.number // self.total

    def within(self, slices: Iterator[np.ndarray], frontier: int) -> Iterator[np.ndarray]:
        """This part of a frontier of ``frontier`` positions listed as ``slices``, in key
        order."""
        low, high = self.ranks(frontier)
        start = 0
        for keys in slices:
            end = start + len(keys)
            if end > low and start < high:
                yield keys[max(low - start, 0) : min(high, end) - start]
            start = end
            if start >= high:
                return

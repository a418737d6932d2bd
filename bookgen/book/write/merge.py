"""``c4book merge``: the entries of books built in parts (``build --part``), gathered into one.

Each part is a book that holds some of a ply being built (and whatever it
was grown from: a copy of the same book).  The merge copies the entries of
every ply a part holds unsealed into the target book, a slice of keys at a
time, each slice one idempotent transaction keyed by the canonical key: a
merge stopped half-way is run again, and a key two parts hold is written
once (both solved it exactly: the same score).  A key the target holds already,
as a row or packed, is left as it is and counted apart from those copied.
Every part's entries are read, and so checked, before any is copied: a damaged
part is named before anything is written.  Plies a part holds sealed
must be sealed in the target too (the book the parts were grown from), and
a ply the target holds sealed is not written to.  Then ``c4book build`` on
the target finds the ply's entries stored, searches what no part held,
seals the ply and derives the plies above.  A part's search time joins the
target's total in proportion to the entries copied from it, in the same
transactions: run again, a merge adds none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, NamedTuple

import numpy as np

from solver.bitboard import Board

from ..format.database import existing_meta
from ..format.errors import IncompatibleBookError, board_of_meta
from ..format.location import book_location
from ..format.names import SEARCH_SECONDS
from ..format.rows import Rows
from ..format.wide_keys import contains, key_ints
from .lock import BuildLock
from .sqlite_file import remove_book_files
from .store import BookStore

SLICE = 1_000_000  # entries copied per transaction


class Copied(NamedTuple):
    """What one part gave: per ply it was building, the entries copied, and those the
    target held already (left as they were)."""

    part: str
    plies: dict[int, int]
    stored: dict[int, int]

    def line(self) -> str:
        """What the command prints of it."""
        done = "; ".join(
            f"ply {ply} {copied:,} copied, {self.stored[ply]:,} already stored"
            for ply, copied in self.plies.items()
        )
        return f"{self.part}: {done or 'no ply being built: nothing copied'}"


def _open_part(part: str, target_meta: dict[str, str] | None) -> tuple[BookStore, dict]:
    """A part, read-only, checked against the target's root and board."""
    meta = existing_meta(part)
    if meta is None:
        raise IncompatibleBookError(f"{part!r} is no book: nothing to merge from it")
    if target_meta is not None:
        for name, what in (("root", "root"), ("width", "board"), ("height", "board")):
            if meta[name] != target_meta[name]:
                raise IncompatibleBookError(
                    f"{part!r} is a book of another {what} "
                    f"({_describe(meta)}) than the target ({_describe(target_meta)})"
                )
    board = board_of_meta(meta, part)
    store = BookStore(part, meta["root"], int(meta["root_key"]), readonly=True, board=board)
    return store, meta


def _describe(meta: dict[str, str]) -> str:
    return f"{meta['width']}x{meta['height']}, root {meta['root'] or '(empty board)'}"


def merge(
    db: str,
    parts: Sequence[str],
    out: IO[str] | None = None,
    check: Callable[[], None] = lambda: None,
) -> list[Copied]:
    """Copy into the book ``db`` (made, from the first part's root and board, if absent)
    the entries of every ply each of ``parts`` holds unsealed; every part is opened once
    and checked, its entries read whole, before anything is written.  ``check`` is called
    between parts and slices: what it raises (a ``KeyboardInterrupt``: a stop asked)
    stops the merge there, its book whole."""
    if not parts:
        raise IncompatibleBookError("merge needs at least one part to read")
    db, parts = book_location(db), [book_location(part) for part in parts]  # (passwords masked)
    opened: list[BookStore] = []
    seconds: list[float] = []  # each part's search time
    try:
        # Each part against the target's meta, or, for a new target, the first part's.
        against = existing_meta(db)
        for part in parts:
            store, meta = _open_part(part, against)
            opened.append(store)
            seconds.append(float(meta.get(SEARCH_SECONDS, 0)))
            against = against or meta
        assert against is not None  # (a part's meta, at least)
        building = [
            _readable(store, part, check) for part, store in zip(parts, opened, strict=True)
        ]
        return _merge_into(db, against, parts, opened, seconds, building, out, check)
    finally:
        for store in opened:
            store.close()


def _readable(store: BookStore, part: str, check: Callable[[], None]) -> list[int]:
    """The plies the open ``part`` holds unsealed, each read whole (every row and segment
    checked against its checksum), for nothing to be found damaged once copying began."""
    sealed = set(store.complete_plies())
    building = sorted(set(store.count_by_ply()) - sealed)
    for ply in building:
        check()
        if store.entries_at(ply).best is None:  # a ply still being built keeps its best moves
            raise IncompatibleBookError(f"{part!r}: ply {ply} has no best moves to copy")
    return building


def _merge_into(
    db: str,
    meta: dict[str, str],
    parts: Sequence[str],
    opened: list[BookStore],
    seconds: list[float],
    building: list[list[int]],
    out: IO[str] | None,
    check: Callable[[], None],
) -> list[Copied]:
    """``merge`` once the parts are open and read: the target made if absent, every part's
    plies checked against it under its write lock, then copied."""
    board: Board = board_of_meta(meta, db)
    target = BookStore(db, meta["root"], int(meta["root_key"]), board=board)
    copied: list[Copied] = []
    discard = False
    try:
        with BuildLock(target.engine, target.db, "merge"):
            sealed = set(target.complete_plies())
            for part, store, plies in zip(parts, opened, building, strict=True):
                _check_sealed(store, part, plies, target.db, sealed)
            for part, store, searched, plies in zip(parts, opened, seconds, building, strict=True):
                copied.append(_copy(target, part, store, searched, plies, check))
                if out is not None:
                    out.write(copied[-1].line() + "\n")
                    out.flush()  # as each part is done, into a pipe or a log too
    except BaseException:  # an interrupt too: a book this merge made, still empty, goes
        discard = target.created and not target.wrote
        raise
    finally:
        for store in opened:  # first: a part that is the target itself holds its file
            store.close()
        target.close()  # folds the write-ahead log back in, stopped or not
        if discard:
            remove_book_files(target.db)
    return copied


def _check_sealed(
    store: BookStore, part: str, building: list[int], db: str, sealed: set[int]
) -> None:
    """``part``, holding ``building`` unsealed, checked against the target's ``sealed``
    plies: the part's sealed plies must be sealed there, and these must not be."""
    if missing := sorted(set(store.complete_plies()) - sealed):
        raise IncompatibleBookError(
            f"{part!r} holds ply {missing[0]} whole and the target {db!r} does not: "
            "merge parts into the book they were grown from (or a copy of it)"
        )
    if done := [ply for ply in building if ply in sealed]:
        raise IncompatibleBookError(
            f"the target {db!r} already holds ply {done[0]} whole: "
            f"nothing of {part!r} to merge there"
        )


def _copy(
    target: BookStore,
    part: str,
    store: BookStore,
    searched: float,
    building: list[int],
    check: Callable[[], None],
) -> Copied:
    """The entries of the plies ``building`` of the open ``part`` that ``target`` lacks,
    copied into it, with their share of the part's ``searched`` seconds; those it holds
    (as rows or packed) are counted, not written."""
    plies, stored = {}, {}
    counts = store.count_by_ply()
    each = searched / max(1, sum(counts[ply] for ply in building))  # a searched entry's
    for ply in building:
        check()
        keys, scores, best = store.entries_at(ply)
        assert best is not None  # (``_readable`` checked)
        plies[ply] = stored[ply] = 0
        for start in range(0, len(keys), SLICE):
            check()
            part_of = slice(start, start + SLICE)
            some = keys[part_of]
            first, last = key_ints(some[[0, -1]])
            there = target.keys_at(ply, first, last + 1)
            new = (
                ~contains(there, some)  # keys past 64 bits: rows
                if some.ndim == 2
                else ~np.isin(some, there, assume_unique=True)
            )
            rows = Rows(ply, some[new], scores[part_of][new], best[part_of][new])
            target.insert_new(rows, search_seconds=each * len(rows))
            plies[ply] += len(rows)
            stored[ply] += len(some) - len(rows)
    return Copied(part, plies, stored)

"""``c4book merge``: the entries of books built in parts (``build --part``), gathered into one.

Each part is a book that holds some of a ply being built (and whatever it
was grown from: a copy of the same book).  The merge copies the entries of
every ply a part holds unsealed into the target book, a slice of keys at a
time, each slice one idempotent transaction keyed by the canonical key: a
merge stopped half-way is run again, and a key two parts hold is written
once (both solved it exactly: the same score).  Plies a part holds sealed
must be sealed in the target too (the book the parts were grown from), and
a ply the target holds sealed is not written to.  Then ``c4book build`` on
the target finds the ply's entries stored, searches what no part held,
seals the ply and derives the plies above.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, NamedTuple

from solver.bitboard import Board

from .lock import BuildLock
from .rows import Rows
from .schema import IncompatibleBookError, board_of_meta
from .store import BookStore, existing_meta, fold_wal, remove_book_files

SLICE = 1_000_000  # entries copied per transaction


class Copied(NamedTuple):
    """What one part gave: per ply it was building, the entries copied (a key the target
    held already is left as it was)."""

    part: str
    plies: dict[int, int]


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


def merge(db: str, parts: Sequence[str], out: IO[str] | None = None) -> list[Copied]:
    """Copy into the book ``db`` (made, from the first part's root and board, if absent)
    the entries of every ply each of ``parts`` holds unsealed; every part is opened once
    and checked before anything is written."""
    if not parts:
        raise IncompatibleBookError("merge needs at least one part to read")
    opened: list[BookStore] = []
    try:
        # Each part against the target's meta, or, for a new target, the first part's.
        against = existing_meta(db)
        for part in parts:
            store, meta = _open_part(part, against)
            opened.append(store)
            against = against or meta
        assert against is not None  # (a part's meta, at least)
        return _merge_into(db, against, parts, opened, out)
    finally:
        for store in opened:
            store.close()


def _merge_into(
    db: str,
    meta: dict[str, str],
    parts: Sequence[str],
    opened: list[BookStore],
    out: IO[str] | None,
) -> list[Copied]:
    """``merge`` once the parts are open: the target made if absent, every part's plies
    checked against it under its write lock, then copied."""
    board: Board = board_of_meta(meta, db)
    target = BookStore(db, meta["root"], int(meta["root_key"]), board=board)
    copied: list[Copied] = []
    discard = False
    try:
        with BuildLock(target.engine, target.db, "merge"):
            sealed = set(target.complete_plies())
            building = [
                _building(store, part, target.db, sealed)
                for part, store in zip(parts, opened, strict=True)
            ]
            for part, store, plies in zip(parts, opened, building, strict=True):
                copied.append(_copy(target, part, store, plies))
                if out is not None:
                    done = ", ".join(f"ply {p} {n:,}" for p, n in copied[-1].plies.items())
                    out.write(f"{part}: {done or 'no ply being built: nothing'} copied\n")
        fold_wal(target.engine)
    except Exception:
        discard = target.created and not target.wrote  # a book this merge made, empty
        raise
    finally:
        target.close()
        if discard:
            remove_book_files(target.db)
    return copied


def _building(store: BookStore, part: str, db: str, sealed: set[int]) -> list[int]:
    """The plies ``part`` holds unsealed, once it is checked against the target's ``sealed``
    plies: the part's sealed plies must be sealed there, and these must not be."""
    sealed_there = set(store.complete_plies())
    if missing := sorted(sealed_there - sealed):
        raise IncompatibleBookError(
            f"{part!r} holds ply {missing[0]} whole and the target {db!r} does not: "
            "merge parts into the book they were grown from (or a copy of it)"
        )
    building = sorted(set(store.count_by_ply()) - sealed_there)
    if done := [ply for ply in building if ply in sealed]:
        raise IncompatibleBookError(
            f"the target {db!r} already holds ply {done[0]} whole: "
            f"nothing of {part!r} to merge there"
        )
    return building


def _copy(target: BookStore, part: str, store: BookStore, building: list[int]) -> Copied:
    """The entries of the plies ``building`` of the open ``part``, copied into ``target``."""
    plies = {}
    for ply in building:
        keys, scores, best = store.entries_at(ply)
        if best is None:  # a ply still being built keeps its best moves
            raise IncompatibleBookError(f"{part!r}: ply {ply} has no best moves to copy")
        for start in range(0, len(keys), SLICE):
            part_of = slice(start, start + SLICE)
            target.insert_new(Rows(ply, keys[part_of], scores[part_of], best[part_of]))
        plies[ply] = len(keys)
    return Copied(part, plies)

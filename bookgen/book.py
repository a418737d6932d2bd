"""``Book``: a small, read-only, dict-like view of a book file.

    with Book.open("book.db") as book:
        entry = book.get("4453")      # BookEntry or None
        "4453" in book, len(book), book.info

Lookups take a move string or a ``Position``, find a mirror image through the
canonical key, and return columns in the asker's orientation.  Importing or
opening a book never compiles the solver, and opening never writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from sqlalchemy import bindparam, func, select

from solver import Position
from solver.bitboard import WIDTH
from solver.errors import IllegalMoveError

from .schema import SCHEMA_VERSION, Entry, unpack_scores
from .store import SEARCH_SECONDS, check_sqlite_file, make_engine, read_meta, sqlite_path


@dataclass(frozen=True)
class BookEntry:
    """What the book knows of one position, in the asker's orientation.

    ``move_scores`` is ``None`` for positions at the book's last ply, where
    only the position itself was searched.
    """

    moves: str
    ply: int
    score: int
    wdl: int
    best_moves: tuple[int, ...]
    move_scores: tuple[int | None, ...] | None


@dataclass(frozen=True)
class BookInfo:
    width: int
    height: int
    root: str
    plies_complete: tuple[int, ...]
    schema_version: int
    max_ply: int
    # Worker time spent searching the frontier, over every run of the build.
    search_core_seconds: float = field(default=0.0, compare=False)


def as_position(moves: str | Position) -> Position:
    if isinstance(moves, Position):
        return moves
    if isinstance(moves, str):
        return Position.from_moves(moves)
    raise IllegalMoveError(f"expected a move string or a Position, got {moves!r}")


def _mirror_col(col: int) -> int:
    return WIDTH + 1 - col


class Book:
    """Read-only access to a book; use ``Book.open``."""

    def __init__(self, db: str):
        path = sqlite_path(db)
        if path is not None:
            check_sqlite_file(path, must_exist=True)
        self.db = db
        self._engine = make_engine(db, readonly=True)
        meta = read_meta(self._engine, db)
        self.info = BookInfo(width=int(meta["width"]), height=int(meta["height"]),
                             root=meta["root"],
                             plies_complete=tuple(json.loads(meta.get("complete_plies", "[]"))),
                             schema_version=SCHEMA_VERSION, max_ply=int(meta.get("ply", 0)),
                             search_core_seconds=float(meta.get(SEARCH_SECONDS, 0)))
        self._conn = self._engine.connect()
        self._lookup = select(Entry.key, Entry.ply, Entry.score, Entry.wdl, Entry.best_moves,
                              Entry.move_scores).where(Entry.key == bindparam("key"))

    @classmethod
    def open(cls, db: str = "book.db") -> Book:
        """Open and check a book; raises a ``BookError`` naming what is wrong."""
        return cls(db)

    def close(self) -> None:
        self._conn.close()
        self._engine.dispose()

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Book.open({self.db!r})"

    def get(self, moves: str | Position) -> BookEntry | None:
        """The entry for a position, or ``None`` when the book does not hold it."""
        position = as_position(moves)
        row = self._conn.execute(self._lookup, {"key": position.canonical_key}).first()
        if row is None:
            return None
        best = tuple(int(c) for c in row.best_moves)
        scores = unpack_scores(row.move_scores)
        if row.key != position.key:  # stored as the mirror image
            best = tuple(sorted(_mirror_col(c) for c in best))
            scores = None if scores is None else scores[::-1]
        return BookEntry(moves=position.moves, ply=row.ply, score=row.score, wdl=row.wdl,
                         best_moves=best, move_scores=None if scores is None else tuple(scores))

    def __contains__(self, moves: str | Position) -> bool:
        return self.get(moves) is not None

    def __len__(self) -> int:
        return self._conn.execute(select(func.count()).select_from(Entry)).scalar_one()

    def count_by_ply(self) -> dict[int, int]:
        rows = self._conn.execute(select(Entry.ply, func.count()).group_by(Entry.ply)).all()
        return dict(sorted(rows))

    def score_counts(self) -> dict[int, dict[int, int]]:
        """``{ply: {wdl: count}}`` over the whole book."""
        stmt = select(Entry.ply, Entry.wdl, func.count()).group_by(Entry.ply, Entry.wdl)
        counts: dict[int, dict[int, int]] = {}
        for ply, wdl, count in self._conn.execute(stmt):
            counts.setdefault(ply, {})[wdl] = count
        return dict(sorted(counts.items()))

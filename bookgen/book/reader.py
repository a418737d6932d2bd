"""``Book``: a small, read-only, dict-like view of a book file.

    with Book.open("book.db") as book:
        entry = book.get("4453")      # BookEntry or None
        book.get_many(["4453", "44531"])  # a list of the same, many at once
        "4453" in book, len(book), book.info

Lookups take a move string or a ``Position``, find a mirror image through the
canonical key, and return columns in the asker's orientation.  Importing or
opening a book never compiles the solver, and opening never writes.

Lookups are the hot path of the AI and of ``analyze``: on SQLite they skip
SQLAlchemy and run one prepared statement on the DBAPI connection behind it
(SQLAlchemy's per-call work was most of a lookup's time); other databases go
through SQLAlchemy as everywhere else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import bindparam, func, select

from solver import Position
from solver.bitboard import WIDTH
from solver.errors import IllegalMoveError

from .keys import keys_of, keys_of_many, mirror_key
from .schema import SCHEMA_VERSION, Entry, unpack_scores
from .store import SEARCH_SECONDS, check_sqlite_file, make_engine, read_meta, sqlite_path


class BookEntry(NamedTuple):
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


# BookEntry(...) without the NamedTuple's own __new__, a Python function called
# per entry (part of get_many's step from 79,000 to 87,000 positions/s, README).
# Six fields, in order.
_new_entry = tuple.__new__


def as_position(moves: str | Position) -> Position:
    if isinstance(moves, Position):
        return moves
    if isinstance(moves, str):
        return Position.from_moves(moves)
    raise IllegalMoveError(f"expected a move string or a Position, got {moves!r}")


def _mirror_col(col: int) -> int:
    return WIDTH + 1 - col


# Not ply and wdl: they follow from the moves and the score, and every column
# read costs a Python object per row (a third of a batch lookup's time).
_COLUMNS = (Entry.key, Entry.score, Entry.best_moves, Entry.move_scores)
_SQLITE_LOOKUP = "SELECT key, score, best_moves, move_scores FROM positions WHERE key "
_SQLITE_GET = _SQLITE_LOOKUP + "= ?"
# Reads through a memory map: no system call per page the cache lacks (11% off a
# lookup, measured); address space only, for a read-only connection.
_SQLITE_MMAP_BYTES = 1 << 30
_CHUNK = 500  # keys per IN (...) query: far below every database's limit on parameters
_LARGE = 64   # from this many strings on, get_many computes their keys with numpy


def _keys(moves: str | Position) -> tuple[int, int] | None:
    if type(moves) is str:
        return keys_of(moves)
    if isinstance(moves, Position):
        return moves.key, mirror_key(moves.key)
    return None


def _checked_miss(moves: str | Position) -> None:
    as_position(moves)  # raises, naming the input, if the string is not a legal game
    return None


def _decode(best: str, packed: bytes | None, flip: bool) -> tuple:
    """``(best_moves, move_scores)`` in the asker's orientation."""
    columns = tuple(int(c) for c in best)
    scores = unpack_scores(packed)
    if flip:
        columns = tuple(sorted(_mirror_col(c) for c in columns))
        scores = None if scores is None else scores[::-1]
    return columns, None if scores is None else tuple(scores)


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
        self._lookup = select(*_COLUMNS).where(Entry.key == bindparam("key"))
        self._lookup_many = select(*_COLUMNS).where(
            Entry.key.in_(bindparam("keys", expanding=True)))
        self._sqlite = (self._conn.connection.driver_connection
                        if self._engine.dialect.name == "sqlite" else None)
        if self._sqlite is not None:
            self._sqlite.execute(f"PRAGMA mmap_size = {_SQLITE_MMAP_BYTES}")
        # Decoded best moves and move scores, per stored value and orientation:
        # a book has few distinct ones, and decoding was a third of a lookup.
        self._decoded: dict[tuple, tuple] = {}

    @classmethod
    def open(cls, db: str = "book.db") -> Book:
        """Open and check a book; raises a ``BookError`` naming what is wrong."""
        return cls(db)

    def close(self) -> None:
        self._sqlite = None  # later lookups go to the closed connection, which says so
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
        keys = keys_of(moves) if type(moves) is str else _keys(moves)
        if keys is None:  # not a plain move string: let Position name what is wrong
            return self.get(as_position(moves))
        key, mirrored = keys
        canonical = key if key < mirrored else mirrored
        if self._sqlite is not None:
            row = self._sqlite.execute(_SQLITE_GET, (canonical,)).fetchone()
        else:
            row = self._conn.execute(self._lookup, {"key": canonical}).first()
        if row is None:
            return _checked_miss(moves)
        return self._entry(moves if type(moves) is str else moves.moves, key, row)

    def get_many(self, moves_list: Sequence[str | Position]) -> list[BookEntry | None]:
        """``[book.get(m) for m in moves_list]``, in one query per few hundred positions."""
        moves_list = list(moves_list)
        if len(moves_list) >= _LARGE and all(type(m) is str for m in moves_list):
            keys, mirrors, usable = keys_of_many(moves_list)
        else:
            pairs = [_keys(m) for m in moves_list]
            keys = [p[0] if p else 0 for p in pairs]
            mirrors = [p[1] if p else 0 for p in pairs]
            usable = [p is not None for p in pairs]
        canonical = [k if k < m else m for k, m in zip(keys, mirrors)]
        rows = self._rows(sorted({c for c, ok in zip(canonical, usable) if ok}))
        found: list[BookEntry | None] = []
        entry = self._entry
        for moves, key, canon, ok in zip(moves_list, keys, canonical, usable):
            row = rows.get(canon) if ok else None
            if row is not None:
                found.append(entry(moves if type(moves) is str else moves.moves, key, row))
            else:  # a miss, or an unusual string: the one-at-a-time path checks it
                found.append(self.get(moves) if not ok else _checked_miss(moves))
        return found

    def _rows(self, keys: list[int]) -> dict[int, tuple]:
        """Stored rows by key, a chunk of keys per query."""
        rows = {}
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start:start + _CHUNK]
            if self._sqlite is not None:
                sql = _SQLITE_LOOKUP + f"IN ({','.join('?' * len(chunk))})"
                result = self._sqlite.execute(sql, chunk)
            else:
                result = self._conn.execute(self._lookup_many, {"keys": chunk})
            rows.update({row[0]: row for row in result})
        return rows

    def _entry(self, moves: str, key: int, row) -> BookEntry:
        """The entry for ``moves``, whose key is ``key``, from its stored row."""
        stored, score, best, packed = row
        flip = key != stored  # stored as the mirror image
        decoded = self._decoded.get((best, packed, flip))
        if decoded is None:
            decoded = self._decoded[best, packed, flip] = _decode(best, packed, flip)
        return _new_entry(BookEntry, (moves, len(moves), score, (score > 0) - (score < 0),
                                      *decoded))

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

"""``Book``: a small, read-only, dict-like view of a book file.

    with Book.open("book.db") as book:
        entry = book.get("4453")      # BookEntry or None
        book.get_many(["4453", "44531"])  # a list of the same, many at once
        "4453" in book, len(book), book.info

    Book.open("book.db", in_memory=True)   # for many lookups: the AI, a game

Lookups take a move string or a ``Position``, find a mirror image through the
canonical key, and return columns in the asker's orientation.  Importing or
opening a book never compiles the solver, and opening never writes.

Lookups are the hot path of the AI and of ``analyze``: on SQLite they skip
SQLAlchemy and run one prepared statement on the DBAPI connection behind it
(SQLAlchemy's per-call work was most of a lookup's time); other databases go
through SQLAlchemy as everywhere else.

``in_memory=True`` reads every row once, at open (``memory.MemoryIndex``), and
then answers with no query at all, a binary search: lookups take under half
the time they take through SQLite.  It is a snapshot: rows a build writes
later are not seen.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from sqlalchemy import bindparam, func, select

from solver import Position
from solver.bitboard import WIDTH
from solver.errors import IllegalMoveError

from .keys import key_arrays_of_many, key_of, keys_of, keys_of_many, mirror_key
from .schema import BEST_TEXT, SCHEMA_VERSION, Entry
from .store import (
    SEARCH_SECONDS,
    check_sqlite_file,
    make_engine,
    read_meta,
    sqlite_path,
)

if TYPE_CHECKING:
    from .memory import MemoryIndex


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
_SQLITE_READ_ALL = "SELECT key, score, best_moves, move_scores FROM positions ORDER BY key"
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


# Stored best moves as text -> columns, as stored and mirrored; and one stored
# move-score byte -> the score (None for a full column).  Tables, not loops:
# decoding is a lookup's work the first time a kind of row is seen.
_BEST_COLUMNS = {text: tuple(int(c) for c in text) for text in BEST_TEXT}
_BEST_MIRRORED = {text: tuple(sorted(_mirror_col(c) for c in columns))
                  for text, columns in _BEST_COLUMNS.items()}
_SCORE_OF_BYTE = tuple(None if b == 0 else b - 64 for b in range(256))


def _decode(best: str, packed: bytes | None, flip: bool) -> tuple:
    """``(best_moves, move_scores)`` in the asker's orientation."""
    columns = (_BEST_MIRRORED if flip else _BEST_COLUMNS)[best]
    if packed is None:
        return columns, None
    scores = tuple(map(_SCORE_OF_BYTE.__getitem__, packed))
    return columns, scores[::-1] if flip else scores


class Book:
    """Read-only access to a book; use ``Book.open``."""

    def __init__(self, db: str, in_memory: bool = False):
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
        self._memory: MemoryIndex | None = None
        # In memory: (score, wdl, best_moves, move_scores) by the index's code,
        # 2 * kind + 1 when asked in the mirror image's orientation.
        self._tails: dict[int, tuple] = {}
        if in_memory:
            self._memory = self._read_all()

    @classmethod
    def open(cls, db: str = "book.db", in_memory: bool = False) -> Book:
        """Open and check a book; raises a ``BookError`` naming what is wrong.

        ``in_memory=True`` reads the whole book into memory first (24 bytes a
        position, 0.3-0.8 s for the shipped book): for many lookups.
        """
        return cls(db, in_memory)

    @property
    def in_memory(self) -> bool:
        return self._memory is not None

    def _read_all(self) -> MemoryIndex:
        from .memory import MemoryIndex  # numpy: only for a book read into memory

        if self._sqlite is not None:
            cursor = self._sqlite.execute(_SQLITE_READ_ALL)
        else:
            cursor = self._conn.execute(select(*_COLUMNS).order_by(Entry.key))
        return MemoryIndex.from_cursor(cursor)

    def close(self) -> None:
        # Later lookups go to the closed connection, which says so.
        self._sqlite = self._memory = None
        self._conn.close()
        self._engine.dispose()

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Book.open({self.db!r}{', in_memory=True' if self.in_memory else ''})"

    def get(self, moves: str | Position) -> BookEntry | None:
        """The entry for a position, or ``None`` when the book does not hold it."""
        if self._memory is not None:
            return self._get_in_memory(moves)
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

    def _get_in_memory(self, moves: str | Position) -> BookEntry | None:
        # The index holds both orientations: the asked position's own key is enough.
        if type(moves) is str:
            key, asked = key_of(moves), moves
        elif isinstance(moves, Position):
            key, asked = moves.key, moves.moves
        else:
            key = asked = None
        if key is None:  # not a plain move string: let Position name what is wrong
            return self.get(as_position(moves))
        code = self._memory.find(key)
        if code is None:
            return _checked_miss(moves)
        return _new_entry(BookEntry, (asked, len(asked)) + (self._tails.get(code) or self._tail(code)))

    def get_many(self, moves_list: Sequence[str | Position]) -> list[BookEntry | None]:
        """``[book.get(m) for m in moves_list]``, in one query per few hundred positions."""
        moves_list = list(moves_list)
        if self._memory is not None:
            return self._get_many_in_memory(moves_list)
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

    def _get_many_in_memory(self, moves_list: list) -> list[BookEntry | None]:
        if len(moves_list) < _LARGE or not all(type(m) is str for m in moves_list):
            return [self.get(m) for m in moves_list]
        import numpy as np

        keys, _, usable = key_arrays_of_many(moves_list)
        codes = np.where(usable, self._memory.find_many(keys), -1).tolist()
        tails, tail = self._tails, self._tail
        found = [_new_entry(BookEntry, (moves, len(moves)) + (tails.get(code) or tail(code)))
                 if code >= 0 else None for moves, code in zip(moves_list, codes)]
        for at, code in enumerate(codes):
            if code < 0:  # a miss, or an unusual string: the one-at-a-time path checks it
                found[at] = self.get(moves_list[at])
        return found

    def _tail(self, code: int) -> tuple:
        """``(score, wdl, best_moves, move_scores)`` of a kind (``code // 2``),
        mirrored when ``code`` is odd."""
        score, best, packed = self._memory.columns[code >> 1]
        tail = (score, (score > 0) - (score < 0), *_decode(best, packed, bool(code & 1)))
        self._tails[code] = tail
        return tail

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

    def entries_of_keys(self, keys: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
        """``(keys, scores, best-move bits)`` of the canonical ``keys`` the book holds,
        in the canonical orientation (bit c: column c + 1), sorted by key."""
        keys = sorted(set(map(int, keys)))
        if self._memory is not None:
            codes = [(key, self._memory.find(key)) for key in keys]
            rows = {key: (key, *self._memory.columns[code >> 1])
                    for key, code in codes if code is not None}
        else:
            rows = self._rows(keys)
        found = [rows[key] for key in keys if key in rows]
        return ([row[0] for row in found], [row[1] for row in found],
                [sum(1 << (int(c) - 1) for c in row[2]) for row in found])

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

"""The book's tables, as SQLAlchemy 2.x typed models, and the errors about books.

``positions`` holds one row per mirror pair, keyed by the canonical key and
written in that orientation: ``moves`` replays to the stored key, and
``best_moves`` and ``move_scores`` are columns of that orientation.
``meta`` is a name/value table: board size, schema version, root, plies.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, LargeBinary, SmallInteger, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from solver.errors import C4Error

FORMAT = "c4book"
SCHEMA_VERSION = 1

# On SQLite the key must be declared exactly INTEGER to become the rowid
# itself, rather than a second index beside it.
KeyType = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    pass


class Entry(Base):
    __tablename__ = "positions"

    key: Mapped[int] = mapped_column(KeyType, primary_key=True, autoincrement=False)
    ply: Mapped[int] = mapped_column(SmallInteger)
    moves: Mapped[str] = mapped_column(String(42))
    score: Mapped[int] = mapped_column(SmallInteger)
    wdl: Mapped[int] = mapped_column(SmallInteger)
    best_moves: Mapped[str] = mapped_column(String(7))
    # One byte per column, score + 64; 0 for a full column.  NULL on the
    # frontier, where only the position itself was searched.
    move_scores: Mapped[bytes | None] = mapped_column(LargeBinary(7), nullable=True)
    nodes: Mapped[int] = mapped_column(BigInteger, default=0)

    def __repr__(self) -> str:
        return f"Entry(moves={self.moves!r}, ply={self.ply}, score={self.score})"


class Meta(Base):
    __tablename__ = "meta"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(4096))


def pack_scores(scores: list[int | None]) -> bytes:
    return bytes(0 if s is None else s + 64 for s in scores)


def unpack_scores(packed: bytes | None) -> list[int | None] | None:
    if packed is None:
        return None
    return [None if b == 0 else b - 64 for b in packed]


class BookError(C4Error):
    """A book file or database that cannot be used as asked."""


class BookNotFoundError(BookError, FileNotFoundError):
    """No book at the given path."""


class NotABookError(BookError, ValueError):
    """The file exists but is not a c4book book (or not SQLite at all)."""


class CorruptBookError(BookError, ValueError):
    """The SQLite file is damaged."""


class SchemaMismatchError(BookError, ValueError):
    """A book written by another schema version."""


class IncompatibleBookError(BookError, ValueError):
    """A book for another board size or another root than asked."""

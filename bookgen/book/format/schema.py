"""The book's tables, as SQLAlchemy 2.x typed models, and the names its meta keeps.

``segments`` holds sealed plies: each row one blob of a ply's sorted keys,
scores and, at the book's last ply, best moves (``segment``; about one byte
a position).  A complete ply is one segment; a ply still being built may
have several, packed as it goes.  ``positions`` holds what is not packed
yet: one row per mirror pair, keyed by the canonical key and written in that
orientation.  The key is the whole position (``solver.packed``).  ``meta``
is a name/value table: board size, schema version, root, plies, totals.
Segments carry a CRC-32, rows and the meta checksums of their own
(``checksum``).  ``docs/book-format.md`` describes it all.

Schema versions: 1 stored each row's move string; 2 dropped it; 3 packs
plies into segments; 4 checks rows and meta.  ``c4book upgrade`` brings a
version-1, -2 or -3 book to 4.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, LargeBinary, SmallInteger, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from solver.bitboard import MAX_WIDTH

FORMAT = "c4book"
SCHEMA_VERSION = 4
UPGRADABLE_VERSIONS = (1, 2, 3)  # what ``c4book upgrade`` converts

# On SQLite the key must be declared exactly INTEGER to become the rowid
# itself, rather than a second index beside it.
KeyType = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    pass


class Entry(Base):
    __tablename__ = "positions"

    key: Mapped[int] = mapped_column(KeyType, primary_key=True, autoincrement=False)
    ply: Mapped[int] = mapped_column(SmallInteger)
    score: Mapped[int] = mapped_column(SmallInteger)
    wdl: Mapped[int] = mapped_column(SmallInteger)
    best_moves: Mapped[str] = mapped_column(String(MAX_WIDTH))
    # One byte per column, packed as ``scores.pack_scores``.  NULL on the
    # frontier, where only the position itself was searched.
    move_scores: Mapped[bytes | None] = mapped_column(LargeBinary(MAX_WIDTH), nullable=True)
    nodes: Mapped[int] = mapped_column(BigInteger, default=0)
    # ``checksum.row_checksums`` of the fields above: a damaged row is refused.
    checksum: Mapped[int] = mapped_column(BigInteger)

    def __repr__(self) -> str:
        return f"Entry(key={self.key}, ply={self.ply}, score={self.score})"


class SegmentRow(Base):
    """One packed part of a ply (``segment.pack``)."""

    __tablename__ = "segments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ply: Mapped[int] = mapped_column(SmallInteger, index=True)
    count: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)

    def __repr__(self) -> str:
        return f"SegmentRow(ply={self.ply}, count={self.count})"


# The column order of rows as written (``rows.Rows``) and as read back.
COLUMNS = ("key", "ply", "score", "wdl", "best_moves", "move_scores", "nodes", "checksum")


class Meta(Base):
    __tablename__ = "meta"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(4096))


# Meta names that the build's lock rewrites every few seconds (``write.lock``): the meta's
# checksum leaves them out (``checksum``).
LOCK_NAME = "build_lock"
COMMAND_NAME = "build_lock_command"
SEARCH_SECONDS = "search_core_seconds"  # worker search time over every run

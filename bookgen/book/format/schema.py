"""The book's tables, as SQLAlchemy 2.x typed models (their names and numbers: ``names``).

A sealed (complete) ply is a run of blocks, each a thousand neighbouring
keys with their scores and, at the book's last ply, best moves, compressed
on its own (``blocks``): ``sealed_plies`` holds a ply's index (each block's
first key and end) and its keys dictionary, and ``block_chunks`` its blocks
end to end, cut in chunks a page each.  A reader opens the indexes and reads
and decodes a block a lookup.  ``segments`` holds the packed parts of a ply still being built: each
row one blob of sorted keys, scores and best moves (``segment``).
``positions`` holds what is not packed
yet: one row per mirror pair, keyed by the canonical key and written in that
orientation.  The key is the whole position (``solver.packed``).  ``meta``
is a name/value table: board size, schema version, root, plies, totals.
Segments carry a CRC-32, rows and the meta checksums of their own
(``checksum``).  ``docs/book-format.md`` describes it all.

On a board past 64 bits (``Board.is_wide``) the key is 16 bytes big-endian, a
BLOB (bytea): SQL's integers are signed 64-bit, and bytes compare bytewise,
as the numbers do.  Such a book's tables are ``WIDE_METADATA``: the same, but
``positions`` keyed by that blob, a ``WITHOUT ROWID`` table on SQLite (the key
is the table's own order, as the rowid is on one word).  ``tables_of`` and
``positions_of`` pick a board's.

Schema versions: 1 stored each row's move string; 2 dropped it; 3 packs
plies into segments; 4 checks rows and meta; 5 seals plies in blocks.
``c4book upgrade`` brings a version-1 to -4 book to 5.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from solver.bitboard import MAX_WIDTH, Board

from .names import (
    CHUNK_BITS,
    CHUNKS_TABLE,
    META_TABLE,
    POSITIONS_TABLE,
    SEALED_TABLE,
    SEGMENTS_TABLE,
)
from .wide_keys import KEY_BYTES

# On SQLite the key must be declared exactly INTEGER to become the rowid
# itself, rather than a second index beside it.
KeyType = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    pass


class Entry(Base):
    __tablename__ = POSITIONS_TABLE

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

    __tablename__ = SEGMENTS_TABLE

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ply: Mapped[int] = mapped_column(SmallInteger, index=True)
    count: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)

    def __repr__(self) -> str:
        return f"SegmentRow(ply={self.ply}, count={self.count})"


class SealedRow(Base):
    """A sealed ply: its block index and keys dictionary (``block_index.encode_index``); its
    blocks, laid end to end, are cut into ``ChunkRow``s of the index's chunk size."""

    __tablename__ = SEALED_TABLE

    ply: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False)
    positions: Mapped[int] = mapped_column(Integer)
    index: Mapped[bytes] = mapped_column(LargeBinary)
    dictionary: Mapped[bytes] = mapped_column(LargeBinary)

    def __repr__(self) -> str:
        return f"SealedRow(ply={self.ply}, positions={self.positions})"


class ChunkRow(Base):
    """A chunk of a sealed ply's blocks, as many bytes as its index says (the last chunk
    fewer): on SQLite, a
    chunk fills one page, so a book is no larger than its blocks, and a block is read in
    one or two short queries, with no lock held between them."""

    __tablename__ = CHUNKS_TABLE

    id: Mapped[int] = mapped_column(KeyType, primary_key=True, autoincrement=False)
    data: Mapped[bytes] = mapped_column(LargeBinary)

    def __repr__(self) -> str:
        ply, number = divmod(self.id, 1 << CHUNK_BITS)
        return f"ChunkRow(ply={ply}, number={number})"


class Meta(Base):
    __tablename__ = META_TABLE

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(4096))


def _wide_tables() -> MetaData:
    """A book's tables past 64 bits: ``Base``'s, with ``positions`` keyed by a 16-byte blob."""
    metadata = MetaData()
    narrow = Base.metadata.tables[POSITIONS_TABLE]
    Table(
        POSITIONS_TABLE,
        metadata,
        Column("key", LargeBinary(KEY_BYTES), primary_key=True, autoincrement=False),
        *(
            Column(c.name, c.type, nullable=c.nullable, default=c.default)
            for c in narrow.columns
            if c.name != "key"
        ),
        sqlite_with_rowid=False,
    )
    for table in Base.metadata.sorted_tables:
        if table.name != POSITIONS_TABLE:
            table.to_metadata(metadata)
    return metadata


WIDE_METADATA = _wide_tables()


def tables_of(board: Board) -> MetaData:
    """The tables of a book of ``board``."""
    return WIDE_METADATA if board.is_wide else Base.metadata


def positions_of(board: Board) -> Table:
    """The ``positions`` table of a book of ``board``."""
    return tables_of(board).tables[POSITIONS_TABLE]

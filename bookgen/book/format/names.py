"""The names and numbers of a book's layout: its tables, its schema version, its meta's
names.  Kept apart from ``schema`` (the SQLAlchemy models) so that reading a SQLite book
never imports SQLAlchemy (``sql``): 0.2-0.3 s of a one-off query's time."""

from __future__ import annotations

FORMAT = "c4book"
SCHEMA_VERSION = 6
UPGRADABLE_VERSIONS = (1, 2, 3, 4, 5)  # what ``c4book upgrade`` converts

META_TABLE = "meta"
POSITIONS_TABLE = "positions"
SEGMENTS_TABLE = "segments"
SEALED_TABLE = "sealed_plies"
CHUNKS_TABLE = "block_chunks"

# The column order of rows as written (``rows.Rows``) and as read back.
COLUMNS = ("key", "ply", "score", "wdl", "best_moves", "move_scores", "nodes", "checksum")

CHUNK_BITS = 32  # a chunk's id: its ply above its number, so a ply's chunks are one range


def chunk_id(ply: int, number: int) -> int:
    """The ``block_chunks`` row id of chunk ``number`` of ``ply``."""
    return ply << CHUNK_BITS | number


# Meta names that the build's lock rewrites every few seconds (``write.lock``): the meta's
# checksum leaves them out (``checksum``).
LOCK_NAME = "build_lock"
COMMAND_NAME = "build_lock_command"
SEARCH_SECONDS = "search_core_seconds"  # worker search time over every run

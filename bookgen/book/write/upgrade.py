"""``c4book upgrade``: bring a book of an older schema version to this one, in place.

Version 1 stored each row's move string beside its key; version 2 derived it
from the key; version 3 packs each ply into segments (``segment``); version
4 gives rows and meta checksums (``checksum``); version 5 seals complete plies
in blocks (``blocks``); version 6 leaves out of the blocks what the positions'
stones say (the codec's version 2, ``implied``).  Nothing is re-solved: the
same entries move, checked on the way.

Every stored move string of version 1 must replay to its key (so nothing is
lost by dropping it).  Then, in one transaction: the moves column goes, the
tables it lacks are made, each row gets its checksum, and the meta its
checksum and this version (a version-4 book may keep rows).  Then each ply's
rows are packed, and each complete ply sealed in blocks, in a transaction of
its own, shallowest first (and each ply in an older codec sealed again).  An
interrupted upgrade leaves a valid book; running it again packs what is
left.  Both commands hold the book's write lock
(``lock``): a pack beside a running build would drop the rows the build
wrote between the pack's read and its delete, so it is refused instead.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import NamedTuple

from sqlalchemy import Engine, select

from solver import Position

from ..format.database import check_sqlite_file, make_engine, read_meta, sqlite_path
from ..format.errors import CorruptBookError, SchemaMismatchError, board_of_meta
from ..format.location import book_location
from ..format.names import SCHEMA_VERSION, UPGRADABLE_VERSIONS
from ..format.rows import stamp_rows
from ..format.schema import Base, SealedRow
from ..format.sealed import in_old_codec
from .lock import BuildLock
from .meta import write_meta
from .sqlite_file import fold_wal, free_bytes, reclaim_space
from .store import BookStore

CHECK_CHUNK = 100_000


def _probe(db: str) -> tuple[str, Engine]:
    """The book's location and an engine on it, read-only on an SQLite file (which must exist)."""
    db = book_location(db)
    path = sqlite_path(db)
    if path is not None:
        check_sqlite_file(path, must_exist=True)
    return db, make_engine(db, readonly=path is not None)


def upgrade(db: str) -> int | None:
    """Bring ``db`` to this schema version and pack its rows; the version it had,
    or ``None`` if it was current with nothing to pack."""
    # Everything is checked read-only first: a refused file is left byte for byte.
    db, probe = _probe(db)
    try:
        meta = read_meta(probe, db, any_version=True)
        version = meta.get("schema_version")
        if version != str(SCHEMA_VERSION) and version not in {str(v) for v in UPGRADABLE_VERSIONS}:
            raise SchemaMismatchError(
                f"{db!r} has book schema version {version!r}, which c4book upgrade cannot "
                f"convert to version {SCHEMA_VERSION}"
            )
        if version == "1":
            _check_moves(probe, db)
        if version == str(SCHEMA_VERSION) and not _has_rows(probe) and not _unsealed(probe, meta):
            return None  # nothing to convert or pack: the file is left byte for byte
    finally:
        probe.dispose()
    with _write_lock(db, "upgrade") as engine:
        if version != str(SCHEMA_VERSION):
            with engine.begin() as conn:
                if version == "1":
                    conn.exec_driver_sql("ALTER TABLE positions DROP COLUMN moves")
                Base.metadata.create_all(conn)  # the tables it lacks; the others exist
                if int(version) < 4:
                    conn.exec_driver_sql("ALTER TABLE positions ADD COLUMN checksum BIGINT")
                    stamp_rows(conn, db, board_of_meta(meta, db).width)
                write_meta(conn, db, {"schema_version": str(SCHEMA_VERSION)}, first=True)
        packed, sealed = _pack_rows(db, meta)
    if version == str(SCHEMA_VERSION) and not (packed or sealed):
        return None
    return int(version)


@contextmanager
def _write_lock(db: str, command: str):
    """An engine on ``db`` while ``command`` holds its write lock."""
    engine = make_engine(db)
    try:
        with BuildLock(engine, db, command):
            yield engine
        fold_wal(engine)  # the lock's release was the last write
    finally:
        engine.dispose()


def _pack_rows(db: str, meta: dict[str, str]) -> tuple[int, int]:
    """Pack every ply's rows and seal every complete ply in blocks, shallowest first
    (sealing a ply drops the best moves of the one above, which its own scores then
    give); ``(rows packed, plies sealed)``."""
    store = BookStore(db, meta["root"], int(meta["root_key"]), board=board_of_meta(meta, db))
    try:
        unsealed = {p for p in store.complete_plies() if not store.is_sealed(p)}
        unsealed |= store.in_old_codec()
        packed = sum(store.pack_rows(ply) for ply in sorted(set(store.row_counts()) | unsealed))
        if packed or unsealed:
            reclaim_space(store.engine)  # the rows' pages
    finally:
        # Not store.close(): its fold of the log waited 5 s on the write lock's connection,
        # then gave up; the lock's engine folds it once the lock is released.
        store.engine.dispose()
    return packed, len(unsealed)


def _unsealed(engine, meta: dict[str, str]) -> bool:
    """Whether a complete ply is not in blocks of this codec (read-only: segments of a
    version-4 book, blocks of a version-5 book)."""
    with engine.connect() as conn:
        if not conn.dialect.has_table(conn, SealedRow.__tablename__):
            return True
        sealed = set(conn.execute(select(SealedRow.ply)).scalars())
        if in_old_codec(conn, board_of_meta(meta, "")):
            return True
    return bool(set(json.loads(meta.get("complete_plies", "[]"))) - sealed)


def _has_rows(engine) -> bool:
    """Whether any position is still a row (read-only: a writer would touch the file)."""
    with engine.connect() as conn:
        return conn.exec_driver_sql("SELECT 1 FROM positions LIMIT 1").first() is not None


def _check_moves(engine, db: str) -> None:
    """Every stored move string must replay to its row's key."""
    with engine.connect() as conn:
        result = conn.exec_driver_sql("SELECT key, moves FROM positions")
        while rows := result.fetchmany(CHECK_CHUNK):
            for key, moves in rows:
                try:
                    replayed = Position.from_moves(moves).key
                except ValueError:
                    replayed = None
                if replayed != key:
                    raise CorruptBookError(
                        f"{db!r}: the row with key {key} stores moves {moves!r}, which do not "
                        "replay to it; the book is left as it was"
                    )


class Packed(NamedTuple):
    """What ``pack`` did: the rows it packed, or else the bytes of free pages it gave back."""

    rows: int
    freed: int


def pack(db: str) -> Packed:
    """Pack ``db``'s rows (as ``upgrade`` does, on a book of this version); with none, give
    back the pages of rows a build sealed and dropped."""
    db, probe = _probe(db)
    try:
        meta = read_meta(probe, db)
        rows = _has_rows(probe)
        free = free_bytes(probe)
    finally:
        probe.dispose()
    packed = freed = 0
    if rows:
        with _write_lock(db, "pack"):
            packed = _pack_rows(db, meta)[0]
    elif free:
        with _write_lock(db, "pack") as engine:
            freed = reclaim_space(engine)
    return Packed(packed, freed)

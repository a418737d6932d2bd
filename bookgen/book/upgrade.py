"""``c4book upgrade``: bring a book of an older schema version to this one, in place.

Version 1 stored each row's move string beside its key; version 2 derives
it from the key.  The upgrade first checks that every stored move string
replays to its key (so nothing is lost by dropping it), then drops the
column and records the new version, in one transaction: an interrupted
upgrade leaves the version-1 book as it was.  Nothing is re-solved.
"""

from __future__ import annotations

from typing import IO

from sqlalchemy import text

from solver import Position

from .schema import (
    SCHEMA_VERSION,
    UPGRADABLE_VERSIONS,
    CorruptBookError,
    SchemaMismatchError,
)
from .store import check_sqlite_file, make_engine, read_meta, sqlite_path

CHECK_CHUNK = 100_000


def upgrade(db: str) -> int | None:
    """Convert ``db`` to this schema version; the version it had, or ``None`` if current."""
    path = sqlite_path(db)
    if path is not None:
        check_sqlite_file(path, must_exist=True)
    # Everything is checked read-only first: a refused file is left byte for byte.
    probe = make_engine(db, readonly=path is not None)
    try:
        version = read_meta(probe, db, any_version=True).get("schema_version")
        if version == str(SCHEMA_VERSION):
            return None
        if version not in {str(v) for v in UPGRADABLE_VERSIONS}:
            raise SchemaMismatchError(
                f"{db!r} has book schema version {version!r}, which c4book upgrade cannot "
                f"convert to version {SCHEMA_VERSION}")
        _check_moves(probe, db)
    finally:
        probe.dispose()
    engine = make_engine(db)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE positions DROP COLUMN moves")
            conn.execute(text("UPDATE meta SET value = :v WHERE name = 'schema_version'"),
                         {"v": str(SCHEMA_VERSION)})
        if engine.dialect.name == "sqlite":
            with engine.connect() as conn:   # give the dropped column's pages back
                conn.exec_driver_sql("VACUUM")
                conn.exec_driver_sql("PRAGMA journal_mode=DELETE")
    finally:
        engine.dispose()
    return int(version)


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
                        "replay to it; the book is left as it was")


def run_upgrade(db: str, out: IO[str]) -> int:
    old = upgrade(db)
    if old is None:
        out.write(f"{db}: already book schema version {SCHEMA_VERSION}; nothing to do\n")
    else:
        out.write(f"{db}: upgraded from book schema version {old} to {SCHEMA_VERSION}\n")
    return 0

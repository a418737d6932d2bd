"""A SQLite book as a file: its write-ahead log folded back, its free pages given back, removed.

Nothing here applies to a server's database: each is a no-op there.
"""

from __future__ import annotations

import os
import time

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from ..format.database import sqlite_path

FOLD_ATTEMPTS = 20  # tries, a quarter of a second apart, to leave WAL mode


def fold_wal(engine: Engine) -> None:
    """Fold a SQLite book's write-ahead log back into its file and leave WAL mode, so the
    book is one file that readers open without making any other.  A reader that holds
    the file (another process's query) is waited for a few seconds."""
    if engine.dialect.name != "sqlite":
        return
    engine.dispose()  # this engine's own idle connections hold the file too
    for attempt in range(FOLD_ATTEMPTS):
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                if conn.exec_driver_sql("PRAGMA journal_mode=DELETE").scalar() == "delete":
                    return
        except OperationalError:
            pass
        # A reader keeps WAL mode on; the checkpoint has still moved every committed
        # row into the main file.
        if attempt < FOLD_ATTEMPTS - 1:
            time.sleep(0.25)


def remove_book_files(db: str) -> None:
    """Remove a SQLite book and the files SQLite keeps beside it (none for a URL)."""
    path = sqlite_path(db)
    if path is not None:
        for name in (path, path + "-wal", path + "-shm", path + "-journal"):
            if os.path.exists(name):
                os.remove(name)


def free_bytes(engine: Engine) -> int:
    """The bytes of a SQLite book's pages that no row uses (0 on other databases)."""
    if engine.dialect.name != "sqlite":
        return 0
    with engine.connect() as conn:
        return (
            conn.exec_driver_sql("PRAGMA page_size").scalar_one()
            * conn.exec_driver_sql("PRAGMA freelist_count").scalar_one()
        )


def reclaim_space(engine: Engine) -> int:
    """Give a SQLite book's free pages back (VACUUM): rows dropped by a seal or a pack
    leave their pages in the file otherwise.  The bytes given back."""
    try:
        free = free_bytes(engine)
        if free:
            with engine.connect() as conn:
                conn.exec_driver_sql("VACUUM")
    except OperationalError:
        return 0  # a reader holds the file: the pages stay free, and nothing is lost
    return free

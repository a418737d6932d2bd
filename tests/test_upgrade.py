"""``c4book upgrade``: a version-1 book (with its moves column) becomes version 2 in
place, nothing re-solved; refusals leave the file as it was."""

import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from bookgen import Book, CorruptBookError, SchemaMismatchError
from bookgen.book.upgrade import upgrade
from bookgen.builder.verify import verify
from solver.packed import moves_of_key

from conftest import SMALL_ROOT, c4book_command, run_sql

# The positions table as schema version 1 wrote it.
VERSION_1_TABLE = """CREATE TABLE positions (
    "key" INTEGER NOT NULL, ply SMALLINT NOT NULL, moves VARCHAR(42) NOT NULL,
    score SMALLINT NOT NULL, wdl SMALLINT NOT NULL, best_moves VARCHAR(7) NOT NULL,
    move_scores BLOB, nodes BIGINT NOT NULL, PRIMARY KEY ("key"))"""
COLUMNS = "key, ply, score, wdl, best_moves, move_scores, nodes"


def rows(path: str) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(f"SELECT {COLUMNS} FROM positions ORDER BY key").fetchall()


@pytest.fixture()
def version_1_book(small_book_copy) -> str:
    """The small book as version 1 stored it: each row's moves beside its key."""
    with closing(sqlite3.connect(small_book_copy)) as conn:
        conn.execute("ALTER TABLE positions RENAME TO v2")
        conn.execute(VERSION_1_TABLE)
        conn.executemany(
            f"INSERT INTO positions (moves, {COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(moves_of_key(row[0], SMALL_ROOT), *row)
             for row in conn.execute(f"SELECT {COLUMNS} FROM v2")])
        conn.execute("DROP TABLE v2")
        conn.execute("UPDATE meta SET value = '1' WHERE name = 'schema_version'")
        conn.commit()
    return small_book_copy


def test_a_version_1_book_upgrades_in_place_and_verifies(version_1_book, small_book_path):
    with pytest.raises(SchemaMismatchError, match="c4book upgrade"):
        Book.open(version_1_book)
    assert upgrade(version_1_book) == 1
    assert rows(version_1_book) == rows(small_book_path)
    with Book.open(version_1_book) as book:
        assert book.info.schema_version == 2 and book.get("444444331112").score == -2
    assert verify(version_1_book, sample=5, progress=False).ok
    assert upgrade(version_1_book) is None  # already current: nothing to do
    assert not Path(version_1_book + "-wal").exists()


def test_the_command_line(version_1_book):
    command = [*c4book_command(), "upgrade", "--db", version_1_book]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"{version_1_book}: upgraded from book schema version 1 to 2\n"
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.stdout == f"{version_1_book}: already book schema version 2; nothing to do\n"


def test_moves_that_do_not_match_their_key_stop_the_upgrade(version_1_book):
    run_sql(version_1_book, "UPDATE positions SET moves = '44444455' WHERE ply = 8")
    before = Path(version_1_book).read_bytes()
    with pytest.raises(CorruptBookError, match="stores moves '44444455', which do not replay"):
        upgrade(version_1_book)
    assert Path(version_1_book).read_bytes() == before


def test_an_unknown_version_is_refused(small_book_copy):
    run_sql(small_book_copy, "UPDATE meta SET value = '7' WHERE name = 'schema_version'")
    with pytest.raises(SchemaMismatchError, match="version '7', which c4book upgrade cannot"):
        upgrade(small_book_copy)

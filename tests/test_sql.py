"""The read queries on either kind of connection (``format/sql.py``), and a SQLite reader
that never loads SQLAlchemy."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
from conftest import SHIPPED

from bookgen.book.format.database import make_engine
from bookgen.book.format.sql import (
    dialect,
    driver_connection,
    fetch,
    is_database_error,
    open_readonly,
    table_names,
)

TABLES = {"meta", "positions", "segments", "sealed_plies", "block_chunks"}


def test_both_kinds_of_connection_read_the_same_rows():
    raw = open_readonly(str(SHIPPED))
    engine = make_engine(str(SHIPPED), readonly=True)
    query = 'SELECT ply, positions, "index" FROM sealed_plies WHERE ply >= :low ORDER BY ply'
    try:
        with engine.connect() as conn:
            assert fetch(conn, query, {"low": 11}) == fetch(raw, query, {"low": 11})
            assert fetch(conn, query, {"low": 13}) == fetch(raw, query, {"low": 13})
            assert table_names(conn) == table_names(raw) == TABLES
            assert dialect(conn) == dialect(raw) == "sqlite"
            assert driver_connection(raw) is raw
        rows = fetch(raw, query, {"low": 13})
        assert [(ply, n) for ply, n, _ in rows] == [(13, 14_105_207), (14, 35_045_629)]
        assert all(type(index) is bytes for _, _, index in rows)
    finally:
        raw.close()
        engine.dispose()


def test_the_read_only_connection_cannot_write(tmp_path):
    path = tmp_path / "book.db"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    conn = open_readonly(str(path))
    with pytest.raises(sqlite3.OperationalError, match="readonly") as error:
        conn.execute("INSERT INTO t VALUES (1)")
    assert is_database_error(error.value)
    assert not is_database_error(ValueError("not a database's"))
    conn.close()


def test_a_file_name_with_uri_characters_opens(tmp_path):
    path = tmp_path / "a#b?c%d.db"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    assert table_names(open_readonly(str(path))) == {"t"}


READ_ONLY = """
import sys
from bookgen import Book, Player
from bookgen.cli.c4book import main
with Book.open(sys.argv[1]) as book:
    assert book.get("4453").score == -2
    assert Player(book).best_move("4453") in (3, 6, 7)
    assert len(book.get_many(["44", "4453"])) == 2
assert main(["query", "4453", "--db", sys.argv[1]]) == 0
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("sqlalchemy", "numba", "tqdm"))
print(" ".join(loaded) or "none")
"""


def test_reading_a_sqlite_book_loads_neither_sqlalchemy_nor_numba():
    done = subprocess.run(
        [sys.executable, "-c", READ_ONLY, str(SHIPPED)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "none"

"""The same build, reader and verifier against a real PostgreSQL server.

The server is a throwaway one started with the machine's ``initdb`` and
``pg_ctl`` (as the ``postgres`` user when the tests run as root), listening
only on a Unix socket.  Skipped when PostgreSQL or psycopg is not installed.
"""

import io
import os
import pwd
import shutil
import subprocess
import tempfile

import pytest
from conftest import SMALL_ROOT, book_moves, c4book_command, entries
from sqlalchemy import create_engine, text

from bookgen import Book
from bookgen.book.lock import BuildLock, BuildLockedError, read_lock
from bookgen.book.schema import BookNotFoundError
from bookgen.book.store import existing_meta
from bookgen.book.upgrade import run_pack
from bookgen.builder.driver import build
from bookgen.builder.verify import verify

PLY = 11
PORT = 55439


def _run_as_server_user(args: list[str], user: str | None) -> None:
    if user is not None:
        args = ["runuser", "-u", user, "--", *args]
    subprocess.run(args, check=True, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def postgres_url():
    pytest.importorskip("psycopg")
    if not (shutil.which("initdb") and shutil.which("pg_ctl")):
        pytest.skip("PostgreSQL (initdb, pg_ctl) is not installed")
    user = None
    if os.geteuid() == 0:  # the server refuses to run as root
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no postgres user")
        user = "postgres"
    home = tempfile.mkdtemp(prefix="c4book-pg-")
    if user is not None:
        shutil.chown(home, user)
    data = os.path.join(home, "data")
    try:
        _run_as_server_user(["initdb", "-D", data, "-A", "trust", "-U", "c4"], user)
        _run_as_server_user(
            [
                "pg_ctl",
                "-D",
                data,
                "-w",
                "-l",
                os.path.join(home, "log"),
                "-o",
                f"-p {PORT} -k {home} -c listen_addresses=''",
                "start",
            ],
            user,
        )
    except (OSError, subprocess.SubprocessError) as error:
        # The server is the machine's, not ours: no server here means nothing to test.
        shutil.rmtree(home, ignore_errors=True)
        detail = getattr(error, "stderr", b"") or b""
        pytest.skip(f"could not start a PostgreSQL server: {error} {detail[-200:]!r}")
    try:
        yield f"postgresql+psycopg://c4@/postgres?host={home}&port={PORT}"
    finally:
        _run_as_server_user(["pg_ctl", "-D", data, "-w", "-m", "immediate", "stop"], user)
        shutil.rmtree(home, ignore_errors=True)


def sqlite_rows(path: str) -> list[tuple]:
    """``(key, ply, score, best_moves)`` of every entry, read through ``BookStore``."""
    return entries(path)


def postgres_rows(url: str) -> list[tuple]:
    return entries(url)


def stored_tables(db: str) -> tuple[list[tuple], list[tuple]]:
    """The rows and the segments ``(ply, count, data)`` as stored, through SQLAlchemy."""
    from sqlalchemy import create_engine, text

    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT key, ply, score FROM positions ORDER BY key")).all()
            segments = conn.execute(
                text("SELECT ply, count, data FROM segments ORDER BY ply, id")
            ).all()
    finally:
        engine.dispose()
    return [tuple(r) for r in rows], [(ply, count, bytes(data)) for ply, count, data in segments]


def test_a_postgres_book_equals_the_sqlite_book(postgres_url, tmp_path, ray_session):
    summary = build(postgres_url, PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert summary.searched == 136 and summary.derived == 43
    reference = str(tmp_path / "reference.db")
    build(reference, PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert postgres_rows(postgres_url) == sqlite_rows(reference)
    assert len(postgres_rows(postgres_url)) == 179
    # every ply sealed, as on SQLite: no row left, one segment a ply, the same bytes
    postgres_tables = stored_tables(postgres_url)
    assert postgres_tables == stored_tables(f"sqlite:///{reference}")
    assert postgres_tables[0] == [] and [s[:2] for s in postgres_tables[1]] == [
        (8, 1),
        (9, 6),
        (10, 36),
        (11, 136),
    ]

    rerun = build(postgres_url, PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert rerun.searched == 0 and rerun.already_stored == 136
    assert stored_tables(postgres_url) == postgres_tables

    # the write lock and its command row, there too
    engine = create_engine(postgres_url)
    try:
        with BuildLock(engine, postgres_url, "pack"):
            assert read_lock(engine).command == "pack"
            with pytest.raises(BuildLockedError, match="being written by c4book pack"):
                build(postgres_url, PLY, SMALL_ROOT, progress=False, table_log2=20)
        with engine.connect() as conn:  # both rows gone
            assert (
                conn.execute(
                    text("SELECT count(*) FROM meta WHERE name LIKE 'build_lock%'")
                ).scalar()
                == 0
            )
    finally:
        engine.dispose()
    out = io.StringIO()
    assert run_pack(postgres_url, out) == 0 and out.getvalue().endswith(": no rows to pack\n")

    with Book.open(postgres_url) as book:
        assert len(book) == 179
        assert book.info.plies_complete == (8, 9, 10, 11)
        entry = book.get("444444333")
        assert entry.score == -2 and entry.best_moves == (2, 5)
        assert book.info.search_core_seconds == pytest.approx(summary.core_seconds, rel=1e-6)

    # Read into memory through SQLAlchemy: the same answers as the SQLite book's.
    stored = [m for ply in range(8, PLY + 1) for m in book_moves(reference, ply)]
    asked = stored + ["".join(str(8 - int(c)) for c in m) for m in stored] + ["4453"]
    with Book.open(postgres_url, in_memory=True) as on_postgres, Book.open(reference) as on_sqlite:
        assert on_postgres.get_many(asked) == on_sqlite.get_many(asked)
        assert [on_postgres.get(m) for m in asked[::7]] == [on_sqlite.get(m) for m in asked[::7]]
        assert on_postgres.count_by_ply() == on_sqlite.count_by_ply()
        assert on_postgres.score_counts() == on_sqlite.score_counts()

    report = verify(postgres_url, sample=20, progress=False)
    assert report.ok, report.problems


def test_a_missing_database_is_named_with_how_to_create_it(postgres_url):
    """Once said to be 'damaged or not a database': the server has no database of that
    name, and c4book makes tables, not databases."""
    url = postgres_url.replace("/postgres?", "/c4book_missing?")
    with pytest.raises(
        BookNotFoundError,
        match=r"PostgreSQL has no database 'c4book_missing' "
        r".*create it first with `createdb c4book_missing`",
    ):
        Book.open(url)
    result = subprocess.run(
        [*c4book_command(), "build", "--ply", "9", "--db", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert (
        result.stderr.startswith("c4book build: error: PostgreSQL has no database 'c4book_missing'")
        and result.stderr.count("\n") == 1
    )

    server = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with server.connect() as conn:
            conn.execute(text("CREATE DATABASE c4book_missing"))
    finally:
        server.dispose()
    assert existing_meta(url) is None  # created: an empty database, where a build makes one

"""The same build, reader and verifier against a real PostgreSQL server, and its writes:
``COPY`` and its fallback for stored keys, the writer's thread, a build stopped and resumed;
and what a user sees of the server: a URL's password never shown, the server stopped
mid-build, a role that may only read.

The server is a throwaway one started with the machine's ``initdb`` and
``pg_ctl`` (as the ``postgres`` user when the tests run as root), listening
only on a Unix socket.  Skipped when PostgreSQL or psycopg is not installed.
"""

import contextlib
import io
import os
import pwd
import random
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time

import numpy as np
import pytest
from conftest import (
    SMALL_PLY,
    SMALL_ROOT,
    book_moves,
    c4book_command,
    entries,
    small_build_args,
    wait_until,
    write_wide_book,
)
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DatabaseError

from bookgen import Book, BookError
from bookgen.book.format.database import existing_meta
from bookgen.book.format.errors import BookConnectionError, BookNotFoundError
from bookgen.book.format.names import COLUMNS
from bookgen.book.format.rows import Rows
from bookgen.book.format.wide_keys import blob_list, rows_of, union
from bookgen.book.write.lock import BuildLock, BuildLockedError, read_lock
from bookgen.book.write.merge import merge
from bookgen.book.write.store import BookStore
from bookgen.book.write.upgrade import Packed, pack
from bookgen.book.write.writer import BatchWriter
from bookgen.builder.driver import build
from bookgen.builder.verify import verify
from solver import Position
from solver.bitboard import STANDARD, Board

PLY = 11
STOP_PLY, STOP_FRONTIER = 13, 1762  # long enough to be stopped mid-search
PORT = 55439
KEEPER = "keeper"  # a role whose password the server checks
KEEPER_PASSWORD = f"pw{secrets.token_hex(8)}"


def _run_as_server_user(args: list[str], user: str | None) -> None:
    if user is not None:
        args = ["runuser", "-u", user, "--", *args]
    subprocess.run(args, check=True, capture_output=True, timeout=120)


class Server:
    """The throwaway server: its data directory under ``home``, run as ``user`` (``None``:
    as this process's user), trusting local connections but those of ``KEEPER``, who
    gives ``KEEPER_PASSWORD``; stopped and started again by a test, and killed by its pid
    at the end whatever happened."""

    def __init__(self, home: str, user: str | None):
        self.home, self.user = home, user
        self.data = os.path.join(home, "data")
        self.url = f"postgresql+psycopg://c4@/postgres?host={home}&port={PORT}"
        self.pid: int | None = None

    def make(self) -> None:
        _run_as_server_user(["initdb", "-D", self.data, "-A", "trust", "-U", "c4"], self.user)
        hba = os.path.join(self.data, "pg_hba.conf")
        with open(hba) as handle:
            rules = handle.read()
        with open(hba, "w") as handle:  # the first rule that matches counts
            handle.write(f"local all {KEEPER} scram-sha-256\n{rules}")

    def start(self) -> None:
        options = f"-p {PORT} -k {self.home} -c listen_addresses=''"
        log = os.path.join(self.home, "log")
        _run_as_server_user(
            ["pg_ctl", "-D", self.data, "-w", "-l", log, "-o", options, "start"], self.user
        )
        with open(os.path.join(self.data, "postmaster.pid")) as handle:
            self.pid = int(handle.readline())

    def stop(self, mode: str = "immediate") -> None:
        _run_as_server_user(["pg_ctl", "-D", self.data, "-w", "-m", mode, "stop"], self.user)
        self.pid = None

    def kill(self) -> None:
        """Stop it, by its pid if ``pg_ctl`` cannot."""
        if self.pid is None:
            return
        try:
            self.stop()
        except (OSError, subprocess.SubprocessError):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)  # its backends follow their postmaster

    def sql(self, *statements: str, database: str = "postgres") -> None:
        """Run ``statements`` as the superuser in ``database``, each on its own (``CREATE
        DATABASE`` must)."""
        url = self.url.replace("/postgres?", f"/{database}?")
        engine = create_engine(url, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                for statement in statements:
                    conn.execute(text(statement))
        finally:
            engine.dispose()


@pytest.fixture(scope="module")
def postgres_server():
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
    server = Server(home, user)
    try:
        server.make()
        server.start()
    except (OSError, subprocess.SubprocessError) as error:
        # The server is the machine's, not ours: no server here means nothing to test.
        server.kill()
        shutil.rmtree(home, ignore_errors=True)
        detail = getattr(error, "stderr", b"") or b""
        pytest.skip(f"could not start a PostgreSQL server: {error} {detail[-200:]!r}")
    try:
        server.sql(f"CREATE ROLE {KEEPER} LOGIN PASSWORD '{KEEPER_PASSWORD}'")
        yield server
    finally:
        server.kill()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres_url(postgres_server):
    return postgres_server.url


def sqlite_rows(path: str) -> list[tuple]:
    """``(key, ply, score, best_moves)`` of every entry, read through ``BookStore``."""
    return entries(path)


def postgres_rows(url: str) -> list[tuple]:
    return entries(url)


def stored_tables(db: str) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """The rows, the segments ``(ply, count, data)`` and the sealed plies ``(ply, positions,
    dictionary, blocks)`` as stored, through SQLAlchemy (the blocks' chunks joined: their
    size is the database's, the blocks the same on any)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT key, ply, score FROM positions ORDER BY key")).all()
            segments = conn.execute(
                text("SELECT ply, count, data FROM segments ORDER BY ply, id")
            ).all()
            sealed = conn.execute(
                text("SELECT ply, positions, dictionary FROM sealed_plies ORDER BY ply")
            ).all()
            chunks = conn.execute(text("SELECT id, data FROM block_chunks ORDER BY id")).all()
    finally:
        engine.dispose()
    blocks: dict[int, bytes] = {}
    for row_id, data in chunks:
        blocks[row_id >> 32] = blocks.get(row_id >> 32, b"") + bytes(data)
    return (
        [tuple(r) for r in rows],
        [(ply, count, bytes(data)) for ply, count, data in segments],
        [(ply, n, bytes(dictionary), blocks.get(ply, b"")) for ply, n, dictionary in sealed],
    )


def test_a_postgres_book_equals_the_sqlite_book(postgres_url, tmp_path, ray_session):
    summary = build(postgres_url, PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert summary.searched == 136 and summary.derived == 43
    reference = str(tmp_path / "reference.db")
    build(reference, PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert postgres_rows(postgres_url) == sqlite_rows(reference)
    assert len(postgres_rows(postgres_url)) == 179
    # every ply sealed, as on SQLite: no row or segment left, the same blocks
    postgres_tables = stored_tables(postgres_url)
    assert postgres_tables == stored_tables(f"sqlite:///{reference}")
    assert postgres_tables[:2] == ([], []) and [s[:2] for s in postgres_tables[2]] == [
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
    assert pack(postgres_url) == Packed(rows=0, freed=0)

    with Book.open(postgres_url) as book:
        assert len(book) == 179
        assert book.info.plies_complete == (8, 9, 10, 11)
        entry = book.get("444444333")
        assert entry.score == -2 and entry.best_moves == (2, 5)
        assert book.info.search_core_seconds == pytest.approx(summary.core_seconds, rel=1e-6)

    # Read into memory through SQLAlchemy: the same answers as the SQLite book's.
    stored = [m for ply in range(8, PLY + 1) for m in book_moves(reference, ply)]
    asked = stored + ["".join(str(8 - int(c)) for c in m) for m in stored] + ["4453"]
    with Book.open(postgres_url) as on_postgres, Book.open(reference) as on_sqlite:
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


# -- writing rows: COPY, its fallback for stored keys, and the writer's thread ------------


def new_database(postgres_url: str) -> str:
    """The URL of a database of its own on the test server, made now."""
    name = f"c4book_{os.urandom(6).hex()}"
    server = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with server.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}"))
    finally:
        server.dispose()
    return postgres_url.replace("/postgres?", f"/{name}?")


def random_rows(board: Board, ply: int, count: int, seed: int, *, derived: bool = False) -> Rows:
    """Rows of random keys over all of ``board``'s key bits (8x7's reach past 2**63): frontier
    rows with nodes, or derived ones with move scores and no nodes."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 1 << board.key_bits, count, dtype=np.uint64))
    scores = rng.integers(-20, 21, len(keys)).astype(np.int8)
    best = rng.integers(0, 1 << board.width, len(keys)).astype(np.uint8)
    if derived:
        moves = rng.integers(0, 128, (len(keys), board.width)).astype(np.uint8)
        return Rows(ply, keys, scores, best, move_scores=moves)
    return Rows(ply, keys, scores, best, nodes=rng.integers(0, 1 << 40, len(keys)))


def raw_positions(db: str) -> list[tuple]:
    """Every column of every row as stored, in key order."""
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(f"SELECT {', '.join(COLUMNS)} FROM positions ORDER BY key"))
            return [(*r[:5], None if r[5] is None else bytes(r[5]), *r[6:]) for r in rows]
    finally:
        engine.dispose()


@contextlib.contextmanager
def written_both_ways(postgres_url, tmp_path, board: Board, make):
    """Frontier rows, then rows of which some keys are stored (the copy fails whole, and
    the staging table's ON CONFLICT keeps the first values), then derived rows replacing
    some, written by PostgreSQL's COPY and by SQLite's INSERT (rows from ``make``): the two
    stores, open, and the rows written."""
    first = make(board, 9, 3000, seed=1)
    again = make(board, 9, 1000, seed=2)
    overlap = Rows(
        9,
        np.concatenate([first.keys[::3], again.keys]),
        np.concatenate([first.scores[::3] + 1, again.scores]),
        np.concatenate([first.best[::3], again.best]),
        nodes=np.concatenate([first.nodes[::3], again.nodes]),
    )
    derived = make(board, 9, 500, seed=3, derived=True)
    derived = derived.with_keys(np.concatenate([derived.keys[:250], first.keys[1:500:2]]))
    root = Position.from_moves("", board).canonical_key
    stores = [
        BookStore(db, "", root, board=board)
        for db in (new_database(postgres_url), str(tmp_path / "same.db"))
    ]
    try:
        for store in stores:
            assert store.insert_new(first, search_seconds=1.5) == len(first)
            assert store.insert_new(overlap) == len(overlap)
            assert store.upsert(derived) == len(derived)
        assert stores[0].copies and not stores[1].copies
        yield stores, first, overlap, derived
    finally:
        for store in stores:
            store.close()


@pytest.mark.parametrize("board", [STANDARD, Board.parse("8x7")], ids=str)
def test_copy_writes_what_insert_writes_and_keeps_stored_keys(postgres_url, tmp_path, board):
    """PostgreSQL's COPY stores every column as SQLite's INSERT does."""
    with written_both_ways(postgres_url, tmp_path, board, random_rows) as written:
        (on_postgres, on_sqlite), first, overlap, derived = written
        kept, same = on_postgres.entries_at(9), on_sqlite.entries_at(9)
        assert all(map(np.array_equal, kept, same))
        assert len(kept.keys) == len(np.union1d(overlap.keys, np.union1d(first.keys, derived.keys)))
        assert (kept.keys >= np.uint64(1 << 63)).any() == (board.key_bits > 63)
        assert on_postgres.meta()["search_core_seconds"] == "1.5"
    assert raw_positions(on_postgres.db) == raw_positions(f"sqlite:///{on_sqlite.db}")


def wide_rows(board: Board, ply: int, count: int, seed: int, *, derived: bool = False) -> Rows:
    """``random_rows`` past 64 bits: ``(n, 2)`` rows of random keys over all the key bits."""
    draw = random.Random(seed)
    keys = rows_of(sorted({draw.getrandbits(board.key_bits) for _ in range(count)}))
    rng = np.random.default_rng(seed)
    scores = rng.integers(-20, 21, len(keys)).astype(np.int8)
    best = rng.integers(0, 1 << board.width, len(keys)).astype(np.uint8)
    if derived:
        moves = rng.integers(0, 128, (len(keys), board.width)).astype(np.uint8)
        return Rows(ply, keys, scores, best, move_scores=moves)
    return Rows(ply, keys, scores, best, nodes=rng.integers(0, 1 << 40, len(keys)))


def test_copy_writes_keys_past_64_bits_as_insert_does_in_key_order(postgres_url, tmp_path):
    """16-byte bytea keys by COPY as by SQLite's INSERT, and ranges of keys read in order."""
    with written_both_ways(postgres_url, tmp_path, Board(8, 8), wide_rows) as written:
        (on_postgres, on_sqlite), first, overlap, derived = written
        kept, same = on_postgres.entries_at(9), on_sqlite.entries_at(9)
        assert all(map(np.array_equal, kept, same))
        every = union(union(first.keys, overlap.keys), derived.keys)
        assert np.array_equal(kept.keys, every) and len(every) > 4000
        assert (every[:, 1] > 0).any() and (every[:, 1] == 0).any()  # both sides of 2**64
    stored = raw_positions(on_postgres.db)
    assert stored == raw_positions(f"sqlite:///{on_sqlite.db}")
    assert all(isinstance(row[0], bytes) and len(row[0]) == 16 for row in stored)
    # A range of keys, bounded by 16-byte values, comes back in key order.
    low, high = blob_list(every[[len(every) // 4, len(every) // 2]])
    engine = create_engine(on_postgres.db)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT key FROM positions WHERE key >= :low AND key < :high ORDER BY key"),
                {"low": low, "high": high},
            ).scalars()
            assert [bytes(k) for k in found] == blob_list(every[len(every) // 4 : len(every) // 2])
    finally:
        engine.dispose()


def test_a_book_past_64_bits_in_postgres_is_the_sqlite_book(
    postgres_url, wide_plies, wide_book_path
):
    url = new_database(postgres_url)
    write_wide_book(url, wide_plies)  # rows by COPY, packed, sealed
    assert stored_tables(url) == stored_tables(f"sqlite:///{wide_book_path}")
    with Book.open(url) as on_postgres, Book.open(wide_book_path) as on_sqlite:
        assert str(on_postgres.board) == "8x8"
        assert list(on_postgres.entries()) == list(on_sqlite.entries())


def test_the_writer_drains_every_batch_and_raises_a_failed_write(postgres_url):
    db = new_database(postgres_url)
    store = BookStore(db, "", Position().canonical_key)
    try:
        assert store.writes_behind
        batches = [random_rows(STANDARD, 9, 2000, seed=s) for s in range(6)]  # past DEPTH
        writer = BatchWriter(store)
        for batch in batches:
            writer.put(batch, 1.0)
        written = writer.close()
        assert written.rows == sum(map(len, batches)) and written.unwritten == 0
        assert written.seconds > 0 and written.cpu_seconds > 0
        assert len(store.entries_at(9).keys) == written.rows  # all of it, once closed
        assert float(store.meta()["search_core_seconds"]) == 6.0

        writer = BatchWriter(store)
        with store.engine.begin() as conn:
            conn.execute(text("ALTER TABLE positions RENAME TO gone"))
        try:
            writer.put(random_rows(STANDARD, 10, 100, seed=7), 1.0)
            with pytest.raises(BookError, match="cannot write to"):
                writer.close()
        finally:
            with store.engine.begin() as conn:
                conn.execute(text("ALTER TABLE gone RENAME TO positions"))
        assert writer.written().unwritten == 100
    finally:
        store.close()


def test_a_second_stop_while_draining_ends_after_the_batch_being_written(postgres_url):
    """Each batch is one transaction: the book keeps whole batches, and those left are
    counted unwritten (a resume solves them again)."""
    db = new_database(postgres_url)
    store = BookStore(db, "", Position().canonical_key)
    batches = [random_rows(STANDARD, 9, 150_000, seed=s) for s in range(4)]
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    try:
        writer = BatchWriter(store)
        for batch in batches:
            writer.put(batch, 1.0)
        signal.setitimer(signal.ITIMER_REAL, 0.05)  # a KeyboardInterrupt while it drains
        with pytest.raises(KeyboardInterrupt):
            writer.close()
        written = writer.written()
        assert written.unwritten > 0 and written.rows + written.unwritten == 4 * len(batches[0])
        stored = store.entries_at(9).keys
        whole = [b.keys for b in batches[: written.rows // len(batches[0])]]
        assert np.array_equal(stored, np.unique(np.concatenate(whole)) if whole else stored[:0])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        store.close()


@pytest.fixture(scope="module")
def stop_reference(tmp_path_factory, ray_session) -> str:
    """The SQLite book of SMALL_ROOT to STOP_PLY, which every stopped build must end as."""
    path = str(tmp_path_factory.mktemp("stopped") / "reference.db")
    build(path, STOP_PLY, SMALL_ROOT, progress=False, table_log2=20)
    return path


def counted(engine, where: str, table: str = "positions") -> int:
    """The rows of ``table`` ``where`` says; 0 before the build made its tables."""
    try:
        with engine.connect() as conn:
            return conn.execute(text(f"SELECT count(*) FROM {table} WHERE {where}")).scalar_one()
    except DatabaseError:  # no tables yet
        return 0


def frontier_rows(engine) -> int:
    return counted(engine, f"ply = {STOP_PLY}")


@pytest.mark.slow  # 12 s; the default run stops a server mid-build and resumes it (below)
def test_a_build_into_postgres_stopped_and_resumed_is_the_sqlite_book(
    postgres_url, stop_reference, ray_session
):
    """Ctrl-C while batches are written behind the loop: the stopped run's count of searched
    positions is what it stored (the writer drained), and the rerun completes the book."""
    db = new_database(postgres_url)
    args = [*c4book_command(), *small_build_args(db, STOP_PLY, "--workers", "2", "--no-progress")]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    engine = create_engine(db)
    try:
        wait_until(lambda: frontier_rows(engine), "frontier rows in PostgreSQL", 120)
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=120)
        assert first.returncode == 130, err
        assert "stopped early by SIGINT: every finished batch is saved" in err
        searched = int(re.search(r"searched ([\d,]+) frontier", err)[1].replace(",", ""))
        stored = frontier_rows(engine)
        assert 1 <= stored < STOP_FRONTIER and stored == searched
    finally:
        engine.dispose()
        if first.poll() is None:
            first.kill()
    rerun = build(db, STOP_PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert rerun.already_stored == stored and rerun.searched == STOP_FRONTIER - stored
    assert postgres_rows(db) == sqlite_rows(stop_reference)
    assert stored_tables(db) == stored_tables(f"sqlite:///{stop_reference}")


def test_parts_merged_into_postgres_are_the_sqlite_book(postgres_url, tmp_path, small_book_path):
    """``c4book merge`` into a server: SQLite parts copied in (by COPY, and again through
    the staging table when the keys are stored already), then sealed: the whole build."""
    parts = [str(tmp_path / f"part{n}.db") for n in (1, 2)]
    for n, part in enumerate(parts, start=1):
        build(part, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=20, part=f"{n}/2")
    db = new_database(postgres_url)
    merge(db, parts)
    merge(db, parts[:1])  # again: every key stored, nothing changes
    sealed = build(db, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert sealed.searched == 0
    assert entries(db) == entries(small_book_path)


# -- issue 48: a password never shown, a server gone, a role that may only read ----------


def keeper_database(server: Server) -> str:
    """A new database of KEEPER's, as a URL that gives KEEPER's password."""
    name = f"c4book_{os.urandom(6).hex()}"
    server.sql(f"CREATE DATABASE {name} OWNER {KEEPER}")
    return f"postgresql+psycopg://{KEEPER}:{KEEPER_PASSWORD}@/{name}?host={server.home}&port={PORT}"


def c4book(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*c4book_command(), *args], capture_output=True, text=True, timeout=120)


def test_a_password_in_the_url_is_never_shown(postgres_server, ray_session):
    """Not in a build's report, stats, a query, verify, an error, nor the repr of what holds
    the URL: each shows it masked (``keeper:***@``), and still connects with it."""
    db = keeper_database(postgres_server)
    wrong_password = secrets.token_hex(8)
    with pytest.raises(BookConnectionError, match="password authentication failed") as refused:
        # The server checks the password: the URL's value must carry it.
        Book.open(db.replace(KEEPER_PASSWORD, wrong_password))
    out = io.StringIO()
    summary = build(db, 9, SMALL_ROOT, progress=False, table_log2=20, out=out)
    masked = [out.getvalue(), repr(summary), str(summary.db), f"{summary.db}"]
    with Book.open(db) as book:
        masked.append(repr(book))
    store = BookStore(db, SMALL_ROOT, Position.from_moves(SMALL_ROOT).canonical_key)
    try:
        masked.append(repr(store))
        with BuildLock(store.engine, db, "pack"), pytest.raises(BuildLockedError) as locked:
            build(db, 9, SMALL_ROOT, progress=False)
    finally:
        store.close()
    with pytest.raises(BookError) as other_root:
        build(db, 9, "4444", progress=False)
    masked += [str(e.value) + repr(e.value) for e in (refused, locked, other_root)]
    commands = [
        ("stats", "--db", db),
        ("stats", "--db", db, "--json"),
        ("verify", "--db", db, "--sample", "3", "--no-progress"),
        ("build", "--root", "4444", "--ply", "9", "--db", db),  # another root: refused
    ]
    results = [c4book(*command) for command in commands]
    assert [r.returncode for r in results] == [0, 0, 0, 1], [r.stderr for r in results]
    masked += [r.stdout + r.stderr for r in results]
    query = c4book("query", "4444443", "--db", db)
    unreachable = c4book("query", "4444443", "--db", db.replace(f"port={PORT}", f"port={PORT + 1}"))
    assert query.returncode == 0 and unreachable.returncode == 1
    assert unreachable.stderr.startswith("c4book query: error: cannot connect to 'postgresql")
    masked.append(unreachable.stderr)
    assert all(f"{KEEPER}:***@" in text for text in masked), masked
    everything = "".join([*masked, query.stdout, query.stderr])
    assert KEEPER_PASSWORD not in everything and wrong_password not in everything


# While Ray starts, about 13 s; while batches are written (slow), about 20 s.
@pytest.mark.parametrize("during", ["start", pytest.param("search", marks=pytest.mark.slow)])
def test_a_server_stopped_mid_build_is_one_line_and_the_rerun_completes_the_book(
    postgres_server, stop_reference, ray_session, during
):
    """The server stopped while the frontier is searched (and written), or while Ray starts:
    the build says so in one line and exits 1; the server back, the rerun resumes from the
    batches stored and ends with the whole book."""
    db = keeper_database(postgres_server)  # its password masked in the error too
    args = [*c4book_command(), *small_build_args(db, STOP_PLY, "--workers", "2", "--no-progress")]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    engine = create_engine(db)
    try:
        if during == "search":
            wait_until(lambda: frontier_rows(engine), "frontier rows in PostgreSQL", 120)
            postgres_server.stop("immediate")
        else:
            wait_until(lambda: counted(engine, "name = 'build_lock'", "meta"), "the lock")
            time.sleep(1)  # past the listing (0.3 s), into Ray's start (several seconds)
            postgres_server.stop("fast")
        out, err = first.communicate(timeout=120)
    finally:
        engine.dispose()
        if first.poll() is None:
            first.kill()
            first.wait()
        if postgres_server.pid is None:
            postgres_server.start()
    assert first.returncode == 1, err
    assert err.count("\n") == 1 and re.match(
        r"c4book build: error: (lost the connection|cannot connect) to "
        rf"'postgresql\+psycopg://{KEEPER}:\*\*\*@.*; every batch written before is kept: "
        "run the same command again once the server is back, to resume$",
        err,
    ), err
    assert KEEPER_PASSWORD not in out + err
    engine = create_engine(db)
    try:
        stored = frontier_rows(engine)
    finally:
        engine.dispose()
    if during == "search":
        assert stored >= 1
    rerun = build(db, STOP_PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert rerun.already_stored == stored and rerun.searched == STOP_FRONTIER - stored
    assert postgres_rows(db) == sqlite_rows(stop_reference)
    assert stored_tables(db) == stored_tables(f"sqlite:///{stop_reference}")


def test_a_role_that_may_only_read_is_told_it_cannot_write(postgres_server, tmp_path, ray_session):
    """``build`` and ``merge`` with a role granted only CONNECT and SELECT: one line naming
    the book, the role and the table, exit 1, and the book as it was; a query still reads."""
    db = new_database(postgres_server.url)
    build(db, 9, SMALL_ROOT, progress=False, table_log2=20)
    part = str(tmp_path / "part.db")
    build(part, 10, SMALL_ROOT, progress=False, table_log2=20, part="1/2")
    name, role = db.split("/")[3].split("?")[0], f"reader_{os.urandom(4).hex()}"
    postgres_server.sql(f"CREATE ROLE {role} LOGIN", f"GRANT CONNECT ON DATABASE {name} TO {role}")
    postgres_server.sql(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}", database=name)
    reader = db.replace("c4@", f"{role}@")
    before = entries(db)
    assert c4book("query", "4444443", "--db", reader).returncode == 0
    for command in (
        small_build_args(reader, 10, "--no-progress"),
        ("merge", "--db", reader, part),
    ):
        result = c4book(*command)
        assert result.returncode == 1
        assert result.stderr == (
            f"c4book {command[0]}: error: no write permission on {reader!r} for its role "
            f"{role!r}: permission denied for table meta\n"
        )
    assert entries(db) == before

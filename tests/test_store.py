"""``BookStore`` (the writer) and ``schema`` (tables, packing, errors) on real SQLite files.

Rows are real: frontier rows come from ``solve_position`` and derived rows
from ``Solver.analyze``, on positions of the small book's subtree.  They are
plain tuples in ``schema.COLUMNS`` order, as the book holds them, and are
written as the build writes them: as ``Rows`` (columns) made from those tuples.
Sealing and packing turn them into segments (``segment``); every read joins
the two.
"""

import json
import os
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    SMALL_PLY,
    SMALL_ROOT,
    WIDE_PLY,
    WIDE_ROOT,
    book_moves,
    damage_middle_page,
    entries,
    run_sql,
    sealed_bytes,
)
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from bookgen import (
    Book,
    BookError,
    CorruptBookError,
    IncompatibleBookError,
    NotABookError,
    SchemaMismatchError,
)
from bookgen.book.format.checksum import meta_checksum
from bookgen.book.format.database import (
    check_sqlite_file,
    is_url,
    key_offset,
    make_engine,
    read_meta,
    sqlite_path,
)
from bookgen.book.format.errors import BookSizeError
from bookgen.book.format.names import COLUMNS, FORMAT, SCHEMA_VERSION, chunk_id
from bookgen.book.format.rows import Rows
from bookgen.book.format.schema import ChunkRow, Entry, Meta, SealedRow, SegmentRow
from bookgen.book.format.scores import BEST_TEXT, pack_scores, unpack_scores
from bookgen.book.format.segment import Segment, pack, unpack
from bookgen.book.format.wide_keys import ints_of
from bookgen.book.read.plies import Plies
from bookgen.book.write.inserts import BIND_CHUNK, ROWS_PER_STATEMENT
from bookgen.book.write.store import BookStore
from bookgen.builder.solve_position import solve_position
from solver import Board, BoardSizeError, Position, Solver

ROOT_KEY = Position.from_moves(SMALL_ROOT).canonical_key
FRONTIER = ["444444331112", "444444331222", "444444331233"]  # canonical, ply 12


@pytest.fixture(scope="module")
def solver():
    return Solver(table_log2=20)


def changed(row: tuple, **values) -> tuple:
    """``row`` with some columns replaced."""
    # A row may stop short of the last columns: those stay out of the result.
    return tuple(values.get(name, value) for name, value in zip(COLUMNS, row, strict=False))


def as_rows(rows: list[tuple]) -> Rows:
    """Tuples of one ply in ``schema.COLUMNS`` order as the columns the store writes
    (``wdl`` follows from the score)."""
    keys, plies, scores, _, best, move_scores, nodes = zip(*(row[:7] for row in rows), strict=True)
    assert len(set(plies)) == 1
    packed = (
        None
        if move_scores[0] is None
        else np.frombuffer(b"".join(move_scores), np.uint8).reshape(-1, 7)
    )
    return Rows(
        plies[0],
        np.array(keys, np.uint64),
        np.array(scores, np.int8),
        np.array([sum(1 << int(c) - 1 for c in b) for b in best], np.uint8),
        packed,
        np.array(nodes, np.int64),
    )


def key(moves: str) -> int:
    return Position.from_moves(moves).key


@pytest.fixture(scope="module")
def frontier_rows(solver) -> list[tuple]:
    rows = []
    for moves in FRONTIER:
        solved = solve_position(solver, moves)
        rows.append(
            (
                key(moves),
                12,
                solved.score,
                (solved.score > 0) - (solved.score < 0),
                solved.best_moves,
                None,
                solved.nodes,
            )
        )
    return rows


@pytest.fixture(scope="module")
def derived_row(solver) -> tuple:
    position = Position.from_moves("44444433111")  # ply 11, canonical
    scores = solver.analyze(position)
    score = max(s for s in scores if s is not None)
    return (
        position.key,
        11,
        score,
        (score > 0) - (score < 0),
        "".join(str(c) for c, s in enumerate(scores, 1) if s == score),
        pack_scores(scores),
        0,
    )


@pytest.fixture
def store(tmp_path):
    opened = BookStore(str(tmp_path / "new.db"), SMALL_ROOT, ROOT_KEY)
    yield opened
    opened.close()


def table(path: str) -> list[tuple]:
    """Every row's fields but its checksum (which every read of the store checks)."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(
            f"SELECT {', '.join(COLUMNS[:-1])} FROM positions ORDER BY key"
        ).fetchall()


def journal_mode(path: str) -> str:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]


# -- the rows used below are real ---------------------------------------------


def test_the_rows_are_real_solves(frontier_rows, derived_row):
    assert [r[:6] for r in frontier_rows] == [
        (key("444444331112"), 12, -2, -1, "2", None),
        (key("444444331222"), 12, -1, -1, "26", None),
        (key("444444331233"), 12, -2, -1, "1256", None),
    ]
    assert derived_row[2:5] == (2, 1, "2")
    assert unpack_scores(derived_row[5]) == [-15, 2, -15, None, -15, -15, -15]


# -- creating a book -----------------------------------------------------------


def test_a_new_store_writes_its_metadata(store):
    meta = store.meta()
    assert meta == {
        "format": FORMAT,
        "schema_version": str(SCHEMA_VERSION),
        "width": "7",
        "height": "6",
        "root": SMALL_ROOT,
        "root_key": str(ROOT_KEY),
        "ply": "8",
        "complete_plies": "[]",
        "meta_checksum": meta_checksum(meta),
    }
    assert (FORMAT, SCHEMA_VERSION) == ("c4book", 6)
    assert store.count_by_ply() == {} and store.row_counts() == {}
    assert store.storage_by_ply() == {}
    assert len(store.keys_at(SMALL_PLY)) == 0 and len(store.scores_at(SMALL_PLY)[0]) == 0
    assert store.segment_at(SMALL_PLY) is None and len(store.entries_at(SMALL_PLY).keys) == 0
    assert store.complete_plies() == [] and not store.is_sealed(SMALL_PLY)


def test_an_empty_file_becomes_a_book(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    store = BookStore(str(path), SMALL_ROOT, ROOT_KEY)
    store.close()
    with Book.open(str(path)) as book:
        assert book.info.root == SMALL_ROOT and len(book) == 0


def test_a_url_names_the_same_file(tmp_path, frontier_rows):
    path = str(tmp_path / "url.db")
    assert is_url(f"sqlite:///{path}") and not is_url(path)
    assert sqlite_path(f"sqlite:///{path}") == path and sqlite_path(path) == path
    assert sqlite_path("postgresql+psycopg://u@h/book") is None
    store = BookStore(f"sqlite:///{path}", SMALL_ROOT, ROOT_KEY)
    store.insert_new(as_rows(frontier_rows))
    store.close()
    assert len(table(path)) == 3


# -- writing -------------------------------------------------------------------


def test_insert_new_twice_keeps_one_row_with_the_first_values(store, frontier_rows):
    assert store.insert_new(as_rows(frontier_rows)) == 3
    first = table(store.db)
    assert first == sorted(frontier_rows)
    store.insert_new(as_rows(frontier_rows))
    assert table(store.db) == first
    store.insert_new(
        as_rows([changed(r, score=r[2] + 1, wdl=1, best_moves="7", nodes=1) for r in frontier_rows])
    )
    assert table(store.db) == first
    assert store.count_by_ply() == {12: 3}


def test_insert_new_adds_only_the_missing_keys(store, frontier_rows):
    store.insert_new(as_rows(frontier_rows[:1]))
    store.insert_new(as_rows([changed(frontier_rows[0], score=99), *frontier_rows[1:]]))
    keys, scores = store.scores_at(12)
    assert dict(zip(keys.tolist(), scores.tolist(), strict=True)) == {
        r[0]: r[2] for r in frontier_rows
    }


def test_upsert_twice_keeps_one_row_with_the_last_values(store, frontier_rows, derived_row):
    store.insert_new(as_rows(frontier_rows))
    store.upsert(as_rows([derived_row]))
    store.upsert(as_rows([derived_row]))
    assert store.count_by_ply() == {11: 1, 12: 3}
    assert {r[0]: r for r in table(store.db)}[derived_row[0]] == derived_row
    # upsert replaces the whole row of a stored key, checksum and all
    wrong = changed(
        derived_row,
        score=-7,
        wdl=-1,
        best_moves="13",
        nodes=5,
        move_scores=pack_scores([-7, -8, -7, None, -9, -9, -9]),
    )
    store.upsert(as_rows([wrong]))
    store.upsert(as_rows([wrong]))
    row = {r[0]: r for r in table(store.db)}[derived_row[0]]
    assert row == (derived_row[0], 11, -7, -1, "13", pack_scores([-7, -8, -7, None, -9, -9, -9]), 5)
    assert store.scores_at(11)[1].tolist() == [-7]  # read back, checked
    assert store.count_by_ply() == {11: 1, 12: 3}


def test_empty_writes_are_no_ops(store):
    nothing = Rows(12, np.empty(0, np.uint64), np.empty(0, np.int8), np.empty(0, np.uint8))
    assert store.insert_new(nothing) == 0 and store.upsert(nothing) == 0
    assert store.count_by_ply() == {}


def test_reading_back_by_ply(store, frontier_rows, derived_row):
    store.insert_new(as_rows(frontier_rows))
    store.upsert(as_rows([derived_row]))
    keys = sorted(key(m) for m in FRONTIER)
    assert store.keys_at(12).tolist() == keys and store.keys_at(12).dtype == np.uint64
    assert store.keys_at(12, keys[1], keys[2]).tolist() == keys[1:2]  # a range of keys
    assert store.keys_at(12, keys[2] + 1).tolist() == []
    stored, scores = store.scores_at(12)
    assert dict(zip(stored.tolist(), scores.tolist(), strict=True)) == {
        key("444444331112"): -2,
        key("444444331222"): -1,
        key("444444331233"): -2,
    }
    assert stored.tolist() == keys and scores.dtype == np.int8
    assert [a.tolist() for a in store.scores_at(11)] == [[derived_row[0]], [2]]
    # best-move bits in key order, as the text column says
    best = {r[0]: r[4] for r in frontier_rows}
    assert store.best_at(12).tolist() == [sum(1 << (int(c) - 1) for c in best[k]) for k in keys]
    assert store.best_at(12).dtype == np.uint8 and store.best_at(10).tolist() == []
    # rows keep their best moves, derived or searched: entries_at is all three columns
    assert [a.tolist() for a in store.entries_at(11)] == [[derived_row[0]], [2], [0b10]]
    assert store.entries_at(12).keys.tolist() == keys
    assert store.keys_at(10).tolist() == []
    assert list(store.count_by_ply().items()) == [(11, 1), (12, 3)]
    assert store.row_counts() == {11: 1, 12: 3} and store.segment_at(12) is None
    assert store.storage_by_ply() == {11: (0, 0, 1), 12: (0, 0, 3)}
    assert not store.is_sealed(12)


def test_mark_complete_and_meta(store):
    store.mark_complete(12)
    store.mark_complete(10)
    store.mark_complete(12)
    assert store.complete_plies() == [10, 12]
    assert json.loads(store.meta()["complete_plies"]) == [10, 12]
    store.set_meta(ply="12", note="x")
    store.set_meta(ply="13")
    meta = store.meta()
    assert meta["ply"] == "13" and meta["note"] == "x" and meta["root"] == SMALL_ROOT


def test_reopening_keeps_rows_and_metadata(tmp_path, frontier_rows):
    path = str(tmp_path / "again.db")
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    store.insert_new(as_rows(frontier_rows))
    store.mark_complete(12)
    store.close()
    before = table(path)
    # the mirror image of the root has the same canonical key: the same book
    for root in (SMALL_ROOT, "44444455"):
        again = BookStore(path, root, Position.from_moves(root).canonical_key)
        assert again.meta()["root"] == SMALL_ROOT and again.complete_plies() == [12]
        assert again.keys_at(12).tolist() == [r[0] for r in before]
        again.close()
    assert table(path) == before


# -- closing -------------------------------------------------------------------


def test_close_leaves_one_file_in_delete_mode(tmp_path, frontier_rows, derived_row):
    path = str(tmp_path / "closing.db")
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    store.insert_new(as_rows(frontier_rows))
    store.upsert(as_rows([derived_row]))
    store.mark_complete(12)
    assert journal_mode(path) == "wal"  # while the writer is open
    assert os.path.exists(path + "-wal")
    store.close()
    assert journal_mode(path) == "delete"
    assert not os.path.exists(path + "-wal") and not os.path.exists(path + "-shm")
    assert sorted(os.listdir(tmp_path)) == ["closing.db"]
    assert len(table(path)) == 4  # every committed row was folded into the file


# -- refusing what is not this book -------------------------------------------


def test_a_book_from_another_root_is_refused(small_book_copy):
    before = entries(small_book_copy)
    assert len(before) == 753
    other = "4444443"
    with pytest.raises(IncompatibleBookError, match="root '44444433', not '4444443'") as info:
        BookStore(small_book_copy, other, Position.from_moves(other).canonical_key)
    assert repr(small_book_copy) in str(info.value) and isinstance(info.value, ValueError)
    assert entries(small_book_copy) == before


@pytest.mark.parametrize("kind", ["book from another root", "foreign SQLite database"])
def test_a_refused_file_is_left_byte_for_byte_unchanged(small_book_copy, tmp_path, kind):
    if kind == "foreign SQLite database":
        path = str(tmp_path / "someone_elses.db")
        run_sql(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        error = NotABookError
    else:
        path, error = small_book_copy, IncompatibleBookError
    before = Path(path).read_bytes()
    with pytest.raises(error):
        BookStore(path, "4444443", Position.from_moves("4444443").canonical_key)
    assert journal_mode(path) == "delete"
    assert Path(path).read_bytes() == before


def test_files_that_are_not_books_are_refused(tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("hello\n")
    with pytest.raises(NotABookError, match="not a SQLite file") as info:
        BookStore(str(text_file), SMALL_ROOT, ROOT_KEY)
    assert repr(str(text_file)) in str(info.value)
    assert text_file.read_text() == "hello\n"
    with pytest.raises(NotABookError, match="is a directory"):
        BookStore(str(tmp_path), SMALL_ROOT, ROOT_KEY)
    foreign = str(tmp_path / "foreign.db")
    run_sql(foreign, "CREATE TABLE notes (id INTEGER PRIMARY KEY)")
    with pytest.raises(NotABookError, match="no book tables"):
        BookStore(foreign, SMALL_ROOT, ROOT_KEY)
    with closing(sqlite3.connect(foreign)) as conn:
        assert [t for (t,) in conn.execute("SELECT name FROM sqlite_master")] == ["notes"]


def test_schema_and_board_size_are_checked(small_book_copy):
    # Changed as another c4book would have written them: checksums and all.
    run_sql(
        small_book_copy, "UPDATE meta SET value = '7' WHERE name = 'schema_version'", stamped=True
    )
    with pytest.raises(SchemaMismatchError, match="schema version '7'"):
        BookStore(small_book_copy, SMALL_ROOT, ROOT_KEY)
    for old in ("1", "2", "3", "4", "5"):
        run_sql(
            small_book_copy,
            f"UPDATE meta SET value = '{old}' WHERE name = 'schema_version'",
            stamped=True,
        )
        with pytest.raises(
            SchemaMismatchError,
            match=f"schema version {old}; this c4book reads "
            f"version {SCHEMA_VERSION}: convert it in place with "
            f"'c4book upgrade --db {small_book_copy}'",
        ):
            BookStore(small_book_copy, SMALL_ROOT, ROOT_KEY)
    run_sql(
        small_book_copy,
        f"UPDATE meta SET value = '{SCHEMA_VERSION}' WHERE name = 'schema_version'",
        "UPDATE meta SET value = '5' WHERE name = 'height'",
        stamped=True,
    )
    with pytest.raises(BookSizeError, match="7x5 board, not 7x6") as info:
        BookStore(small_book_copy, SMALL_ROOT, ROOT_KEY)
    assert isinstance(info.value, IncompatibleBookError) and isinstance(info.value, BoardSizeError)


def test_a_damaged_file_is_refused(small_book_copy):
    damage_middle_page(small_book_copy, b"\x00\xff")
    with pytest.raises(CorruptBookError) as info:
        BookStore(small_book_copy, SMALL_ROOT, ROOT_KEY)
    assert repr(small_book_copy) in str(info.value)


@pytest.mark.parametrize("db", ["", ":memory:", "sqlite://", "sqlite:///:memory:"])
def test_a_book_is_never_written_in_memory(db):
    """It would be lost at close: a build there searched for nothing and said it succeeded."""
    from solver.errors import ArgumentError

    with pytest.raises(ArgumentError, match="is a database in memory"):
        BookStore(db, SMALL_ROOT, ROOT_KEY)


def test_a_root_key_that_is_not_its_root_s_is_named_damage_not_another_root(small_book_copy):
    with pytest.raises(
        CorruptBookError,
        match=r"its meta's root key '\d+' is not the key of its "
        r"root '44444433' \(12345\)",
    ):
        BookStore(small_book_copy, SMALL_ROOT, 12345)


def test_a_damaged_row_or_meta_value_is_refused_by_every_read(tmp_path, frontier_rows):
    path = str(tmp_path / "built.db")  # a build stopped with three frontier rows written
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    store.insert_new(as_rows(frontier_rows))
    store.close()
    first = min(r[0] for r in frontier_rows)
    run_sql(path, f"UPDATE positions SET score = score + 2 WHERE key = {first}")
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    try:
        damaged = f"ply 12 is damaged: its row of key {first} fails its checksum"
        for read in (
            lambda: store.entries_at(12),
            lambda: store.keys_at(12),
            lambda: store.keys_at(12, first, first + 1),
            lambda: store.pack_rows(12),
            lambda: store.seal(12, store.entries_at(12)),
        ):
            with pytest.raises(CorruptBookError, match=damaged):
                read()
        assert store.keys_at(12, first + 1).tolist() == sorted(r[0] for r in frontier_rows)[1:]
    finally:
        store.close()
    with pytest.raises(CorruptBookError, match=damaged):
        Book.open(path)
    # a meta value: every reader names it
    run_sql(path, "UPDATE meta SET value = '[9]' WHERE name = 'complete_plies'")
    named = "its meta 'complete_plies' \\(value '\\[9\\]'\\) fails its checksum"
    for read in (lambda: Book.open(path), lambda: BookStore(path, SMALL_ROOT, ROOT_KEY)):
        with pytest.raises(CorruptBookError, match=named):
            read()


def test_a_meta_write_never_takes_a_damaged_value_in(tmp_path):
    path = str(tmp_path / "meta.db")
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    try:
        run_sql(path, "UPDATE meta SET value = '9' WHERE name = 'ply'")
        for write in (
            lambda: store.set_meta(note="x"),
            lambda: store.mark_complete(12),
            lambda: store.insert_new(
                Rows(12, np.array([3], np.uint64), np.array([1], np.int8), np.array([1], np.uint8)),
                2.0,
            ),
        ):
            with pytest.raises(CorruptBookError, match="its meta 'ply' \\(value '9'\\) fails"):
                write()
        assert table(path) == []  # the rows' transaction went with it
    finally:
        store.close()


# -- a new book that fails leaves nothing ---------------------------------------

CREATE_UNDER_LIMIT = """
import os, resource, signal, sys
from bookgen.book.format.errors import BookError
from bookgen.book.write.store import BookStore

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # writes past the limit fail with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]),) * 2)
try:
    BookStore(sys.argv[1], "44444433", int(sys.argv[3])).close()
except BookError as error:
    print(error, file=sys.stderr)
    sys.exit(1)
"""


def test_a_new_book_that_cannot_be_written_leaves_nothing(tmp_path):
    # A real full disk, as far as SQLite can tell: the process may not write past a size.
    import subprocess
    import sys

    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]
        ),
    }
    outcomes = []
    for limit in range(0, 128 * 1024, 4096):  # a page a step: SQLite writes whole pages
        path = tmp_path / f"limited-{limit}.db"
        done = subprocess.run(
            [sys.executable, "-c", CREATE_UNDER_LIMIT, str(path), str(limit), str(ROOT_KEY)],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(path.name))
        if done.returncode == 0:  # room enough: a whole book, which opens
            with Book.open(str(path)) as book:
                assert book.info.root == SMALL_ROOT and len(book) == 0
            outcomes.append("book")
            break
        assert done.returncode == 1 and left == [], (limit, left, done.stderr)
        assert done.stderr.count("\n") == 1 and "cannot write a book at" in done.stderr, done.stderr
        outcomes.append("nothing")
    assert outcomes[0] == "nothing" and outcomes[-1] == "book" and len(outcomes) > 2, outcomes


# -- journal mode ----------------------------------------------------------------


def test_a_book_held_open_through_a_write_leaves_one_file_in_delete_mode(tmp_path, frontier_rows):
    path = str(tmp_path / "held.db")
    BookStore(path, SMALL_ROOT, ROOT_KEY).close()
    with Book.open(path) as held:  # a server, a notebook: open the whole time
        store = BookStore(path, SMALL_ROOT, ROOT_KEY)
        store.insert_new(as_rows(frontier_rows))
        assert journal_mode(path) == "wal"
        store.close()
        assert journal_mode(path) == "delete"
        assert os.listdir(tmp_path) == ["held.db"]
        assert len(held) == 0  # it answers from what it read at open
        with Book.open(path) as later:  # a later reader makes no file beside it
            assert later.get("444444331112").score == -2
        assert os.listdir(tmp_path) == ["held.db"]


def test_an_unwritable_place_is_a_book_error(tmp_path):
    path = str(tmp_path / "no" / "such" / "dir.db")
    with pytest.raises(BookError, match="cannot write a book at") as info:
        BookStore(path, SMALL_ROOT, ROOT_KEY)
    assert repr(path) in str(info.value)
    assert not (tmp_path / "no").exists()


def test_check_sqlite_file(tmp_path, small_book_path):
    missing = str(tmp_path / "missing.db")
    assert check_sqlite_file(missing, must_exist=False) is False
    with pytest.raises(BookError, match="no book at"):
        check_sqlite_file(missing, must_exist=True)
    assert check_sqlite_file(small_book_path, must_exist=True) is True
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert check_sqlite_file(str(empty), must_exist=False) is False
    with pytest.raises(NotABookError, match="empty file"):
        check_sqlite_file(str(empty), must_exist=True)


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="no /proc/self/mem here")
def test_a_file_the_system_will_not_read_is_a_book_error():
    from bookgen.book.format.errors import BookReadError

    with pytest.raises(BookReadError, match="cannot read '/proc/self/mem'") as raised:
        check_sqlite_file("/proc/self/mem", must_exist=True)
    assert isinstance(raised.value, BookError) and isinstance(raised.value, OSError)


@pytest.mark.parametrize(
    "url, words",
    [
        ("nosuch://x", "'nosuch://x' is not a database URL c4book can open"),
        ("postgresql://x:y:z", "'postgresql://x:y:z' is not a database URL"),
        ("://", "is not a database URL"),
    ],
)
def test_a_url_sqlalchemy_cannot_open_is_a_book_error(url, words):
    with pytest.raises(BookError, match=re.escape(words)):
        make_engine(url)


def test_a_dialect_without_its_driver_is_a_book_error_naming_the_driver():
    import importlib.util

    if importlib.util.find_spec("MySQLdb") is not None:
        pytest.skip("MySQLdb is installed here")
    with pytest.raises(
        BookError, match="needs the database driver 'MySQLdb', which is not installed"
    ):
        make_engine("mysql://user@localhost/book")


def test_a_server_that_does_not_answer_is_a_book_error_saying_so():
    url = "postgresql://127.0.0.1:1/book"  # port 1: nothing listens there
    try:
        engine = make_engine(url)
    except BookError as error:
        pytest.skip(f"no PostgreSQL driver here: {error}")
    try:
        with pytest.raises(BookError, match=re.escape(f"cannot connect to {url!r}: ")):
            read_meta(engine, url)
    finally:
        engine.dispose()


# -- the read-only engine ------------------------------------------------------


def test_the_read_only_engine_reads_and_cannot_write(small_book_copy):
    before = Path(small_book_copy).read_bytes()
    engine = make_engine(small_book_copy, readonly=True)
    try:
        meta = read_meta(engine, small_book_copy)
        assert meta["root"] == SMALL_ROOT and json.loads(meta["complete_plies"]) == [
            8,
            9,
            10,
            11,
            12,
        ]
        with engine.connect() as conn:
            assert conn.execute(text("SELECT sum(positions) FROM sealed_plies")).scalar_one() == 753
            assert conn.execute(text("SELECT count(*) FROM positions")).scalar_one() == 0
        for statement in (
            "DELETE FROM positions",
            "DELETE FROM segments",
            "UPDATE meta SET value = 'x' WHERE name = 'root'",
            "INSERT INTO meta (name, value) VALUES ('x', 'y')",
        ):
            with pytest.raises(OperationalError, match="readonly"), engine.begin() as conn:
                conn.execute(text(statement))
    finally:
        engine.dispose()
    assert Path(small_book_copy).read_bytes() == before
    assert journal_mode(small_book_copy) == "delete"


# -- schema --------------------------------------------------------------------


def test_pack_matches_the_derived_bytes_of_the_root(small_book_path, small_rows_book_path):
    # A sealed ply keeps scores only: its move scores are derived at read time, packed
    # as pack_scores packs them (the root is the ply's only position) ...
    engine = make_engine(small_book_path, readonly=True)
    try:
        with engine.connect() as conn:
            plies = Plies.read(conn, (8, 9, 10, 11, 12), small_book_path)
    finally:
        engine.dispose()
    assert plies.segments[8].keys.tolist() == [ROOT_KEY] and 8 in plies.parents
    assert plies.moves_of(8) == b"@PB\x00P@B" == pack_scores([0, 16, 2, None, 16, 0, 2])
    # ... and as rows of schema version 2 stored them
    with closing(sqlite3.connect(f"file:{small_rows_book_path}?mode=ro", uri=True)) as conn:
        (packed,) = conn.execute(
            "SELECT move_scores FROM positions WHERE key = ?", (ROOT_KEY,)
        ).fetchone()
    assert packed == plies.moves_of(8)
    assert unpack_scores(packed) == [0, 16, 2, None, 16, 0, 2]


@pytest.mark.parametrize(
    "scores",
    [
        [0, 16, 2, None, 16, 0, 2],
        [None, None, None, None, None, None, -1],
        [-18, -15, -2, -1, 1, 15, 18],
        [21, -21, 0, None, 0, -21, 21],
    ],
)
def test_pack_unpack_round_trip(scores):
    packed = pack_scores(scores)
    assert isinstance(packed, bytes) and len(packed) == 7
    assert [b == 0 for b in packed] == [s is None for s in scores]
    assert unpack_scores(packed) == scores


def test_unpack_none_is_none():
    assert unpack_scores(None) is None


def test_tables_and_errors():
    tables = (Entry, Meta, SegmentRow, SealedRow, ChunkRow)
    assert [table.__tablename__ for table in tables] == [
        "positions",
        "meta",
        "segments",
        "sealed_plies",
        "block_chunks",
    ]
    assert repr(Entry(key=1234, ply=4, score=-2)) == "Entry(key=1234, ply=4, score=-2)"
    assert repr(SegmentRow(ply=12, count=574)) == "SegmentRow(ply=12, count=574)"
    assert repr(SealedRow(ply=12, positions=574)) == "SealedRow(ply=12, positions=574)"
    assert repr(ChunkRow(id=chunk_id(12, 3))) == "ChunkRow(ply=12, number=3)"
    for error in (NotABookError, CorruptBookError, SchemaMismatchError, IncompatibleBookError):
        assert issubclass(error, BookError) and issubclass(error, ValueError)


def test_many_rows_in_one_write(store):
    # more rows than are bound at a time, and a rest shorter than one statement
    count = 2 * BIND_CHUNK + ROWS_PER_STATEMENT + 7
    keys = np.arange(1, count + 1, dtype=np.uint64) * 3
    scores = (np.arange(count) % 11 - 5).astype(np.int8)
    best = (np.arange(count) % 127 + 1).astype(np.uint8)
    nodes = np.arange(count, dtype=np.int64) * 1_000_003
    assert store.insert_new(Rows(12, keys, scores, best, nodes=nodes)) == count
    assert store.count_by_ply() == {12: count}
    assert np.array_equal(store.keys_at(12), keys)
    stored = table(store.db)
    assert stored[0] == (3, 12, -5, -1, "1", None, 0)
    assert stored[-1] == (
        3 * count,
        12,
        int(scores[-1]),
        int(np.sign(scores[-1])),
        BEST_TEXT[best[-1]],
        None,
        int(nodes[-1]),
    )
    assert [r[2] for r in stored] == scores.tolist() and [r[6] for r in stored] == nodes.tolist()

    # derived rows over every other stored key: replaced, the rest inserted
    derived = keys[::2].copy()
    derived[-1] = 3 * count + 1
    packed = np.tile(
        np.frombuffer(pack_scores([1, -2, None, 3, 0, None, None]), np.uint8), (len(derived), 1)
    )  # full columns last: trailing zero bytes
    store.upsert(
        Rows(
            12,
            derived,
            np.full(len(derived), 3, np.int8),
            np.full(len(derived), 0b1000, np.uint8),
            packed,
        )
    )
    after = {r[0]: r for r in table(store.db)}
    assert len(after) == count + 1
    for k in (int(derived[0]), int(derived[len(derived) // 2]), int(derived[-1])):
        assert after[k][2:6] == (3, 1, "4", pack_scores([1, -2, None, 3, 0, None, None]))
    assert after[int(keys[1])] == stored[1]
    assert after[int(derived[0])][6] == 0  # a derived row has no nodes
    read = dict(zip(*(a.tolist() for a in store.scores_at(12)), strict=True))  # read back, checked
    assert [read[k] for k in derived.tolist()] == [3] * len(derived)


def test_a_failed_write_is_a_book_error_and_writes_nothing(small_book_copy, frontier_rows):
    before = Path(small_book_copy).read_bytes()
    reader = BookStore(small_book_copy, SMALL_ROOT, ROOT_KEY, readonly=True)
    try:
        with pytest.raises(BookError, match=r"cannot write to .*readonly"):
            reader.insert_new(as_rows(frontier_rows))
    finally:
        reader.close()
    assert Path(small_book_copy).read_bytes() == before


# -- sealing and packing -------------------------------------------------------


def bits(text: str) -> int:
    return sum(1 << (int(c) - 1) for c in text)


def as_lists(segment: Segment) -> list:
    return [None if a is None else a.tolist() for a in segment]


def segments(path: str) -> dict[int, list[bytes]]:
    """Each ply's segment blobs, in the order they were written."""
    found: dict[int, list[bytes]] = {}
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        for ply, data in conn.execute("SELECT ply, data FROM segments ORDER BY id"):
            found.setdefault(ply, []).append(data)
    return found


def test_seal_makes_a_ply_blocks_in_place_of_its_rows(store, frontier_rows, derived_row):
    store.insert_new(as_rows(frontier_rows))
    store.upsert(as_rows([derived_row]))
    rows = store.entries_at(12)
    expected = sorted(frontier_rows)
    assert as_lists(rows) == [
        [r[0] for r in expected],
        [r[2] for r in expected],
        [bits(r[4]) for r in expected],
    ]
    store.seal(12, rows)
    assert store.row_counts() == {11: 1} and store.count_by_ply() == {11: 1, 12: 3}
    assert store.is_sealed(12) and not store.is_sealed(11) and store.complete_plies() == [12]
    blob = sealed_bytes(store.db)[12]
    assert segments(store.db) == {} and store.storage_by_ply() == {
        11: (0, 0, 1),
        12: (3, len(blob), 0),
    }
    for read in (store.entries_at(12), store.segment_at(12)):
        assert as_lists(read) == as_lists(rows)
    # the deepest ply keeps its best moves: no ply below gives them
    assert store.best_at(12).tolist() == [bits(r[4]) for r in expected]
    assert store.scores_at(12)[1].tolist() == [r[2] for r in expected]
    assert store.keys_at(12, int(rows.keys[1])).tolist() == rows.keys[1:].tolist()
    assert store.keys_at(12, 0, int(rows.keys[1])).tolist() == rows.keys[:1].tolist()
    store.seal(12, store.entries_at(12))  # again: the same blocks
    assert sealed_bytes(store.db)[12] == blob and table(store.db) == [derived_row]


def test_sealing_a_ply_drops_the_best_moves_of_the_complete_ply_above(
    store, frontier_rows, derived_row
):
    store.upsert(as_rows([derived_row]))
    assert store.pack_rows(11) == 1  # not complete: packed as one more segment
    assert store.row_counts() == {} and store.best_at(11).tolist() == [0b10]
    store.mark_complete(11)
    assert store.pack_rows(11) == 0 and store.is_sealed(11)  # complete: sealed whole
    assert store.best_at(11).tolist() == [0b10]  # the deepest ply keeps its best moves
    store.insert_new(as_rows(frontier_rows))
    assert store.pack_rows(12) == 3 and not store.is_sealed(12)  # ply 12 not complete yet
    assert store.best_at(11).tolist() == [0b10]
    store.mark_complete(12)
    # ply 12 is one segment, not sealed: sealing it drops ply 11's best moves
    assert not store.is_sealed(12) and store.pack_rows(12) == 0
    assert store.is_sealed(12) and store.is_sealed(11) and segments(store.db) == {}
    assert store.best_at(11) is None and store.scores_at(11)[1].tolist() == [2]
    assert store.entries_at(11).best is None and store.best_at(12) is not None
    assert len(store.entries_above(12).keys) == 1  # parents' bounds read from the blocks


def test_packing_a_ply_being_built_adds_a_segment_and_keeps_the_older_ones(store, frontier_rows):
    expected = sorted(frontier_rows)
    whole = [[r[0] for r in expected], [r[2] for r in expected], [bits(r[4]) for r in expected]]
    store.insert_new(as_rows([expected[1]]))
    assert store.pack_rows(12) == 1
    (older,) = segments(store.db)[12]
    assert store.row_counts() == {} and store.count_by_ply() == {12: 1}
    store.insert_new(as_rows([expected[0], expected[2]]))
    assert store.row_counts() == {12: 2} and store.storage_by_ply() == {12: (1, len(older), 2)}
    assert as_lists(store.entries_at(12)) == whole  # packed and rows together, in key order
    assert store.keys_at(12).tolist() == whole[0]
    assert store.pack_rows(12) == 2 and store.pack_rows(12) == 0
    assert segments(store.db)[12][0] == older and len(segments(store.db)[12]) == 2
    assert store.row_counts() == {} and store.count_by_ply() == {12: 3}
    assert not store.is_sealed(12) and as_lists(store.entries_at(12)) == whole
    store.mark_complete(12)
    assert store.pack_rows(12) == 0 and store.is_sealed(12)  # complete: blocks
    assert segments(store.db) == {} and as_lists(store.entries_at(12)) == whole


def test_a_seal_that_fails_halfway_leaves_the_rows_and_the_answers(small_rows_book_path, tmp_path):
    from sqlalchemy.exc import DatabaseError

    path = str(tmp_path / "rows.db")
    Path(path).write_bytes(Path(small_rows_book_path).read_bytes())
    before = entries(path)
    asked = [m for ply in range(8, SMALL_PLY + 1) for m in book_moves(path, ply)]
    asked += ["".join(str(8 - int(c)) for c in m) for m in asked]
    with Book.open(path) as book:
        answers = book.get_many(asked)
    assert len(before) == 753 and None not in answers
    # The seal deletes the ply's rows, then inserts its blocks: the insert fails.
    run_sql(
        path,
        "CREATE TRIGGER no_blocks BEFORE INSERT ON block_chunks "
        "BEGIN SELECT RAISE(ABORT, 'no room for a block'); END",
    )
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    try:
        with pytest.raises(DatabaseError, match="no room for a block"):
            store.pack_rows(SMALL_PLY)
        with pytest.raises(DatabaseError, match="no room for a block"):
            store.seal(8, store.entries_at(8))
        assert store.row_counts() == {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
    finally:
        store.close()
    assert entries(path) == before and segments(path) == {} and sealed_bytes(path) == {}
    assert len(table(path)) == 753  # every row still there, as it was
    with Book.open(path) as book:
        assert book.get_many(asked) == answers
    run_sql(path, "DROP TRIGGER no_blocks")
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    try:
        assert sum(store.pack_rows(ply) for ply in range(8, SMALL_PLY + 1)) == 753
        assert all(store.is_sealed(ply) for ply in range(8, SMALL_PLY + 1))
    finally:
        store.close()
    assert table(path) == [] and [e[:3] for e in entries(path)] == [e[:3] for e in before]
    with Book.open(path) as book:
        assert book.get_many(asked) == answers


# -- other boards ----------------------------------------------------------------


def test_keys_above_2_63_store_and_read_back(tmp_path):
    """8x7 keys take all 64 bits; SQL integers are signed 64-bit, so the store shifts them
    into SQL's range in order (``key_offset``), and every read gives the key back."""
    board = Board(8, 7)
    # Late positions (cheap to solve) whose columns 1 and 8 are full with stones of the
    # player to move: both orientations' keys are then at least 2**63.  (The first three
    # such of random_endgames(400, seed=8, min_empty=7, max_empty=7): 27 s to find again.)
    positions = [
        Position.from_moves(moves, board=board)
        for moves in (
            "6112675386286746185322288732427166831757753183155",
            "7667483751822431857778788221136162228631451665535",
            "4536185581811884723533163558218353427476226761442",
        )
    ]
    keys = sorted({p.canonical_key for p in positions})
    ply = 49
    assert len(keys) == 3 and {p.ply for p in positions} == {ply}
    assert all(k >= 1 << 63 for k in keys) and key_offset(board) == 1 << 63
    solver = Solver(board=board, table_log2=18)
    solved = {p.canonical_key: solve_position(solver, p) for p in positions}
    db = str(tmp_path / "wide.db")
    store = BookStore(db, "", 0, board=board)
    try:
        rows = Rows(
            ply,
            np.array(keys, np.uint64),
            np.array([solved[k].score for k in keys], np.int8),
            np.array([solved[k].best for k in keys], np.uint8),
            nodes=np.array([solved[k].nodes for k in keys], np.int64),
        )
        assert store.insert_new(rows) == len(keys)
        assert store.insert_new(rows) == len(keys)  # idempotent: the keys are found again
        assert store.row_counts() == {ply: len(keys)}
        assert store.keys_at(ply).tolist() == keys
        assert store.keys_at(ply, keys[0] + 1).tolist() == keys[1:]
        entries = store.entries_at(ply)
        assert entries.keys.tolist() == keys
        assert entries.scores.tolist() == [solved[k].score for k in keys]
        assert entries.best.tolist() == [solved[k].best for k in keys]
        with closing(sqlite3.connect(db)) as conn:  # as SQL holds them: signed, in order
            stored = [k for (k,) in conn.execute("SELECT key FROM positions ORDER BY key")]
        assert stored == [k - (1 << 63) for k in keys]
        store.set_meta(ply=str(ply))
    finally:
        store.close()
    with Book.open(db) as book:  # rows of a ply being built: asked through SQL
        assert book.board is board and book.info.width == 8
        for p in positions:
            entry = book.get(p)
            assert entry.score == solved[p.canonical_key].score, p.moves
    store = BookStore(db, "", 0, board=board)
    try:
        assert store.pack_rows(ply) == len(keys)
        assert store.entries_at(ply).keys.tolist() == keys
    finally:
        store.close()
    with Book.open(db) as book:  # and packed into a segment
        assert [book.get(p).score for p in positions] == [
            solved[p.canonical_key].score for p in positions
        ]


def test_a_book_keeps_its_board_and_refuses_another(tmp_path):
    db = str(tmp_path / "six.db")
    BookStore(db, "", 0, board=Board(6, 5)).close()
    assert read_meta(make_engine(db, readonly=True), db)["width"] == "6"
    with pytest.raises(BookSizeError, match=r"6x5 board, not 7x6"):
        BookStore(db, "", 0)
    with pytest.raises(BookSizeError, match=r"6x5 board, not 8x7"):
        Book.open(db, board="8x7")
    assert Book.open(db, board="6x5").board is Board(6, 5)
    run_sql(db, "UPDATE meta SET value = 'x' WHERE name = 'width'", stamped=True)
    with pytest.raises(CorruptBookError, match="records no usable board size"):
        Book.open(db)
    run_sql(db, "UPDATE meta SET value = '10' WHERE name = 'width'", stamped=True)
    with pytest.raises(CorruptBookError, match="records no usable board size"):
        Book.open(db)


def test_best_moves_of_width_9_take_two_bytes():
    segment = Segment(
        np.array([1, 5, 9], np.uint64),
        np.array([3, 0, -2], np.int8),
        np.array([0b100000001, 0b10, 0b111111111], np.uint16),
    )
    back = unpack(pack(segment), 12, Board(9, 4))
    assert back.best.dtype == np.uint16 and back.best.tolist() == segment.best.tolist()
    narrow = segment._replace(best=np.array([1, 2, 4], np.uint8))
    assert pack(narrow)[5] == 1  # one byte a position, as every 7x6 book has it
    assert unpack(pack(narrow), 12).best.dtype == np.uint8


# -- a book past 64 bits (issue 52) ---------------------------------------------------


def test_a_book_past_64_bits_round_trips_as_rows_segments_and_blocks(wide_plies, tmp_path):
    board = Board(8, 8)
    db = str(tmp_path / "wide.db")
    store = BookStore(
        db, WIDE_ROOT, Position.from_moves(WIDE_ROOT, board).canonical_key, board=board
    )
    last = wide_plies[WIDE_PLY]
    keys = ints_of(last.keys)
    assert len({k >> 64 for k in keys}) > 1  # keys of several high words
    assert store.insert_new(Rows(WIDE_PLY, last.keys, last.scores, last.best)) == len(keys)
    assert store.insert_new(Rows(WIDE_PLY, last.keys[:3], last.scores[:3], last.best[:3])) == 3
    assert store.row_counts() == {WIDE_PLY: len(keys)}
    assert ints_of(store.keys_at(WIDE_PLY)) == keys
    assert ints_of(store.keys_at(WIDE_PLY, keys[3], keys[9])) == keys[3:9]
    assert store.keys_at(WIDE_PLY, keys[-1] + 1).shape == (0, 2)
    as_rows = store.entries_at(WIDE_PLY)
    assert np.array_equal(as_rows.keys, last.keys) and np.array_equal(as_rows.best, last.best)
    # Packed into a segment, then sealed in blocks: the same entries each time.
    assert store.pack_rows(WIDE_PLY) == len(keys) and store.row_counts() == {}
    assert ints_of(store.keys_at(WIDE_PLY, keys[3], keys[9])) == keys[3:9]
    for ply in sorted(wide_plies, reverse=True):
        store.seal(ply, store.entries_at(ply) if ply == WIDE_PLY else wide_plies[ply])
    assert store.complete_plies() == sorted(wide_plies)
    for ply, segment in wide_plies.items():
        assert store.is_sealed(ply)
        back = store.entries_at(ply)
        assert np.array_equal(back.keys, segment.keys) and np.array_equal(
            back.scores, segment.scores
        )
        assert (back.best is None) == (ply != WIDE_PLY)
    assert np.array_equal(store.entries_at(WIDE_PLY).best, last.best)
    assert store.in_old_codec() == set()  # version 1 is this board's codec: not sealed again
    assert store.pack_rows(WIDE_PLY) == 0
    store.close()
    assert read_meta(make_engine(db, readonly=True), db)["root_key"] == str(
        Position.from_moves(WIDE_ROOT, board).canonical_key
    )


def test_a_book_past_64_bits_keys_its_rows_by_16_byte_blobs(wide_plies, tmp_path):
    board = Board(8, 8)
    db = str(tmp_path / "wide.db")
    store = BookStore(
        db, WIDE_ROOT, Position.from_moves(WIDE_ROOT, board).canonical_key, board=board
    )
    last = wide_plies[WIDE_PLY]
    store.insert_new(Rows(WIDE_PLY, last.keys[::-1], last.scores[::-1], last.best[::-1]))
    store.close()
    assert key_offset(board) == 0
    with closing(sqlite3.connect(db)) as conn:
        (schema,) = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'positions'"
        ).fetchone()
        assert '"key" BLOB NOT NULL' in schema and schema.rstrip().endswith("WITHOUT ROWID")
        stored = conn.execute(
            "SELECT typeof(key), length(key), key FROM positions ORDER BY key"
        ).fetchall()
    assert {(kind, size) for kind, size, _ in stored} == {("blob", 16)}
    assert [int.from_bytes(k, "big") for _, _, k in stored] == ints_of(last.keys)


def test_a_damaged_block_of_a_book_past_64_bits_is_refused(wide_book_path, tmp_path):
    db = str(tmp_path / "damaged.db")
    Path(db).write_bytes(Path(wide_book_path).read_bytes())
    with closing(sqlite3.connect(db)) as conn:
        (data,) = conn.execute(
            "SELECT data FROM block_chunks WHERE id = ?", (chunk_id(WIDE_PLY, 0),)
        ).fetchone()
        changed = bytearray(data)
        changed[len(changed) // 2] ^= 0x08
        conn.execute(
            "UPDATE block_chunks SET data = ? WHERE id = ?", (bytes(changed), chunk_id(WIDE_PLY, 0))
        )
        conn.commit()
    store = BookStore(
        db,
        WIDE_ROOT,
        Position.from_moves(WIDE_ROOT, Board(8, 8)).canonical_key,
        board=Board(8, 8),
        readonly=True,
    )
    with pytest.raises(
        CorruptBookError, match=rf"ply {WIDE_PLY} is damaged: its block 0 fails its checksum"
    ):
        store.entries_at(WIDE_PLY)
    store.close()

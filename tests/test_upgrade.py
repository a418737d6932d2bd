"""``c4book upgrade`` and ``c4book pack``: a version-1 book (with its moves column), a
version-2 book (a row per position), a version-3 book (segments, rows without
checksums) or a version-4 book (a segment a ply) becomes this version in place, each row
and the meta given their checksums and each ply sealed in blocks, nothing re-solved; an
interrupted upgrade leaves a valid book and running it again finishes it; refusals leave
the file as it was.

Older books are made from the real small book: its plies written back as rows
(``conftest.unseal``), then, for version 1, with each row's moves beside its key; or, for
version 4, as one segment a ply.
"""

import os
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    PLY10,
    SMALL_PLY,
    SMALL_ROOT,
    book_moves,
    c4book_command,
    edit_ply,
    entries,
    free_pages,
    open_store,
    reseal_wide,
    run_sql,
    running,
    sealed_bytes,
    segment_rows,
    stamp,
    stored_plies,
    unseal,
)

from bookgen import Book, CorruptBookError, SchemaMismatchError
from bookgen.book.format.block_index import VERSION
from bookgen.book.format.names import SCHEMA_VERSION
from bookgen.book.format.rows import Rows
from bookgen.book.format.scores import pack_scores
from bookgen.book.format.sealed import codec_versions
from bookgen.book.write.store import BookStore
from bookgen.book.write.upgrade import Packed, pack, upgrade
from bookgen.builder.verify import verify
from solver import Position
from solver.bitboard import STANDARD
from solver.packed import moves_of_key

# The positions table as schema version 1 wrote it.
VERSION_1_TABLE = """CREATE TABLE positions (
    "key" INTEGER NOT NULL, ply SMALLINT NOT NULL, moves VARCHAR(42) NOT NULL,
    score SMALLINT NOT NULL, wdl SMALLINT NOT NULL, best_moves VARCHAR(7) NOT NULL,
    move_scores BLOB, nodes BIGINT NOT NULL, PRIMARY KEY ("key"))"""
COLUMNS = "key, ply, score, wdl, best_moves, move_scores, nodes"


PLIES = range(8, SMALL_PLY + 1)


def rows(path: str) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(f"SELECT {COLUMNS} FROM positions ORDER BY key").fetchall()


def tables(path: str) -> list[str]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return sorted(
            n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        )


def all_sealed(path: str) -> bool:
    store = open_store(path)
    try:
        return store.row_counts() == {} and all(store.is_sealed(p) for p in PLIES)
    finally:
        store.close()


def answers(path: str) -> list:
    """The book's answer for every stored position in both orientations, and a few misses."""
    asked = [m for ply in PLIES for m in book_moves(path, ply)]
    asked += ["".join(str(8 - int(c)) for c in m) for m in asked] + ["", "4453"]
    with Book.open(path) as book:
        return [book.get(m) for m in asked]


@pytest.fixture(scope="module")
def small_answers(small_book_path) -> list:
    return answers(small_book_path)


@pytest.fixture
def version_2_book(small_book_copy) -> str:
    """The small book as version 2 stored it: a row per position, no segments table."""
    unseal(small_book_copy, version=2)
    return small_book_copy


@pytest.fixture
def version_3_book(small_book_copy) -> str:
    """The small book as version 3 could hold it: a row per position (an upgrade from
    version 2 interrupted before it packed anything), no checksums."""
    unseal(small_book_copy, version=3)
    return small_book_copy


@pytest.fixture
def version_1_book(version_2_book) -> str:
    """The small book as version 1 stored it: each row's moves beside its key."""
    small_book_copy = version_2_book
    with closing(sqlite3.connect(small_book_copy)) as conn:
        conn.execute("ALTER TABLE positions RENAME TO v2")
        conn.execute(VERSION_1_TABLE)
        conn.executemany(
            f"INSERT INTO positions (moves, {COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (moves_of_key(row[0], SMALL_ROOT), *row)
                for row in conn.execute(f"SELECT {COLUMNS} FROM v2")
            ],
        )
        conn.execute("DROP TABLE v2")
        conn.execute("UPDATE meta SET value = '1' WHERE name = 'schema_version'")
        conn.commit()
    return small_book_copy


@pytest.fixture
def version_4_book(small_book_copy) -> str:
    """The small book as version 4 stored it: each ply one segment, as today's blocks hold
    it (the deepest with its best moves), no tables of blocks."""
    from bookgen.book.format.segment import pack as pack_segment

    plies = stored_plies(small_book_copy)
    with closing(sqlite3.connect(small_book_copy)) as conn:
        conn.executemany(
            "INSERT INTO segments (ply, count, data) VALUES (?, ?, ?)",
            [(ply, len(s.keys), pack_segment(s)) for ply, s in sorted(plies.items())],
        )
        conn.execute("DROP TABLE sealed_plies")
        conn.execute("DROP TABLE block_chunks")
        conn.execute("UPDATE meta SET value = '4' WHERE name = 'schema_version'")
        conn.commit()
    stamp(small_book_copy)
    with closing(sqlite3.connect(small_book_copy)) as conn:
        conn.execute("VACUUM")
    return small_book_copy


@pytest.fixture
def version_5_book(small_book_copy) -> str:
    """The small book as version 5 stored it: its plies in blocks of codec version 1, which
    keep what the positions' stones say."""
    for ply in PLIES:
        edit_ply(small_book_copy, ply, lambda segment: segment)  # sealed again, in codec 1
    run_sql(
        small_book_copy, "UPDATE meta SET value = '5' WHERE name = 'schema_version'", stamped=True
    )
    assert set(codecs(small_book_copy).values()) == {1}
    return small_book_copy


def codecs(path: str) -> dict[int, int]:
    """Each sealed ply's codec version."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return codec_versions(conn)


def test_the_older_books_are_what_those_versions_wrote(version_1_book, small_book_path):
    assert tables(version_1_book) == ["meta", "positions"]
    stored = rows(version_1_book)
    assert len(stored) == 753 and [r[:3] for r in stored] == [
        e[:3] for e in entries(small_book_path)
    ]
    # derived rows with their move scores, the last ply without: as version 2 wrote them
    assert all((r[5] is None) == (r[1] == SMALL_PLY) for r in stored)
    assert {r[0]: r for r in stored}[Position.from_moves(SMALL_ROOT).key][2:6] == (
        16,
        1,
        "25",
        pack_scores([0, 16, 2, None, 16, 0, 2]),
    )


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_an_older_book_upgrades_in_place_and_verifies(
    request, small_book_path, small_answers, version
):
    version_1_book = request.getfixturevalue(f"version_{version}_book")  # the name it had
    with pytest.raises(SchemaMismatchError, match="c4book upgrade"):
        Book.open(version_1_book)
    assert upgrade(version_1_book) == version
    assert entries(version_1_book) == entries(small_book_path)
    assert rows(version_1_book) == [] and all_sealed(version_1_book)
    assert set(codecs(version_1_book).values()) == {VERSION}
    assert tables(version_1_book) == [
        "block_chunks",
        "meta",
        "positions",
        "sealed_plies",
        "segments",
    ]
    # each ply sealed as the build seals it, byte for byte
    assert sealed_bytes(version_1_book) == sealed_bytes(small_book_path)
    assert all(segment_rows(version_1_book, ply) == [] for ply in PLIES)
    with Book.open(version_1_book) as book:
        assert book.info.schema_version == SCHEMA_VERSION
        assert book.get("444444331112").score == -2
    assert answers(version_1_book) == small_answers
    assert verify(version_1_book, sample=5, progress=False).ok
    before = Path(version_1_book).read_bytes()
    assert upgrade(Path(version_1_book)) is None  # already current: nothing to do (a Path too)
    assert Path(version_1_book).read_bytes() == before
    assert not Path(version_1_book + "-wal").exists()


def test_the_command_line(version_1_book, small_answers):
    command = [*c4book_command(), "upgrade", "--db", version_1_book]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert (
        first.stdout
        == f"{version_1_book}: upgraded from book schema version 1 to {SCHEMA_VERSION}\n"
    )
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert (
        again.stdout
        == f"{version_1_book}: already book schema version {SCHEMA_VERSION}; nothing to do\n"
    )
    assert answers(version_1_book) == small_answers


def test_the_command_line_on_a_version_2_book(version_2_book, small_answers):
    command = [*c4book_command(), "upgrade", "--db", version_2_book]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert (
        first.stdout
        == f"{version_2_book}: upgraded from book schema version 2 to {SCHEMA_VERSION}\n"
    )
    assert all_sealed(version_2_book) and answers(version_2_book) == small_answers
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (
        again.stdout
        == f"{version_2_book}: already book schema version {SCHEMA_VERSION}; nothing to do\n"
    )
    assert answers(version_2_book) == small_answers


def finish_upgrade(path: str) -> list[str]:
    """Drop the trigger that stopped an upgrade of ``path`` and run ``c4book upgrade`` again:
    it finishes, and says so; the command, to run once more."""
    run_sql(path, "DROP TRIGGER stop_at_10")
    command = [*c4book_command(), "upgrade", "--db", path]
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        f"{path}: book schema version {SCHEMA_VERSION}; packed or sealed what was left\n"
    )
    return command


def test_an_interrupted_upgrade_leaves_a_valid_book_and_running_it_again_finishes(
    version_2_book, small_book_path, small_answers
):
    from sqlalchemy.exc import DatabaseError

    # The upgrade packs a ply at a time, shallowest first, each in one transaction that
    # deletes the ply's rows: stop it there at ply 10.
    run_sql(
        version_2_book,
        "CREATE TRIGGER stop_at_10 BEFORE DELETE ON positions "
        "WHEN OLD.ply = 10 BEGIN SELECT RAISE(ABORT, 'interrupted'); END",
    )
    with pytest.raises(DatabaseError, match="interrupted"):
        upgrade(version_2_book)
    store = open_store(version_2_book)  # a book of this version: it opens
    try:
        assert store.row_counts() == {10: 36, 11: 136, 12: 574}
        assert store.is_sealed(8) and store.is_sealed(9)
        assert store.best_at(8) is None and store.best_at(9) is not None
    finally:
        store.close()
    assert [e[:3] for e in entries(version_2_book)] == [e[:3] for e in entries(small_book_path)]
    assert answers(version_2_book) == small_answers
    assert verify(version_2_book, sample=5, progress=False).ok

    command = finish_upgrade(version_2_book)
    assert entries(version_2_book) == entries(small_book_path) and all_sealed(version_2_book)
    assert answers(version_2_book) == small_answers
    third = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (
        third.stdout
        == f"{version_2_book}: already book schema version {SCHEMA_VERSION}; nothing to do\n"
    )


def test_an_interrupted_upgrade_from_version_5_finishes_when_run_again(
    version_5_book, small_book_path, small_answers
):
    from sqlalchemy.exc import DatabaseError

    # Each ply is sealed again in a transaction of its own, shallowest first: stop at 10.
    run_sql(
        version_5_book,
        "CREATE TRIGGER stop_at_10 BEFORE DELETE ON sealed_plies "
        "WHEN OLD.ply = 10 BEGIN SELECT RAISE(ABORT, 'interrupted'); END",
    )
    with pytest.raises(DatabaseError, match="interrupted"):
        upgrade(version_5_book)
    assert codecs(version_5_book) == {ply: 1 if ply >= 10 else VERSION for ply in PLIES}
    assert answers(version_5_book) == small_answers  # both codecs read, one book
    assert verify(version_5_book, sample=5, progress=False).ok
    finish_upgrade(version_5_book)
    assert set(codecs(version_5_book).values()) == {VERSION}
    assert sealed_bytes(version_5_book) == sealed_bytes(small_book_path)
    assert answers(version_5_book) == small_answers


def test_a_ply_its_stones_contradict_is_not_sealed_and_is_one_line(version_5_book):
    # A wrong book (a win at once stored as a draw), which codec 1 kept: the upgrade
    # refuses to seal it again, names the ply, and leaves it as it was.
    from bookgen.book.format.implied import implied

    def wrong(segment):
        said = implied(segment.keys, SMALL_PLY, STANDARD)
        at = int(np.argmax(said.score_known & (said.scores > 0)))
        scores = segment.scores.copy()
        scores[at] = 0
        return segment._replace(scores=scores)

    edit_ply(version_5_book, SMALL_PLY, wrong)
    before = sealed_bytes(version_5_book)[SMALL_PLY]
    command = [*c4book_command(), "upgrade", "--db", version_5_book]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"c4book upgrade: error: '{version_5_book}': ply {SMALL_PLY} ")
    assert "cannot be sealed" in line and "but its stones say score" in line
    assert sealed_bytes(version_5_book)[SMALL_PLY] == before


@pytest.mark.parametrize(
    "book, change, error, message",
    [
        # moves that do not match their key stop the upgrade
        (
            "version_1_book",
            "UPDATE positions SET moves = '44444455' WHERE ply = 8",
            CorruptBookError,
            "stores moves '44444455', which do not replay",
        ),
        # an unknown version is refused
        (
            "small_book_copy",
            "UPDATE meta SET value = '7' WHERE name = 'schema_version'",
            SchemaMismatchError,
            "version '7', which c4book upgrade cannot",
        ),
    ],
)
def test_a_refused_upgrade_leaves_the_file_byte_for_byte(request, book, change, error, message):
    path = request.getfixturevalue(book)
    run_sql(path, change, stamped=True)  # checksums and all: only the change is wrong
    before = Path(path).read_bytes()
    with pytest.raises(error, match=message):
        upgrade(path)
    assert Path(path).read_bytes() == before


def test_a_current_sealed_book_has_nothing_to_do(small_book_copy, small_answers):
    before = Path(small_book_copy).read_bytes()
    assert upgrade(small_book_copy) is None
    assert Path(small_book_copy).read_bytes() == before
    assert answers(small_book_copy) == small_answers


# -- c4book pack --------------------------------------------------------------------


def partly_rows(path: str, complete: list[int]) -> None:
    """Ply 12 as a build leaves it: part of it one segment, the rest still rows; ply 11 a
    segment with its best moves (the ply below is not sealed yet), and ``complete`` as the
    meta says."""
    from bookgen.book.format.scores import BEST_TEXT
    from bookgen.book.format.segment import pack as pack_segment
    from bookgen.builder.derive import derive

    plies = stored_plies(path)
    twelve, eleven = plies[SMALL_PLY], plies[11]
    assert twelve.best is not None  # a leaf ply keeps its best moves
    eleven = eleven._replace(best=derive(eleven.keys, twelve.keys, twelve.scores).best)
    half = twelve._replace(keys=twelve.keys[::2], scores=twelve.scores[::2], best=twelve.best[::2])
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("DELETE FROM sealed_plies WHERE ply >= 11")
        conn.execute(f"DELETE FROM block_chunks WHERE id >= {11 << 32}")
        conn.executemany(
            "INSERT INTO segments (ply, count, data) VALUES (?, ?, ?)",
            [
                (11, len(eleven.keys), pack_segment(eleven)),
                (SMALL_PLY, len(half.keys), pack_segment(half)),
            ],
        )
        conn.executemany(
            "INSERT INTO positions (key, ply, score, wdl, best_moves, nodes, checksum) "
            "VALUES (?, ?, ?, ?, ?, 0, 0)",
            [
                (k, SMALL_PLY, s, (s > 0) - (s < 0), BEST_TEXT[b])
                for k, s, b in zip(
                    twelve.keys[1::2].tolist(),
                    twelve.scores[1::2].tolist(),
                    twelve.best[1::2].tolist(),
                    strict=True,
                )
            ],
        )
        conn.execute("UPDATE meta SET value = ? WHERE name = 'complete_plies'", (str(complete),))
        conn.commit()
    stamp(path)  # as the build writes them: with their checksums


def test_pack_gives_a_ply_being_built_one_more_segment(small_book_copy, small_book_path):
    partly_rows(small_book_copy, [8, 9, 10, 11])
    before = answers(small_book_copy)
    kept = segment_rows(small_book_copy, SMALL_PLY)
    assert len(kept) == 1 and kept[0][1] == 287 and len(rows(small_book_copy)) == 287
    command = [*c4book_command(), "pack", "--db", small_book_copy]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"{small_book_copy}: packed 287 rows\n"
    after = segment_rows(small_book_copy, SMALL_PLY)
    assert len(after) == 2 and after[0] == kept[0] and after[1][1] == 287  # older one kept
    assert rows(small_book_copy) == [] and not all_sealed(small_book_copy)
    assert answers(small_book_copy) == before
    assert [e[:3] for e in entries(small_book_copy)] == [e[:3] for e in entries(small_book_path)]
    before = Path(small_book_copy).read_bytes()
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.stdout == f"{small_book_copy}: no rows to pack\n"
    assert Path(small_book_copy).read_bytes() == before  # nothing written


def test_pack_seals_a_complete_ply_kept_partly_as_rows(
    small_book_copy, small_book_path, small_answers
):
    partly_rows(small_book_copy, [8, 9, 10, 11, 12])
    assert answers(small_book_copy) == small_answers  # rows or packed: the same answers
    assert pack(small_book_copy) == Packed(rows=287, freed=0)  # (from Python: the same)
    # ply 12 in blocks again, and ply 11 without best moves: as the build seals them
    assert all_sealed(small_book_copy)
    assert sealed_bytes(small_book_copy) == sealed_bytes(small_book_path)
    assert answers(small_book_copy) == small_answers
    assert verify(small_book_copy, sample=5, progress=False).ok


def test_pack_gives_back_the_pages_of_rows_already_dropped(small_book_copy, small_answers):
    # A build that seals its last ply drops the ply's rows; their pages stay in the file
    # until given back.  Here a table of 200 KB stands in for them.
    with closing(sqlite3.connect(small_book_copy)) as conn:
        conn.execute("CREATE TABLE scratch (data BLOB)")
        conn.executemany("INSERT INTO scratch VALUES (?)", [(bytes(1000),)] * 200)
        conn.commit()
        conn.execute("DROP TABLE scratch")
        conn.commit()
    free, page = free_pages(small_book_copy)
    assert free > 0
    size = os.path.getsize(small_book_copy)
    command = [*c4book_command(), "pack", "--db", small_book_copy]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout == (
        f"{small_book_copy}: no rows to pack; gave back {free * page:,} bytes of free pages\n"
    )
    assert os.path.getsize(small_book_copy) == size - free * page
    assert answers(small_book_copy) == small_answers
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.stdout == f"{small_book_copy}: no rows to pack\n"


@pytest.mark.slow  # 15-22 s; test_lock refuses a second writer by default
def test_pack_beside_a_running_build_is_refused_and_loses_nothing(tmp_path):
    # Once, a pack run beside a build dropped the rows the build wrote between the pack's
    # read and its delete.  Now the pack is refused while the build holds the book.
    import signal
    import time

    path = str(tmp_path / "growing.db")
    build = subprocess.Popen(
        [
            *c4book_command(),
            "build",
            "--root",
            SMALL_ROOT,
            "--ply",
            "11",
            "--db",
            path,
            "--no-progress",
            "--table-log2",
            "18",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait for the build's first written rows
            try:
                if rows(path):
                    break
            except sqlite3.Error:
                pass
            time.sleep(0.2)
        else:
            pytest.fail("the build wrote no rows in 120 s")
        pack = subprocess.run(
            [*c4book_command(), "pack", "--db", path], capture_output=True, text=True, timeout=60
        )
        still = len(rows(path))
    finally:
        build.send_signal(signal.SIGINT)
        _out, err = build.communicate(timeout=120)
    assert build.returncode in (0, 130), err
    assert pack.returncode == 1 and pack.stdout == ""
    assert pack.stderr.count("\n") == 1 and "Traceback" not in pack.stderr
    assert f"{path!r} is being built by another c4book build (host " in pack.stderr
    assert f"pid {build.pid}, since " in pack.stderr
    assert still > 0  # the refused pack left the rows where they were
    solved = len(entries(path))  # what the build wrote, as it stopped
    again = subprocess.run(
        [*c4book_command(), "pack", "--db", path], capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr
    assert rows(path) == [] and len(entries(path)) == solved
    assert verify(path, sample=3, progress=False).ok


@pytest.mark.parametrize(
    "command, signum, status",
    [
        ("pack", signal.SIGTERM, 143),
        pytest.param("pack", signal.SIGHUP, 129, marks=pytest.mark.slow),
        pytest.param("upgrade", signal.SIGTERM, 143, marks=pytest.mark.slow),
    ],
)
def test_a_pack_stopped_by_a_signal_says_so_and_loses_nothing(tmp_path, command, signum, status):
    # Once, SIGTERM ended a pack at once, without a word; it unwinds as Ctrl-C does now.
    # (``upgrade`` of a book of this version packs its rows.)
    path = str(tmp_path / "part.db")
    frontier = stored_plies(str(PLY10))[10]
    store = BookStore(path, "", Position().canonical_key)
    try:
        for first in range(0, 200_000, 50_000):
            some = slice(first, first + 50_000)
            store.insert_new(
                Rows(10, frontier.keys[some], frontier.scores[some], frontier.best[some])
            )
    finally:
        store.close()
    with running(
        [*c4book_command(), command, "--db", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        while process.poll() is None and not packing(
            path, command
        ):  # inside the pack: stop it there
            time.sleep(0.01)
        process.send_signal(signum)
        out, errors = process.communicate(timeout=120)
    name = signal.Signals(signum).name
    # (The pack may have ended before the signal came, on a loaded machine: then it is whole.)
    if process.returncode != 0:
        assert (process.returncode, out) == (status, "")
        assert errors == f"c4book {command}: interrupted by {name}\n"
    with Book.open(path, compiled=False) as book:  # whole: every row or segment checked
        assert book.count_by_ply() == {10: 200_000}
    again = subprocess.run(
        [*c4book_command(), "pack", "--db", path], capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout in (f"{path}: packed 200,000 rows\n", f"{path}: no rows to pack\n")


def packing(path: str, command: str) -> bool:
    """Whether a ``c4book COMMAND`` holds the book's write lock."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            found = conn.execute(
                "SELECT value FROM meta WHERE name = 'build_lock_command'"
            ).fetchone()
    except sqlite3.Error:
        return False
    return found is not None and f'"{command}"' in found[0]


def test_a_book_past_64_bits_in_codec_version_1_is_sealed_again_in_version_2(
    wide_book_path, tmp_path
):
    db = str(tmp_path / "wide.db")
    Path(db).write_bytes(Path(wide_book_path).read_bytes())
    reseal_wide(db, 1)
    assert set(codecs(db).values()) == {1}
    with Book.open(wide_book_path) as book:
        before = list(book.entries())
    with Book.open(db) as book:  # read as it is: the schema is current
        assert list(book.entries()) == before
    assert upgrade(db) == SCHEMA_VERSION  # its plies sealed again
    assert set(codecs(db).values()) == {VERSION}
    assert sealed_bytes(db) == sealed_bytes(wide_book_path)  # as a build seals them
    with Book.open(db) as book:
        assert list(book.entries()) == before
    assert upgrade(db) is None

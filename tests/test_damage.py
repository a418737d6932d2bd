"""A damaged book is refused, never answered from, and every fault is one line (issue 41, 17-20).

The books are real: a build stopped with part of its frontier written as rows, by
the writer the build uses (``BookStore.insert_new``), and the small book with every
ply kept as rows.  Damage is real too: one bit of the file flipped, where SQLite
keeps a row or a meta value (the cells of the table's leaf pages, found by reading
the file's b-tree as ``https://www.sqlite.org/fileformat.html`` lays it out).  After
each flip, every reader either refuses the book with one ``CorruptBookError`` or
answers exactly as it did before: the rare flips that change nothing a reader
reads (the unused slot for a row's key in its record, a meta row's rowid, a
ply's chunk size where a chunk holds all its blocks) are counted, and are few.
"""

import os
import random
import re
import shutil
import sqlite3
import struct
import subprocess
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from conftest import SMALL_PLY, SMALL_ROOT, book_moves, c4book_command, run_sql, stored_plies

from bookgen import Book, CorruptBookError
from bookgen.book.format.rows import Rows
from bookgen.book.write.store import BookStore
from solver import Position

ROOT_KEY = Position.from_moves(SMALL_ROOT).canonical_key
BATCH = 150  # frontier positions a batch, as the build cuts them in key order


def varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``at``: ``(value, offset after it)``."""
    value = 0
    for i in range(9):
        byte = data[at + i]
        if i == 8:
            return value << 8 | byte, at + 9
        value = value << 7 | byte & 0x7F
        if byte < 0x80:
            return value, at + i + 1
    raise AssertionError("unreachable")


def cells(path: str, table: str) -> list[tuple[int, int]]:
    """``(start, end)`` in the file of each row of ``table``: the cells of its b-tree's
    leaf pages (a row of a small table never overflows its page)."""
    data = Path(path).read_bytes()
    page_size = struct.unpack(">H", data[16:18])[0]
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        ((root,),) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,))
    found, pages = [], [root]
    while pages:
        page = pages.pop()
        base = (page - 1) * page_size
        header = base + (100 if page == 1 else 0)
        kind, count = data[header], struct.unpack(">H", data[header + 3 : header + 5])[0]
        pointers = header + (12 if kind == 5 else 8)
        for i in range(count):
            cell = base + struct.unpack(">H", data[pointers + 2 * i : pointers + 2 * i + 2])[0]
            if kind == 5:  # an interior page: its children
                pages.append(struct.unpack(">I", data[cell : cell + 4])[0])
            else:
                assert kind == 13, kind  # a leaf: payload size, rowid, payload
                size, at = varint(data, cell)
                _, at = varint(data, at)
                found.append((cell, at + size))
        if kind == 5:
            pages.append(struct.unpack(">I", data[header + 8 : header + 12])[0])
    return sorted(found)


@pytest.fixture(scope="module")
def stopped_build(small_book_path, tmp_path_factory) -> str:
    """A build of the small book's frontier stopped after three of its four batches: rows
    of ply 12 written as the build writes them, with node counts and search time, and
    nothing complete."""
    path = str(tmp_path_factory.mktemp("stopped") / "stopped.db")
    keys, scores, best = stored_plies(small_book_path)[SMALL_PLY]
    store = BookStore(path, SMALL_ROOT, ROOT_KEY)
    try:
        for start in range(0, 3 * BATCH, BATCH):
            part = slice(start, start + BATCH)
            nodes = (keys[part] % np.uint64(99_991)).astype(np.int64) * 37 + 5
            store.insert_new(
                Rows(SMALL_PLY, keys[part], scores[part], best[part], nodes=nodes), 1.25
            )
    finally:
        store.close()
    return path


class Readers:
    """What every reader makes of a book: the answers of ``Book`` (every stored position,
    its mirror image and a miss), and the entries and keys the store gives ``verify``,
    ``pack``, sealing and the build's resume.  ``read`` is each reader's outcome."""

    def __init__(self, path: str):
        moves = [m for ply in stored_plies(path) for m in book_moves(path, ply)]
        self.asked = moves + ["".join(str(8 - int(c)) for c in m) for m in moves] + ["4453"]
        self.clean = self.read(path)
        assert "error" not in self.clean

    def read(self, path: str) -> tuple:
        return self._book(path), self._store(path)

    def _book(self, path: str):
        try:
            with Book.open(path) as book:
                return (
                    book.get_many(self.asked),
                    [book.get(m) for m in self.asked[::7]],
                    book.info,
                    book.count_by_ply(),
                    book.score_counts(),
                )
        except CorruptBookError as error:  # either outcome may be right: compared by the caller
            assert "\n" not in str(error)  # noqa: PT017 - and a refusal is one line
            return "error"

    @staticmethod
    def _store(path: str):
        try:
            store = BookStore(path, SMALL_ROOT, ROOT_KEY, readonly=True)
            try:
                plies = sorted(store.count_by_ply())
                return (
                    [[a.tolist() for a in store.entries_at(p) if a is not None] for p in plies],
                    [store.keys_at(p).tolist() for p in plies],
                    store.meta(),
                )
            finally:
                store.close()
        except CorruptBookError as error:  # either outcome may be right: compared by the caller
            assert "\n" not in str(error)  # noqa: PT017 - and a refusal is one line
            return "error"


def flip_every_byte(
    path: str, ranges: list[tuple[int, int]], tmp_path: Path, seed: int, step: int = 1
) -> dict[str, int]:
    """Flip one bit (drawn with ``seed``) of each byte in ``ranges`` (of every ``step``-th),
    one copy at a time, and read each copy: every reader must refuse it or answer as from
    the clean book.  How many copies every reader refused, and how many changed nothing."""
    readers, clean = Readers(path), Path(path).read_bytes()
    rng = random.Random(seed)
    copy = str(tmp_path / "flipped.db")
    outcomes = {"refused": 0, "unchanged": 0}
    for start, end in ranges:
        for at in range(start, end, step):
            damaged = bytearray(clean)
            damaged[at] ^= 1 << rng.randrange(8)
            Path(copy).write_bytes(damaged)
            book, store = readers.read(copy)
            for reader, read, expected in (
                ("Book", book, readers.clean[0]),
                ("BookStore", store, readers.clean[1]),
            ):
                assert read in ("error", expected), f"{reader} answered wrongly: byte {at}"
            outcomes["refused" if (book, store) == ("error", "error") else "unchanged"] += 1
            for name in os.listdir(tmp_path):  # what SQLite may leave beside a copy
                if name != "flipped.db":
                    os.remove(tmp_path / name)
    return outcomes


# -- one flipped bit ---------------------------------------------------------------------


def test_a_flipped_bit_in_a_stopped_build_s_rows_or_meta_is_refused_never_answered(
    stopped_build, tmp_path
):
    rows, meta = cells(stopped_build, "positions"), cells(stopped_build, "meta")
    assert len(rows) == 3 * BATCH and len(meta) == 10
    # every byte of every tenth row, and of every meta row and value
    outcomes = flip_every_byte(stopped_build, rows[::10] + meta, tmp_path, seed=41)
    total = sum(e - s for s, e in rows[::10] + meta)
    assert sum(outcomes.values()) == total > 1500
    assert outcomes["unchanged"] < total // 100, outcomes


def test_a_flipped_bit_in_derived_rows_with_move_scores_is_refused(small_rows_book_path, tmp_path):
    rows = cells(small_rows_book_path, "positions")
    assert len(rows) == 753
    outcomes = flip_every_byte(small_rows_book_path, rows[::60], tmp_path, seed=17)
    assert outcomes["unchanged"] < sum(outcomes.values()) // 100, outcomes


def test_a_flipped_bit_in_a_sealed_book_s_blocks_or_indexes_is_refused(small_book_path, tmp_path):
    # Each block has its CRC, started from its index entry's; each index and dictionary
    # theirs; and an index's row (ply, positions) and a chunk's row id must describe them.
    indexes, chunks = cells(small_book_path, "sealed_plies"), cells(small_book_path, "block_chunks")
    assert len(indexes) == len(chunks) == 5
    outcomes = flip_every_byte(small_book_path, indexes + chunks, tmp_path, seed=3, step=4)
    assert outcomes["unchanged"] < sum(outcomes.values()) // 50, outcomes


def test_a_flipped_bit_in_the_sqlite_header_is_one_line_or_changes_nothing(
    small_book_path, tmp_path
):
    from bookgen import BookError

    clean, copy = Path(small_book_path).read_bytes(), tmp_path / "header.db"
    with Book.open(small_book_path) as book:
        asked = book_moves(small_book_path, SMALL_PLY)
        expected = book.get_many(asked)
    refused = 0
    for at in range(100):
        for bit in range(8):
            damaged = bytearray(clean)
            damaged[at] ^= 1 << bit
            copy.write_bytes(damaged)
            try:
                with Book.open(str(copy)) as book:
                    assert book.get_many(asked) == expected, (at, bit)
            except BookError as error:  # not SQLite, or damaged: one line either way
                assert "\n" not in str(error), (at, bit, str(error))  # noqa: PT017 - a read may pass
                refused += 1
    assert refused > 100


# -- every command: one line ---------------------------------------------------------------


def c4book(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*c4book_command(), *args], capture_output=True, text=True, timeout=300)


def one_line_error(result: subprocess.CompletedProcess, command: str, *words: str) -> None:
    """``command`` failed with one line naming what is wrong, and no traceback."""
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.startswith(f"c4book {command}: error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def stored_rows(path: str) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return (
            conn.execute("SELECT * FROM positions ORDER BY key").fetchall()
            + conn.execute("SELECT * FROM sealed_plies").fetchall()
            + conn.execute("SELECT * FROM block_chunks").fetchall()
        )


@pytest.mark.parametrize("field", ["score", "best moves"])
def test_a_damaged_row_is_refused_by_every_command(stopped_build, tmp_path, field):
    # As the issue found them: a score 12 -> 14, a best move 6 -> 7 (one bit each).
    path = str(tmp_path / "damaged.db")
    shutil.copy(stopped_build, path)
    with closing(sqlite3.connect(path)) as conn:
        (key,) = conn.execute(
            "SELECT min(key) FROM positions WHERE best_moves LIKE '%6%' "
            "AND best_moves NOT LIKE '%7%'"
        ).fetchone()
    change = (
        "score = score + 2" if field == "score" else "best_moves = replace(best_moves, '6', '7')"
    )
    run_sql(path, f"UPDATE positions SET {change} WHERE key = {key}")
    moves = book_moves(stopped_build, SMALL_PLY)[book_keys_of(stopped_build).index(key)]
    damaged = f"{path!r}: ply {SMALL_PLY} is damaged: its row of key {key} fails its checksum"
    before = stored_rows(path)
    commands = [["move", moves, "--json"], ["pack"]]
    if field == "score":  # the readers are the same for either field
        commands += [
            ["query", moves],
            ["stats"],
            ["build", "--root", SMALL_ROOT, "--ply", str(SMALL_PLY), "--no-progress"],
        ]
        checked = c4book("verify", "--db", path, "--sample", "5", "--no-progress")
        assert checked.returncode == 1 and "FAILED" in checked.stdout, checked.stdout
        assert damaged in checked.stdout
    for command in commands:
        one_line_error(c4book(*command, "--db", path), command[0], damaged)
    assert stored_rows(path) == before  # nothing packed, sealed or added over it


def book_keys_of(path: str) -> list[int]:
    """The keys ``book_moves(path, SMALL_PLY)`` names, in its order."""
    return [Position.from_moves(m).canonical_key for m in book_moves(path, SMALL_PLY)]


def test_a_flipped_meta_byte_is_refused_by_every_command(small_book_copy):
    # As the issue found it: complete_plies "[0," -> "[1," (here "[8," -> "[9,").
    run_sql(
        small_book_copy,
        "UPDATE meta SET value = replace(value, '[8,', '[9,') WHERE name = 'complete_plies'",
    )
    named = "its meta 'complete_plies' (value '[9, 9, 10, 11, 12]') fails its checksum"
    for command in (
        ["move", SMALL_ROOT],
        ["query", SMALL_ROOT],
        ["stats"],
        ["pack"],
        ["verify", "--sample", "0"],
        ["upgrade"],
        ["build", "--root", SMALL_ROOT, "--ply", str(SMALL_PLY)],
    ):
        one_line_error(c4book(*command, "--db", small_book_copy), command[0], named)


def test_an_index_s_row_that_does_not_describe_it_is_refused(small_book_copy):
    # The index's checksum covers the index, not its row: a row whose ply or count changed.
    run_sql(small_book_copy, f"UPDATE sealed_plies SET positions = 575 WHERE ply = {SMALL_PLY}")
    with pytest.raises(
        CorruptBookError,
        match=f"ply {SMALL_PLY} is damaged: its index holds 574 positions, its row 575",
    ):
        Book.open(small_book_copy)
    run_sql(
        small_book_copy,
        f"UPDATE sealed_plies SET ply = {SMALL_PLY + 1}, positions = 574 WHERE ply = {SMALL_PLY}",
    )
    with pytest.raises(  # (one block: its keys are not read at open)
        CorruptBookError, match=f"ply {SMALL_PLY} is damaged: the meta lists it complete"
    ):
        Book.open(small_book_copy)


@pytest.mark.parametrize("ply", [SMALL_PLY - 1, SMALL_PLY])
def test_a_deleted_sealed_ply_is_refused_at_open(small_book_copy, ply):
    # Issue 48: the ply read as absent, and the book answered less than its meta says.
    run_sql(small_book_copy, f"DELETE FROM sealed_plies WHERE ply = {ply}")
    words = f"{small_book_copy!r}: ply {ply} is damaged: the meta lists it complete, but the "
    words += "book holds none"
    with pytest.raises(CorruptBookError, match=re.escape(words)):
        Book.open(small_book_copy)
    one_line_error(c4book("query", SMALL_ROOT, "--db", small_book_copy), "query", words)


def a_segment_beside_the_blocks(path: str) -> None:
    from bookgen.book.format.segment import pack

    (segment,) = [s for p, s in stored_plies(path).items() if p == SMALL_PLY]
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(
            "INSERT INTO segments (ply, count, data) VALUES (?, ?, ?)",
            (SMALL_PLY, len(segment.keys), pack(segment)),
        )
        conn.commit()


@pytest.mark.parametrize(
    "damage, words",
    [
        # a meta value no reader can parse, under a checksum that matches it (a faulty writer)
        (
            lambda p: run_sql(
                p, "UPDATE meta SET value = '[8, 9' WHERE name = 'complete_plies'", stamped=True
            ),
            "its meta 'complete_plies' is '[8, 9', which c4book",
        ),
        (
            lambda p: run_sql(p, "UPDATE meta SET value = '1x' WHERE name = 'ply'", stamped=True),
            "its meta 'ply' is '1x', which c4book cannot read",
        ),
        (
            lambda p: run_sql(
                p, "UPDATE meta SET value = '4e' WHERE name = 'root_key'", stamped=True
            ),
            "root '44444433' and root key '4e' do not agree",
        ),
        (
            lambda p: run_sql(p, "UPDATE meta SET name = 'roos' WHERE name = 'root'", stamped=True),
            "its meta's root None and root key",
        ),
        # the same names and values without a checksum that matches them: damage
        (
            lambda p: run_sql(p, "UPDATE meta SET name = 'roos' WHERE name = 'root'"),
            "its meta 'roos' (value '44444433') is not in the meta's checksum",
        ),
        (
            lambda p: run_sql(p, "UPDATE meta SET value = '{' WHERE name = 'meta_checksum'"),
            "its meta has no readable checksum ('meta_checksum' is '{')",
        ),
        # a sealed ply with a segment beside its blocks
        (a_segment_beside_the_blocks, f"ply {SMALL_PLY} is damaged: it is sealed, yet it holds"),
    ],
    ids=[
        "unreadable plies",
        "unreadable ply",
        "root key",
        "no root",
        "renamed root",
        "meta checksum",
        "a segment beside the blocks",
    ],
)
def test_damage_is_one_line_on_the_command_line(small_book_copy, damage, words):
    damage(small_book_copy)
    one_line_error(c4book("query", SMALL_ROOT, "--db", small_book_copy), "query", words)
    checked = c4book("verify", "--sample", "0", "--no-progress", "--db", small_book_copy)
    if checked.stdout:  # a damaged ply is one of the problems verify reports
        assert checked.returncode == 1 and "FAILED" in checked.stdout, checked.stdout
        assert words in checked.stdout and checked.stderr == ""
    else:
        one_line_error(checked, "verify", words)


def test_a_damaged_sqlite_header_is_one_line(small_book_copy):
    # A header flip that SQLite's quick_check reports over several lines.
    clean = Path(small_book_copy).read_bytes()
    for at in range(16, 100):
        damaged = bytearray(clean)
        damaged[at] ^= 1
        Path(small_book_copy).write_bytes(damaged)
        with closing(sqlite3.connect(f"file:{small_book_copy}?mode=ro", uri=True)) as conn:
            try:
                report = conn.execute("PRAGMA quick_check").fetchone()[0]
            except sqlite3.DatabaseError:
                continue
        if "\n" in report:
            break
    else:
        pytest.fail("no header flip gave SQLite's report of several lines")
    one_line_error(
        c4book("query", SMALL_ROOT, "--db", small_book_copy),
        "query",
        "is a damaged SQLite file: *** in database main *** ",
    )


def test_damage_sqlite_finds_after_open_is_one_line(stopped_build, tmp_path):
    path = str(tmp_path / "later.db")
    shutil.copy(stopped_build, path)
    store = BookStore(path, SMALL_ROOT, ROOT_KEY, readonly=True)  # checked, and open
    try:
        page_size = struct.unpack(">H", Path(path).read_bytes()[16:18])[0]
        pages = {start // page_size for start, _ in cells(path, "positions")}
        with open(path, "r+b") as handle:  # the rows' pages overwritten meanwhile
            for page in pages:
                handle.seek(page * page_size)
                handle.write(b"\xde\xad\xbe\xef" * (page_size // 4))
        malformed = f"{path!r} is damaged or not a database: database disk image is malformed"
        for read in (lambda: store.entries_at(SMALL_PLY), store.count_by_ply):
            with pytest.raises(CorruptBookError) as info:
                read()
            assert str(info.value) == malformed
    finally:
        store.close()


# -- a new book that fails leaves nothing ------------------------------------------------


@pytest.mark.parametrize("limit", [0, 8192])
def test_a_build_that_fills_the_disk_leaves_nothing_and_says_so(tmp_path, limit):
    import resource
    import signal

    def limited() -> None:  # writes past ``limit`` bytes fail with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    path = tmp_path / "new.db"
    result = subprocess.run(
        [
            *c4book_command(),
            "build",
            "--db",
            str(path),
            "--root",
            SMALL_ROOT,
            "--ply",
            "9",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limited,
    )
    one_line_error(result, "build", f"cannot write a book at {str(path)!r}")
    assert os.listdir(tmp_path) == []  # no 4,096-byte file, no -wal or -shm: a rerun builds

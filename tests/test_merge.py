"""``bookgen.book.write.merge`` with ``build --part``: a frontier built in parts, each into a book
of its own, merged and sealed, is the book one build makes, entry by entry; a merge is
run again harmlessly, and refuses parts that do not belong together, naming them.

A merge names a damaged part before it copies anything, counts the keys the book held
already apart from those it copied, and a signal stops it with a whole book and no
write-ahead log beside it (issue 48)."""

import itertools
import os
import re
import shutil
import signal
import sqlite3
import subprocess
from contextlib import closing

import numpy as np
import pytest
from conftest import (
    PLY10,
    SMALL_PLY,
    SMALL_ROOT,
    WIDE_PLY,
    WIDE_ROOT,
    c4book_command,
    entries,
    run_sql,
    running,
    sealed_bytes,
    stored_plies,
)

from bookgen import Book, BookError, CorruptBookError
from bookgen.book.format.errors import IncompatibleBookError
from bookgen.book.format.rows import Rows
from bookgen.book.format.scores import BEST_TEXT
from bookgen.book.write.merge import merge
from bookgen.book.write.store import BookStore
from bookgen.builder.driver import build
from solver import Board, Position

EMPTY_KEY = Position.from_moves("").canonical_key
BATCH = 50_000  # rows a transaction, as a build writes its batches


def build_part(path, part, ply=SMALL_PLY, root=SMALL_ROOT):
    return build(str(path), ply, root, progress=False, table_log2=20, part=part)


def test_three_parts_merged_and_sealed_are_the_whole_build(small_book_path, tmp_path):
    parts = [tmp_path / f"part{n}.db" for n in (1, 2, 3)]
    searched = []
    for n, path in enumerate(parts, start=1):
        summary = build_part(path, f"{n}/3")
        assert summary.exit_status == 0 and summary.part == f"{n}/3"
        assert "merge" in summary.report()  # says what to do next
        searched.append(summary.searched)
    whole = entries(small_book_path)
    frontier = sum(1 for e in whole if e[1] == SMALL_PLY)
    assert sum(searched) == frontier and max(searched) - min(searched) <= 1
    again = build_part(parts[0], "1/3")  # resumed: nothing left to search in its part
    assert again.searched == 0 and again.already_stored == searched[0]

    target = tmp_path / "merged.db"
    copied = merge(str(target), [str(p) for p in parts])
    assert [c.plies for c in copied] == [{SMALL_PLY: n} for n in searched]
    merge(str(target), [str(parts[1])])  # again: nothing changes
    sealed = build(str(target), SMALL_PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert sealed.searched == 0 and sealed.already_stored == frontier
    assert entries(str(target)) == whole


def test_a_merge_refuses_books_that_do_not_belong_together(small_book_path, tmp_path):
    part = tmp_path / "part.db"
    build_part(part, "1/2", ply=SMALL_PLY - 1)
    other_root = tmp_path / "other.db"
    build_part(other_root, "1/2", ply=8, root="4444443")
    cases = [
        (other_root, part, "of another root"),
        (small_book_path, part, f"already holds ply {SMALL_PLY - 1} whole"),
    ]
    for target, source, why in cases:
        copy = tmp_path / "target.db"
        shutil.copy(target, copy)
        with pytest.raises(IncompatibleBookError, match=why):
            merge(str(copy), [str(source)])
    sealed = tmp_path / "sealed.db"
    shutil.copy(small_book_path, sealed)
    with pytest.raises(
        IncompatibleBookError, match=f"holds ply {len(SMALL_ROOT)} whole and the target"
    ):
        merge(str(tmp_path / "new.db"), [str(part), str(sealed)])
    assert not (tmp_path / "new.db").exists()  # a failed merge leaves no book it made
    with pytest.raises(IncompatibleBookError, match="is no book"):
        merge(str(tmp_path / "new.db"), [str(tmp_path / "missing.db")])


# -- parts written as a build writes its batches: the last ply of the book to ply 10 -----------


@pytest.fixture(scope="module")
def frontier():
    """The 809,464 entries of ply 10 of the book to ply 10, with their best moves."""
    return stored_plies(str(PLY10))[10]


def write_part(path, frontier, start: int, stop: int, seconds: float = 0.0) -> str:
    """A part as ``build --part`` leaves one: the entries ``start:stop`` of ``frontier`` as
    rows of a book of its own, written by the build's writer, nothing sealed, searched in
    ``seconds``."""
    store = BookStore(str(path), "", EMPTY_KEY)
    try:
        for first in range(start, stop, BATCH):
            some = slice(first, min(first + BATCH, stop))
            store.insert_new(
                Rows(10, frontier.keys[some], frontier.scores[some], frontier.best[some]),
                search_seconds=seconds if first == start else 0.0,
            )
    finally:
        store.close()
    return str(path)


def pack(path: str) -> None:
    """Pack a part's rows into a segment, as ``c4book pack`` does."""
    store = BookStore(path, "", EMPTY_KEY)
    try:
        store.pack_rows(10)
    finally:
        store.close()


def c4book(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*c4book_command(), *args], capture_output=True, text=True, timeout=300)


def beside(path: str) -> list[str]:
    """The files in ``path``'s folder named after it: the book, and any -wal or -shm."""
    folder, name = os.path.split(path)
    return sorted(f for f in os.listdir(folder) if f.startswith(name))


def damage_a_segment(path: str) -> None:
    with closing(sqlite3.connect(path)) as conn:
        ((blob,),) = conn.execute("SELECT data FROM segments WHERE ply = 10")
        changed = bytearray(blob)
        changed[len(changed) // 2] ^= 0x55
        conn.execute("UPDATE segments SET data = ? WHERE ply = 10", (bytes(changed),))
        conn.commit()


@pytest.mark.parametrize("where", ["row", "segment"])
def test_a_damaged_part_is_named_before_any_part_is_copied(frontier, tmp_path, where):
    book = write_part(tmp_path / "book.db", frontier, 0, 1000)  # the target: it exists
    one = write_part(tmp_path / "one.db", frontier, 1000, 3000)
    bad = write_part(tmp_path / "bad.db", frontier, 3000, 5000)
    if where == "row":
        key = int(frontier.keys[4000])
        run_sql(bad, f"UPDATE positions SET score = score + 2 WHERE key = {key}")
        damage = f"its row of key {key} fails its checksum"
    else:  # a part packed, then a byte of its segment changed
        pack(bad)
        damage_a_segment(bad)
        damage = "its segment"
    before = entries(book)
    result = c4book("merge", "--db", book, one, bad)
    assert result.returncode == 1 and result.stdout == "", result.stdout  # nothing copied
    assert result.stderr.startswith(f"c4book merge: error: {bad!r}: ply 10 is damaged: {damage}")
    assert result.stderr.count("\n") == 1, result.stderr
    assert entries(book) == before and beside(book) == ["book.db"]
    new = str(tmp_path / "new.db")
    with pytest.raises(CorruptBookError, match=f"^{re.escape(repr(bad))}: ply 10 is damaged"):
        merge(new, [one, bad])
    assert not os.path.exists(new)  # a book the merge would have made is not made


def test_keys_already_stored_are_counted_apart_from_those_copied(frontier, tmp_path):
    one = write_part(tmp_path / "one.db", frontier, 0, 3000)
    two = write_part(tmp_path / "two.db", frontier, 2000, 5000)  # 1,000 keys in both
    book = str(tmp_path / "book.db")
    copied = merge(book, [one, two])
    assert [(c.plies, c.stored) for c in copied] == [
        ({10: 3000}, {10: 0}),
        ({10: 2000}, {10: 1000}),
    ]
    # Again, once a pack has moved the rows into a segment (the key's conflict SQL no longer
    # sees them: they were written twice, a damaged book), and the book into itself.
    pack(book)
    result = c4book("merge", "--db", book, two, book)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"{two}: ply 10 0 copied, 3,000 already stored\n"
        f"{book}: ply 10 0 copied, 5,000 already stored\n"
    )
    expected = sorted(
        zip(
            frontier.keys[:5000].tolist(),
            [10] * 5000,
            frontier.scores[:5000].tolist(),
            [BEST_TEXT[b] for b in frontier.best[:5000].tolist()],
            strict=True,
        )
    )
    assert entries(book) == expected and beside(book) == ["book.db"]


def test_a_part_s_search_time_joins_the_book_s_for_the_entries_copied(frontier, tmp_path):
    one = write_part(tmp_path / "one.db", frontier, 0, 3000, seconds=30.0)
    two = write_part(tmp_path / "two.db", frontier, 2000, 5000, seconds=60.0)  # 1,000 shared
    book = str(tmp_path / "book.db")
    merge(book, [one, two])
    with Book.open(book) as merged:
        assert merged.info.search_core_seconds == pytest.approx(30.0 + 60.0 * 2000 / 3000)
    merge(book, [two, one])  # again: nothing copied, no time added
    with Book.open(book) as merged:
        assert merged.info.search_core_seconds == pytest.approx(70.0)


@pytest.fixture(scope="module")
def two_parts(frontier, tmp_path_factory) -> tuple[str, str]:
    folder = tmp_path_factory.mktemp("parts")
    return (
        write_part(folder / "one.db", frontier, 0, 60_000),
        write_part(folder / "two.db", frontier, 60_000, 120_000),
    )


@pytest.mark.parametrize(
    "signum, status",
    [(signal.SIGTERM, 143), pytest.param(signal.SIGHUP, 129, marks=pytest.mark.slow)],
    ids=["SIGTERM", "SIGHUP"],
)
def test_a_merge_stopped_by_a_signal_leaves_a_whole_book_and_no_log(
    two_parts, tmp_path, signum, status
):
    one, two = two_parts
    book = str(tmp_path / "book.db")
    merging = [*c4book_command(), "merge", "--db", book, one, two]
    with running(merging, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None  # (a PIPE)
        first = process.stdout.readline()  # the first part is copied: stop it in the second
        process.send_signal(signum)
        rest, errors = process.communicate(timeout=120)
    assert first == f"{one}: ply 10 60,000 copied, 0 already stored\n"
    name = signal.Signals(signum).name
    # (The merge may have ended before the signal came, on a loaded machine: then it is whole.)
    if process.returncode != 0:
        assert process.returncode == status and errors == f"c4book merge: interrupted by {name}\n"
    assert beside(book) == ["book.db"]  # no -wal, no -shm
    with Book.open(book, compiled=False) as opened:  # whole: every row checked
        assert opened.count_by_ply()[10] in (60_000, 120_000) and rest in (
            "",
            f"{two}: ply 10 60,000 copied, 0 already stored\n",
        )
    again = c4book("merge", "--db", book, one, two)
    assert again.returncode == 0 and again.stdout.startswith(
        f"{one}: ply 10 0 copied, 60,000 already stored\n{two}: ply 10 "
    )
    with Book.open(book, compiled=False) as opened:
        assert opened.count_by_ply() == {10: 120_000}


def test_a_password_in_a_part_s_url_is_never_shown(tmp_path):
    # Issue 48, item 4: merge() called from Python with a plain string printed it whole.
    pytest.importorskip("psycopg")
    url = "postgresql+psycopg://c4:hunter2@127.0.0.1:1/none"  # nothing listens on port 1
    with pytest.raises(BookError) as info:
        merge(str(tmp_path / "target.db"), [url])
    assert "hunter2" not in str(info.value) and "c4:***@127.0.0.1" in str(info.value)
    assert not (tmp_path / "target.db").exists()


# -- parts past 64 bits (issue 52): an 8x8 frontier's rows of 16-byte keys ------------------


def test_parts_past_64_bits_merge_into_the_whole_ply(wide_plies, wide_book_path, tmp_path):
    board = Board(8, 8)
    root_key = Position.from_moves(WIDE_ROOT, board).canonical_key
    frontier = wide_plies[WIDE_PLY]
    cuts = [0, 100, 101, len(frontier.keys)]  # a part of one position too
    parts = []
    for n, (start, stop) in enumerate(itertools.pairwise(cuts)):
        store = BookStore(str(tmp_path / f"part{n}.db"), WIDE_ROOT, root_key, board=board)
        try:
            some = slice(start, stop)
            store.insert_new(
                Rows(WIDE_PLY, frontier.keys[some], frontier.scores[some], frontier.best[some])
            )
            if n == 2:
                store.pack_rows(WIDE_PLY)  # a part packed into a segment is read alike
        finally:
            store.close()
        parts.append(str(tmp_path / f"part{n}.db"))
    target = str(tmp_path / "merged.db")
    copied = merge(target, parts)
    assert [c.plies for c in copied] == [{WIDE_PLY: b - a} for a, b in itertools.pairwise(cuts)]
    again = merge(target, parts[1:])  # again: nothing changes
    assert [c.plies for c in again] == [{WIDE_PLY: 0}, {WIDE_PLY: 0}]
    store = BookStore(target, WIDE_ROOT, root_key, board=board)
    try:
        merged = store.entries_at(WIDE_PLY)
        assert np.array_equal(merged.keys, frontier.keys)
        assert np.array_equal(merged.scores, frontier.scores)
        assert np.array_equal(merged.best, frontier.best)
        store.pack_rows(WIDE_PLY)  # sealed as the build seals its frontier
        store.seal(WIDE_PLY, store.entries_at(WIDE_PLY))
    finally:
        store.close()
    assert sealed_bytes(target)[WIDE_PLY] == sealed_bytes(wide_book_path)[WIDE_PLY]

"""``bookgen.book.format.sealed``: sealed plies as stored, read back checked.

A sealed ply is its index row and its blocks in chunks; whatever of them is
damaged is one ``CorruptBookError`` naming the ply (and the block), at open
for an index, at the lookup that reads it for a block, and in ``verify``:
never a wrong answer.
"""

import sqlite3
from contextlib import closing

import pytest
from conftest import SMALL_PLY, run_sql

from bookgen import Book, CorruptBookError
from bookgen.book.format.database import make_engine
from bookgen.book.format.names import chunk_id
from bookgen.book.format.sealed import read_sealed, sealed_plies, sealed_sizes
from bookgen.builder.verify import verify
from solver.bitboard import STANDARD

COUNTS = {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}  # the small book's plies


def chunks(path: str, ply: int) -> list[tuple[int, bytes]]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(
            "SELECT id, data FROM block_chunks WHERE id >= ? AND id < ? ORDER BY id",
            (chunk_id(ply, 0), chunk_id(ply + 1, 0)),
        ).fetchall()


def test_every_sealed_ply_reads_back_whole_and_sized(small_book_path):
    engine = make_engine(small_book_path, readonly=True)
    try:
        with engine.connect() as conn:
            opened = sealed_plies(conn, STANDARD, small_book_path)
            assert {ply: len(s) for ply, s in opened.items()} == COUNTS
            assert opened[SMALL_PLY].decoder.best_type is not None  # the last keeps best moves
            assert all(opened[p].decoder.best_type is None for p in range(8, SMALL_PLY))
            whole = read_sealed(conn, opened[SMALL_PLY], STANDARD, small_book_path)
            assert len(whole.keys) == 574 and (whole.keys[1:] > whole.keys[:-1]).all()
            sizes = sealed_sizes(conn, STANDARD, small_book_path)
    finally:
        engine.dispose()
    assert {ply: n for ply, (n, _) in sizes.items()} == COUNTS
    stored = sum(len(data) for ply in COUNTS for _, data in chunks(small_book_path, ply))
    assert stored < sum(size for _, size in sizes.values()) < stored + 2_000  # and the indexes
    with Book.open(small_book_path) as book:
        assert book.count_by_ply() == COUNTS


def test_a_cut_block_is_named_by_its_ply_and_block(small_book_copy):
    ((row, blob),) = chunks(small_book_copy, SMALL_PLY)
    run_sql(small_book_copy, f"UPDATE block_chunks SET data = substr(data, 1, 40) WHERE id = {row}")
    with (
        Book.open(small_book_copy) as book,  # the index is sound: it opens
        pytest.raises(CorruptBookError, match=f"ply {SMALL_PLY} is damaged: its block 0") as info,
    ):
        book.get("444444331112")
    assert str(info.value).startswith(f"{small_book_copy!r}: ply {SMALL_PLY} is damaged: ")
    assert str(info.value).endswith("rebuild it or take the book from a good copy")
    report = verify(small_book_copy, sample=0, progress=False)
    assert not report.ok
    assert any(f"ply {SMALL_PLY} is damaged" in problem for problem in report.problems)
    assert len(blob) > 40


def test_a_changed_byte_in_a_block_is_caught(small_book_copy):
    ((row, blob),) = chunks(small_book_copy, 11)
    changed = bytearray(blob)
    changed[len(blob) // 2] ^= 0x55
    with closing(sqlite3.connect(small_book_copy)) as conn:
        conn.execute("UPDATE block_chunks SET data = ? WHERE id = ?", (bytes(changed), row))
        conn.commit()
    with Book.open(small_book_copy) as book:
        with pytest.raises(
            CorruptBookError, match="ply 11 is damaged: its block 0 fails its checksum"
        ):
            book.get("44444433121")
        with pytest.raises(CorruptBookError, match="ply 11 is damaged"):
            book.get("4444443312")  # a parent reads its children there


def test_a_damaged_index_is_refused_at_open(small_book_copy):
    run_sql(
        small_book_copy, 'UPDATE sealed_plies SET "index" = substr("index", 1, 30) WHERE ply = 10'
    )
    with pytest.raises(
        CorruptBookError, match="ply 10 is damaged: its block index fails its checksum"
    ):
        Book.open(small_book_copy)
    run_sql(small_book_copy, "UPDATE sealed_plies SET positions = 5 WHERE ply = 9")
    with pytest.raises(CorruptBookError, match="ply 9 is damaged: its index holds 6 positions"):
        Book.open(small_book_copy)

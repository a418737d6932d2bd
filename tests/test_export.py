"""``c4book export`` and ``bookgen.export``: Parquet and CSV read back and checked against
``Book.get``, the file's board and origin, and bad input that leaves no file behind.

The book to ply 10 (``tests/data/ply10.db``) is exported whole: a parent ply's move
scores come from its children, its last ply has none; the 6x5 book shows any board.
"""

import csv
import hashlib
import json
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import PLY10, c4book_command

from bookgen import Book
from bookgen.export import OutputError, export
from solver import Position

pa = pytest.importorskip("pyarrow")
import pyarrow.parquet as pq  # noqa: E402

OUTCOME = {1: "win", 0: "draw", -1: "loss"}
SAMPLE = 1000


def c4book(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*c4book_command(), *args], capture_output=True, text=True, timeout=timeout
    )


def assert_refused(result, tmp_path, *names: str) -> None:
    """One line on stderr, a non-zero exit, and no file but the ones the test made."""
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("c4book export: error: "), result.stderr
    for name in names:
        assert name in lines[0]
    assert not [p for p in tmp_path.iterdir() if p.name != "keep.csv"]


def cells_of(position: Position) -> str:
    """The cells column by column from the bottom, read off the ASCII board."""
    rows = str(position).splitlines()[:-1][::-1]  # bottom row first
    return "".join(
        rows[row].split()[col]
        for col in range(position.board.width)
        for row in range(position.board.height)
    )


def assert_row_is_the_books(row: dict, book: Book) -> None:
    """A row (values, or CSV text) says what ``Book.get`` of its moves says."""

    def number(value):
        return None if value in ("", None) else int(value)

    entry = book.get(row["moves"])
    position = Position.from_moves(row["moves"], book.board)
    assert entry is not None and number(row["ply"]) == entry.ply == position.ply
    assert number(row["key"]) == position.key
    assert row["cells"] == cells_of(position)
    assert number(row["score"]) == entry.score
    assert row["outcome"] == OUTCOME[entry.wdl]
    assert row["best_moves"] == "".join(map(str, entry.best_moves))
    moves = [number(row[f"move_{col}"]) for col in range(1, book.board.width + 1)]
    assert moves == list(entry.move_scores or [None] * book.board.width)


@pytest.fixture(scope="module")
def stats():
    result = c4book("stats", "--db", str(PLY10), "--json")
    assert result.returncode == 0, result.stderr
    return {int(p): n for p, n in json.loads(result.stdout)["positions_per_ply"].items()}


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "book.parquet"
    result = c4book("export", "--db", str(PLY10), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "1,208,493 rows of plies 0-10" in result.stdout
    return out


def test_parquet_counts_types_and_rows_agree_with_the_book(parquet_file, stats, ply10_book):
    read = pq.read_table(parquet_file)
    plies = read.column("ply").to_numpy()
    assert dict(enumerate(np.bincount(plies).tolist())) == stats
    types = {field.name: str(field.type) for field in read.schema}
    assert types == {
        "ply": "uint8",
        "moves": "string",
        "cells": "string",
        "key": "uint64",
        "score": "int8",
        "outcome": "string",
        "best_moves": "string",
        **{f"move_{col}": "int8" for col in range(1, 8)},
    }
    keys = read.column("key").to_numpy()
    assert all((keys[plies == p][1:] > keys[plies == p][:-1]).all() for p in stats)
    rows = read.take(sorted(random.Random(40).sample(range(len(read)), SAMPLE))).to_pylist()
    assert {row["ply"] for row in rows} >= {8, 9, 10}  # parents, and the last ply
    for row in rows:
        assert_row_is_the_books(row, ply10_book)


def test_parquet_says_its_board_and_book(parquet_file):
    meta = {k.decode(): v.decode() for k, v in pq.read_schema(parquet_file).metadata.items()}
    assert meta["c4book.board"] == "7x6" and meta["c4book.mirrors"] == "no"
    assert meta["c4book.book_sha256"] == hashlib.sha256(PLY10.read_bytes()).hexdigest()
    assert meta["c4book.root"] == "" and meta["c4book.version"]


def test_pandas_reads_the_documented_types(parquet_file):
    pandas = pytest.importorskip("pandas")  # not a dependency: where it is installed
    frame = pandas.read_parquet(parquet_file, dtype_backend="numpy_nullable")
    assert {name: str(kind) for name, kind in frame.dtypes.items()} == {
        "ply": "UInt8",
        "moves": "string",
        "cells": "string",
        "key": "UInt64",
        "score": "Int8",
        "outcome": "string",
        "best_moves": "string",
        **{f"move_{c}": "Int8" for c in range(1, 8)},
    }


def test_csv_reads_with_the_standard_library_and_agrees(tmp_path, stats, ply10_book):
    out = tmp_path / "book.csv"
    result = c4book(
        "export", "--db", str(PLY10), "--out", str(out), "--plies", "0-9", "--no-progress"
    )
    assert result.returncode == 0, result.stderr
    with open(out, newline="") as handle:
        header, *rows = csv.reader(handle)
    assert header == [
        "ply",
        "moves",
        "cells",
        "key",
        "score",
        "outcome",
        "best_moves",
        *(f"move_{col}" for col in range(1, 8)),
    ]
    plies = np.array([row[0] for row in rows], dtype=np.int64)
    assert dict(enumerate(np.bincount(plies).tolist())) == {p: stats[p] for p in range(10)}
    for row in random.Random(40).sample(rows, SAMPLE):
        assert_row_is_the_books(dict(zip(header, row, strict=True)), ply10_book)
    one = c4book("export", "--db", str(PLY10), "--out", str(out), "--plies", "8", "--force")
    assert one.returncode == 0, one.stderr
    assert f"{stats[8]:,} rows of ply 8 written to" in one.stdout  # (was "plies 8-8")


def test_mirrors_add_each_mirror_image(tmp_path, ply10_book):
    out = tmp_path / "both.csv"
    done = export(str(out), plies="4-5", db=ply10_book, mirrors=True)
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    keys = {int(row["key"]) for row in rows}
    stored = list(ply10_book.entries(range(4, 6)))
    symmetric = sum(
        Position.from_moves(e.moves).mirror_key == Position.from_moves(e.moves).key for e in stored
    )
    assert done.rows == len(rows) == len(keys) == 2 * len(stored) - symmetric
    assert all(Position.from_moves(e.moves).mirror_key in keys for e in stored)
    for row in rows:
        assert_row_is_the_books(row, ply10_book)


def test_any_board(six_by_five, tmp_path):
    with Book.open(six_by_five) as book:
        for name in ("six.parquet", "six.csv"):
            done = export(str(tmp_path / name), db=book)
            assert done.rows == len(book) and done.plies == tuple(range(7))
        rows = pq.read_table(tmp_path / "six.parquet").to_pylist()
        assert pq.read_schema(tmp_path / "six.parquet").metadata[b"c4book.board"] == b"6x5"
        with open(tmp_path / "six.csv", newline="") as handle:
            texts = list(csv.DictReader(handle))
        assert [c for c in texts[0] if c.startswith("move_")] == [f"move_{c}" for c in range(1, 7)]
        assert len(rows) == len(texts)
        for row, text in zip(rows, texts, strict=True):
            assert len(row["cells"]) == len(text["cells"]) == 30
            assert_row_is_the_books(row, book)
            assert_row_is_the_books(text, book)


# -- bad input: one line, a non-zero exit, no file ----------------------------------------


@pytest.mark.parametrize(
    "plies, named", [("12-8", "'12-8'"), ("8-x", "'8-x'"), ("11", "ply 11"), ("-3", "'-3'")]
)
def test_a_bad_range_writes_nothing(tmp_path, plies, named):
    result = c4book(
        "export", "--db", str(PLY10), "--out", str(tmp_path / "x.csv"), f"--plies={plies}"
    )
    assert_refused(result, tmp_path, named)


def test_an_existing_output_is_kept_without_force(tmp_path):
    kept = tmp_path / "keep.csv"
    kept.write_text("mine\n")
    result = c4book("export", "--db", str(PLY10), "--out", str(kept), "--plies", "2")
    assert_refused(result, tmp_path, str(kept), "--force")
    assert kept.read_text() == "mine\n"
    forced = c4book("export", "--db", str(PLY10), "--out", str(kept), "--plies", "2", "--force")
    assert forced.returncode == 0 and len(kept.read_text().splitlines()) == 1 + 25


def test_a_missing_extra_is_named(tmp_path):
    without = (
        "import sys; sys.modules['pyarrow'] = None; from bookgen.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            without,
            "export",
            "--db",
            str(PLY10),
            "--out",
            str(tmp_path / "x.parquet"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_refused(result, tmp_path, "c4book[data]", "pyarrow")


@pytest.mark.parametrize(
    "out, named", [("nowhere/x.csv", "No such file"), ("x.txt", "--format"), (".", "directory")]
)
def test_an_unwritable_or_unknown_output_is_refused(tmp_path, out, named):
    result = c4book("export", "--db", str(PLY10), "--out", str(tmp_path / out))
    assert_refused(result, tmp_path, named)


def test_an_interrupted_export_leaves_no_file(tmp_path):
    out = tmp_path / "big.csv"
    process = subprocess.Popen(
        [*c4book_command(), "export", "--db", str(PLY10), "--out", str(out), "--no-progress"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not any(p.stat().st_size for p in tmp_path.glob(".big.csv.*.part")):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    left = [p.name for p in tmp_path.iterdir()]
    if process.returncode == 0:
        # On a loaded machine the export can finish between the last look and the signal
        # (Popen sends none to a finished process): then the whole file, never a part.
        assert left == ["big.csv"], (left, errors)
        return
    assert process.returncode == 130 and "interrupted" in errors, errors
    # Nothing, or (the signal handled only after the rename) the whole file: never a part.
    assert left in ([], ["big.csv"])


def test_the_python_call_refuses_as_the_command_does(tmp_path, ply10_book):
    (tmp_path / "keep.csv").write_text("")
    with pytest.raises(OutputError, match="exists"):
        export(str(tmp_path / "keep.csv"), db=ply10_book)
    assert export(str(tmp_path / "p9.data"), plies=range(9, 10), db=ply10_book).format == "uci"


def test_help():
    result = c4book("export", "--help")
    assert result.returncode == 0 and result.stdout.startswith("usage: c4book export")
    assert "--db" in result.stdout and "c4book[data]" in result.stdout

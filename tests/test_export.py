"""``c4book export`` and ``bookgen.export``: Parquet and CSV read back and checked against
``Book.get``, the file's board and origin, and bad input that leaves no file behind.

The book to ply 10 (``tests/data/ply10.db``) is exported whole: a parent ply's move
scores come from its children, its last ply has none; the 6x5 book shows any board.
"""

import csv
import functools
import hashlib
import json
import os
import random
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import PLY10, c4book_command, running

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


@pytest.mark.parametrize(
    "signum, status, said",
    [
        (signal.SIGINT, 130, "interrupted"),
        (signal.SIGTERM, 143, "interrupted by SIGTERM"),
        pytest.param(signal.SIGHUP, 129, "interrupted by SIGHUP", marks=pytest.mark.slow),
    ],
    ids=["SIGINT", "SIGTERM", "SIGHUP"],
)
def test_an_interrupted_export_leaves_no_file(tmp_path, signum, status, said):
    out = tmp_path / "big.csv"
    command = ["export", "--db", str(PLY10), "--out", str(out), "--no-progress"]
    with running([*c4book_command(), *command], stderr=subprocess.PIPE) as process:
        deadline = time.monotonic() + 120
        while not any(p.stat().st_size for p in tmp_path.glob(".big.csv.*.part")):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(signum)
        _, errors = process.communicate(timeout=60)
    left = [p.name for p in tmp_path.iterdir()]
    if process.returncode == 0:
        # On a loaded machine the export can finish between the last look and the signal
        # (Popen sends none to a finished process): then the whole file, never a part.
        assert left == ["big.csv"], (left, errors)
        return
    assert process.returncode == status and errors == f"c4book export: {said}\n", errors
    # Nothing, or (the signal handled only after the rename) the whole file: never a part.
    assert left in ([], ["big.csv"])


# -- outputs that are not files: written into, never replaced --------------------------------


def char_device(tmp_path: Path, name: str) -> Path:
    """A character device as ``/dev/NAME`` (null, full): as root a node of its own in
    ``tmp_path``, so that a regression replaces that one, not the machine's; else the
    machine's own, which a user cannot replace."""
    real = Path("/dev") / name
    if os.geteuid() != 0:
        return real
    made = tmp_path / name
    os.mknod(made, 0o666 | stat.S_IFCHR, os.stat(real).st_rdev)
    try:
        os.close(os.open(made, os.O_WRONLY))
    except PermissionError:  # a file system mounted nodev opens no device
        made.unlink()
        return real
    return made


def assert_device(path: Path, rdev: int) -> None:
    info = os.stat(path)
    assert stat.S_ISCHR(info.st_mode) and info.st_rdev == rdev, oct(info.st_mode)


def test_a_device_is_written_into_never_replaced(tmp_path, ply10_book):
    null = char_device(tmp_path, "null")
    rdev = os.stat(null).st_rdev
    # As the issue found it (there /dev/null became a file): --force replaces nothing here.
    command = ["export", "--db", str(PLY10), "--out", str(null), "--format", "csv"]
    result = c4book(*command, "--plies", "2", "--force", "--no-progress")
    assert result.returncode == 0 and result.stdout.startswith("25 rows of ply 2"), result.stderr
    assert_device(null, rdev)
    assert export(str(null), format="uci", plies=8, db=ply10_book).rows == 67_557  # no --force
    assert_device(null, rdev)
    assert [p.name for p in tmp_path.iterdir()] in ([], ["null"])  # no temporary file


@pytest.mark.parametrize("format", ["csv", "uci", "parquet"])
def test_a_pipe_receives_the_file_s_bytes_and_stays_a_pipe(tmp_path, ply10_book, format):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with open(tmp_path / "received", "wb") as received:
        reader = subprocess.Popen(["cat", str(fifo)], stdout=received)
    try:
        export(str(fifo), format=format, plies="7-8", db=ply10_book)
        reader.wait(timeout=60)
    finally:
        if reader.poll() is None:  # the export never wrote into its pipe
            reader.kill()
            reader.wait()
    export(str(tmp_path / "file"), format=format, plies="7-8", db=ply10_book)
    assert (tmp_path / "received").read_bytes() == (tmp_path / "file").read_bytes()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "file", "received"]


def test_stdout_as_the_output_holds_the_rows_alone():
    result = c4book(
        "export", "--db", str(PLY10), "--out", "/dev/stdout", "--format", "csv", "--plies", "2"
    )
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and len(lines) == 1 + 25 and lines[0].startswith("ply,moves,")
    assert "25 rows of ply 2 written to /dev/stdout" in result.stderr  # not in the rows


def test_a_socket_or_a_block_device_is_refused(tmp_path):
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "sock"))
        with pytest.raises(OutputError, match=r"'.*sock' is a socket: give a file name"):
            export(str(tmp_path / "sock"), format="csv", db=str(PLY10))
    if os.geteuid() == 0:  # a node of no device: were it opened, it would take nothing
        os.mknod(tmp_path / "disk", 0o600 | stat.S_IFBLK, os.makedev(0, 0))
        with pytest.raises(OutputError, match=r"'.*disk' is a block device: give a file name"):
            export(str(tmp_path / "disk"), format="csv", db=str(PLY10))
        assert stat.S_ISBLK(os.stat(tmp_path / "disk").st_mode)


def test_a_link_is_followed_and_kept(tmp_path):
    (tmp_path / "real.csv").write_text("old\n")
    (tmp_path / "link.csv").symlink_to("real.csv")
    result = c4book(
        "export",
        "--db",
        str(PLY10),
        "--out",
        str(tmp_path / "link.csv"),
        "--plies",
        "2",
        "--force",
        "--no-progress",
    )
    assert result.returncode == 0, result.stderr
    assert os.readlink(tmp_path / "link.csv") == "real.csv"
    assert len((tmp_path / "real.csv").read_text().splitlines()) == 1 + 25


# -- a full disk: one line, no file ---------------------------------------------------------


def one_line_no_space(result: subprocess.CompletedProcess, out: Path) -> None:
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert (
        result.stderr
        == f"c4book export: error: cannot write {str(out)!r}: No space left on device\n"
    )


@pytest.mark.parametrize(
    "format", ["csv", *(pytest.param(f, marks=pytest.mark.slow) for f in ("uci", "parquet"))]
)  # (one format in the default run: the three share the writer's error path)
def test_a_full_device_is_one_line(tmp_path, format):
    full = char_device(tmp_path, "full")
    rdev = os.stat(full).st_rdev
    result = c4book(
        "export", "--db", str(PLY10), "--out", str(full), "--format", format, "--no-progress"
    )
    one_line_no_space(result, full)
    assert_device(full, rdev)


@functools.cache
def tmpfs_unavailable() -> str | None:
    """Why a file system of its own cannot be mounted here (None: it can)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "needs root and unshare (a tmpfs in a mount namespace): CI runs it as root"
    with tempfile.TemporaryDirectory() as folder:
        probe = ["unshare", "--mount", "mount", "-t", "tmpfs", "-o", "size=4k", "probe", folder]
        made = subprocess.run(probe, capture_output=True, text=True)
    return f"cannot mount a tmpfs: {made.stderr.strip()}" if made.returncode else None


@pytest.mark.parametrize(
    "format", ["csv", *(pytest.param(f, marks=pytest.mark.slow) for f in ("uci", "parquet"))]
)  # (one format in the default run: the three share the writer's error path)
def test_a_full_file_system_is_one_line_and_leaves_no_file(tmp_path, format):
    if why := tmpfs_unavailable():
        pytest.skip(why)
    disk = tmp_path / "disk"
    disk.mkdir()
    out = disk / f"book.{format}"
    # A 64 KiB tmpfs, in a mount namespace of the export's own: nothing else sees it, and
    # it goes with the namespace, once ``ls`` has said what the export left in it.
    export = shlex.join(
        [
            *c4book_command(),
            *("export", "--db", str(PLY10), "--out", str(out), "--format", format),
            "--no-progress",
        ]
    )
    script = (
        f"mount -t tmpfs -o size=64k c4book-full {shlex.quote(str(disk))} || exit 99; "
        f"{export}; status=$?; ls -A {shlex.quote(str(disk))}; exit $status"
    )
    result = subprocess.run(
        ["unshare", "--mount", "sh", "-c", script], capture_output=True, text=True, timeout=300
    )
    one_line_no_space(result, out)
    assert result.stdout == ""  # no summary, and nothing in the full file system


def test_the_python_call_refuses_as_the_command_does(tmp_path, ply10_book):
    (tmp_path / "keep.csv").write_text("")
    with pytest.raises(OutputError, match="exists"):
        export(str(tmp_path / "keep.csv"), db=ply10_book)
    assert export(str(tmp_path / "p9.data"), plies=range(9, 10), db=ply10_book).format == "uci"


def test_help():
    result = c4book("export", "--help")
    assert result.returncode == 0 and result.stdout.startswith("usage: c4book export")
    assert "--db" in result.stdout and "c4book[data]" in result.stdout


def test_a_book_past_64_bits_in_every_format(wide_book_path, tmp_path):
    # 8x8 keys take two words: Parquet stores them as 16 bytes big-endian, CSV in decimal.
    with Book.open(wide_book_path) as book:
        stored = list(book.entries())
        done = export(str(tmp_path / "wide.parquet"), db=book, mirrors=True)
        export(str(tmp_path / "wide.csv"), db=book, mirrors=True)
        uci = export(str(tmp_path / "wide.data"), db=book)
        table = pq.read_table(tmp_path / "wide.parquet")
        assert str(table.schema.field("key").type) == "fixed_size_binary[16]"
        rows = table.to_pylist()
        with open(tmp_path / "wide.csv", newline="") as handle:
            texts = list(csv.DictReader(handle))
        positions = [Position.from_moves(e.moves, book.board) for e in stored]
        symmetric = sum(p.mirror_key == p.key for p in positions)
        assert done.rows == len(rows) == len(texts) == 2 * len(stored) - symmetric
        assert len(stored) > 100 and symmetric < len(stored)
        for row, text in zip(rows, texts, strict=True):
            assert int.from_bytes(row["key"], "big") == int(text["key"])
            assert_row_is_the_books(text, book)
            assert len(row["cells"]) == 64 and row["cells"] == text["cells"]
        quiet = [
            not any(p.is_winning_move(c) or p.is_opponent_winning_move(c) for c in p.legal_moves())
            for p in positions
        ]
        lines = (tmp_path / "wide.data").read_text().splitlines()
        assert uci.rows == len(lines) == sum(quiet) and 0 < sum(quiet) < len(quiet)
        cells = [cells_of(p).replace(".", "b") for p, q in zip(positions, quiet, strict=True) if q]
        assert [line.rsplit(",", 1)[0].replace(",", "") for line in lines] == cells

"""``bookgen.cli.c4book``: the entry point, --help, and every command's errors in one line
(bad moves, a missing or foreign book, a bad board, a reader gone away), through the
installed console script, against the real small book.  Each command's own output is
tested in the file named after it (``test_query.py``, ``test_stats.py``, ...)."""

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from conftest import SMALL_ROOT, WIDE_ROOT, c4book, c4book_command

from solver import Board, Position, Solver

SUBCOMMANDS = [
    "solve",
    "build",
    "query",
    "review",
    "move",
    "play",
    "stats",
    "verify",
    "upgrade",
    "pack",
    "merge",
    "serve",
    "export",
]

# Illegal or finished move strings, and what the error must quote.
BAD_MOVES = ["4a", "0", "8", "4 4", "4444444", "12121212", "1212121"]


def assert_one_line_error(result, command: str, *names: str) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"c4book {command}: error: "), lines[0]
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def db(small_book_path):
    return small_book_path


# -- the entry point ----------------------------------------------------------


def test_module_entry_point_matches_the_script(db):
    via_module = subprocess.run(
        [sys.executable, "-m", "bookgen.cli", "query", SMALL_ROOT, "--db", db, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    via_script = c4book("query", SMALL_ROOT, "--db", db, "--json")
    assert via_module.returncode == via_script.returncode == 0
    assert json.loads(via_module.stdout) == json.loads(via_script.stdout)


def test_top_level_help():
    result = c4book("--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: c4book")
    for name in SUBCOMMANDS:
        assert name in result.stdout


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_subcommand_help(command):
    result = c4book(command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: c4book {command}")
    assert "--db" in result.stdout or command == "solve"
    assert result.stderr == ""


def test_no_subcommand_is_a_usage_error():
    result = c4book()
    assert result.returncode == 2
    assert "usage: c4book" in result.stderr and "Traceback" not in result.stderr


# -- errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, moves",
    [("query", m) for m in BAD_MOVES]
    + [("move", m) for m in ("4a", "0", "8", "4444444", "1212121")],
)
def test_bad_moves_are_one_line(db, command, moves):
    result = c4book(command, moves, "--db", db)
    line = assert_one_line_error(result, command, repr(moves))
    assert result.stdout == ""
    if moves == "4444444":
        assert "column 4 is full" in line
    if moves in ("12121212", "1212121"):
        assert "game" in line


@pytest.mark.parametrize("command", ["query", "move", "stats", "play", "verify", "upgrade", "pack"])
def test_missing_book(tmp_path, command):
    missing = tmp_path / "missing.db"
    args = [command, SMALL_ROOT] if command in ("query", "move") else [command]
    result = c4book(*args, "--db", str(missing), stdin="")
    assert_one_line_error(result, command, str(missing), "no book")
    assert not missing.exists()
    assert list(tmp_path.iterdir()) == []


def make_non_books(tmp_path) -> dict[str, Path]:
    text = tmp_path / "notes.txt"
    text.write_text("not a book\n")
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    other = tmp_path / "other.db"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE things (x INTEGER)")
        conn.commit()
    folder = tmp_path / "folder"
    folder.mkdir()
    return {"text": text, "empty": empty, "other": other, "folder": folder}


@pytest.mark.parametrize(
    "command, kind, words",
    [
        ("query", "text", "not a SQLite file"),
        ("query", "empty", "empty file"),
        ("query", "other", "not a c4book book"),
        ("query", "folder", "directory"),
        ("stats", "text", "not a SQLite file"),
        ("stats", "other", "not a c4book book"),
    ],
)
def test_non_book_file(tmp_path, command, kind, words):
    path = make_non_books(tmp_path)[kind]
    args = [command, SMALL_ROOT] if command == "query" else [command]
    result = c4book(*args, "--db", str(path))
    assert_one_line_error(result, command, str(path), words)
    if kind == "text":
        assert path.read_text() == "not a book\n"


# -- build: bad input ---------------------------------------------------------


@pytest.mark.parametrize(
    "args, words",
    [
        (["--root", "4a", "--ply", "12"], "'4a'"),
        (["--root", "4444444", "--ply", "12"], "column 4 is full"),
        (["--root", "1212121", "--ply", "12"], "finished game"),
        (["--root", SMALL_ROOT, "--ply", "7"], "--ply 7"),
        (["--ply", "43"], "--ply 43"),
        (["--root", SMALL_ROOT, "--ply", "12", "--address", "foo"], "'foo'"),
        (["--root", SMALL_ROOT, "--ply", "12", "--address", "host:99999"], "'host:99999'"),
        (["--root", SMALL_ROOT, "--ply", "12", "--workers", "0"], "--workers"),
        (["--root", SMALL_ROOT, "--ply", "12", "--threads", "0"], "--threads"),
    ],
)
def test_build_bad_input_creates_nothing(tmp_path, args, words):
    target = tmp_path / "new.db"
    result = c4book("build", *args, "--db", str(target), "--no-progress")
    assert_one_line_error(result, "build", words)
    assert list(tmp_path.iterdir()) == []


def test_build_into_a_missing_directory(tmp_path):
    target = tmp_path / "nowhere" / "new.db"
    result = c4book("build", "--root", SMALL_ROOT, "--ply", "9", "--db", str(target))
    assert_one_line_error(result, "build", str(target))
    assert list(tmp_path.iterdir()) == []


def test_build_refuses_a_non_book_file(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("keep me\n")
    result = c4book("build", "--root", SMALL_ROOT, "--ply", "9", "--db", str(text))
    assert_one_line_error(result, "build", str(text), "not a SQLite file")
    assert text.read_text() == "keep me\n"


def test_build_bad_table_size_creates_nothing(tmp_path):
    target = tmp_path / "new.db"
    result = c4book(
        "build",
        "--root",
        SMALL_ROOT,
        "--ply",
        "9",
        "--table-log2",
        "5",
        "--db",
        str(target),
        "--no-progress",
        timeout=240,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert not target.exists()


def test_a_reader_that_goes_away_is_not_an_error():
    """``c4book solve < file | head -1``: stop quietly when stdout is closed."""
    data = Path(__file__).parent / "data" / "Test_L3_R1"
    with open(data) as stdin:
        proc = subprocess.Popen(
            [*c4book_command(), "solve"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = proc.stdout.readline()
        proc.stdout.close()
        _, err = proc.communicate(timeout=120)
    assert first == "2252576253462244111563365343671351441 -1\n"
    assert proc.returncode == 141 and err == ""


# -- other boards ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, board",
    [
        (command, board)
        for board in ["3x3", "10x7", "8x16", "7x"]
        for command in ["solve", "query", "move", "play", "build"]
    ],
)
def test_a_bad_board_is_one_line_naming_what_is_allowed(command, board, tmp_path):
    args = {
        "query": ["4453"],
        "move": ["4453"],
        "build": ["--ply", "3", "--db", str(tmp_path / "x.db")],
    }
    result = c4book(command, *args.get(command, []), "--board", board)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{board!r} is not a board c4book plays" in lines[0], lines
    assert "width 4-9" in lines[0] and "128 bits" in lines[0]
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("command", ["query", "move"])
def test_a_book_past_64_bits_is_read(command, wide_book_path):
    # Keys of two words (issue 52): a book of 8x8 answers as any book, --board or not.
    moves = WIDE_ROOT + "1"
    for board in ([], ["--board", "8x8"]):
        result = c4book(command, moves, "--db", wide_book_path, *board, timeout=120)
        assert result.returncode == 0, result.stderr
        assert "book" in result.stdout
    result = c4book(command, moves, "--db", wide_book_path, "--board", "7x6", timeout=60)
    assert_one_line_error(result, command, "is a book of the 8x8 board, not 7x6")


def test_solve_plays_a_board_past_64_bits():
    # Four empty cells, in two columns (5x12: 65 bits); the mover loses (-2).
    moves = "15235232324115332421325432115235233153524345452514111451"
    board = Board(5, 12)
    result = c4book("solve", "--board", "5x12", "--threads", "1", stdin=moves + "\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{moves} {Solver(board=board, table_log2=20).solve(moves)}\n"


def test_solve_reads_positions_of_the_board_given():
    board = Board(6, 5)
    solver = Solver(board=board, table_log2=20)
    lines = [" ", "3", "34", "616161", "17"]  # (blanks alone: skipped)
    result = c4book("solve", "--board", "6x5", "--threads", "1", stdin="\n".join(lines) + "\n")
    assert result.returncode == 1  # "17": 7 is no column of 6x5
    assert result.stdout.splitlines() == [
        f"{m} {solver.solve(Position.from_moves(m, board))}" for m in lines[1:4]
    ]
    assert "line 5: illegal move '7' at position 2 of '17': columns are digits 1-6" in result.stderr
    analyzed = c4book("solve", "--board", "6x5", "--analyze", stdin="34\n")
    assert (
        analyzed.stdout
        == "34 " + " ".join(map(str, solver.analyze(Position.from_moves("34", board)))) + "\n"
    )


@pytest.mark.slow  # (20 s in CI compiling 4x4; test_move plays 8x8 without a book)
def test_query_and_move_without_a_book_play_the_board_given(tmp_path):
    board = Board(4, 4)
    solver = Solver(board=board, table_log2=16)
    result = c4book("query", "3", "--board", "4x4", "--json")  # the shipped book is 7x6
    answer = json.loads(result.stdout)
    position = Position.from_moves("3", board)
    assert answer["source"] == "search" and answer["move_scores"] == solver.analyze(position)
    text = c4book("query", "3", "--board", "4x4").stdout.splitlines()
    assert text[:5] == str(position).splitlines()  # the 4x4 board, drawn
    move = json.loads(c4book("move", "33", "--board", "4x4", "--json").stdout)
    assert move["source"] == "search" and move["score"] == solver.solve("33")


def test_commands_read_a_book_of_another_board(six_by_five):
    board = Board(6, 5)
    solver = Solver(board=board, table_log2=20)
    answer = json.loads(c4book("query", "34", "--db", six_by_five, "--json").stdout)
    assert answer["source"] == "book"
    assert answer["move_scores"] == solver.analyze(Position.from_moves("34", board))
    move = json.loads(c4book("move", "3434", "--db", six_by_five, "--json").stdout)
    assert move["source"] == "book" and move["proven"]
    assert move["score"] == solver.solve(Position.from_moves("3434", board))
    stats = json.loads(c4book("stats", "--db", six_by_five, "--json").stdout)
    assert stats["board"] == "6x5" and stats["positions_per_ply"]["6"] == 3935
    assert "6x5 board, root (empty board)" in c4book("stats", "--db", six_by_five).stdout
    verified = c4book("verify", "--db", six_by_five, "--sample", "20", "--no-progress")
    assert verified.returncode == 0 and "OK" in verified.stdout
    same = c4book("query", "34", "--db", six_by_five, "--board", "6x5", "--json")
    assert json.loads(same.stdout) == answer


@pytest.mark.parametrize("command", ["query", "move"])
def test_a_board_that_contradicts_the_book_is_one_line(six_by_five, command):
    result = c4book(command, "34", "--db", six_by_five, "--board", "7x6")
    assert_one_line_error(result, command, "6x5 board, not 7x6")


def test_build_of_another_board_refuses_a_contradiction_and_dry_runs(six_by_five, tmp_path):
    import shutil

    path = str(tmp_path / "grow.db")
    shutil.copy(six_by_five, path)
    assert_one_line_error(
        c4book("build", "--ply", "7", "--db", path, "--board", "7x6"), "build", "6x5 board, not 7x6"
    )
    dry = c4book("build", "--ply", "7", "--db", path, "--dry-run", "--sample", "5", "--no-progress")
    assert dry.returncode == 0 and "11,871" in dry.stdout, dry.stdout + dry.stderr
    fresh = c4book(
        "build",
        "--ply",
        "4",
        "--db",
        str(tmp_path / "fresh.db"),
        "--board",
        "4x4",
        "--dry-run",
        "--sample",
        "3",
        "--no-progress",
    )
    assert fresh.returncode == 0 and not (tmp_path / "fresh.db").exists()


def test_a_ctrl_c_inside_numba_s_c_code_is_an_interrupt(monkeypatch, capsys):
    # numba's dispatcher, loading a kernel, turns the KeyboardInterrupt into a SystemError
    # it causes: the command still says "interrupted" and exits 130, with no traceback.
    from bookgen.cli import c4book, merge

    def interrupted(_args):
        error = SystemError("<function> returned a result with an exception set")
        error.__cause__ = KeyboardInterrupt()
        raise error

    def failed(_args):
        raise SystemError("a real one")

    monkeypatch.setattr(merge, "run", interrupted)
    assert c4book.main(["merge", "--db", "x.db", "part.db"]) == 130
    assert capsys.readouterr().err == "c4book merge: interrupted\n"
    monkeypatch.setattr(merge, "run", failed)
    with pytest.raises(SystemError, match="a real one"):
        c4book.main(["merge", "--db", "x.db", "part.db"])

"""``c4book query``, ``move``, ``stats`` and the error handling of ``bookgen.cli``,
through the installed console script, against the real small book.

Expected scores come from ``Solver`` directly or from Pons' benchmark files.
"""

import json
import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from conftest import SMALL_PLY, SMALL_ROOT, book_moves, c4book_command, segment_rows, stamp

from solver import Board, Position, Solver

DATA = Path(__file__).parent / "data"
COUNTS = {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
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
]

ROOT_BOARD = """\
. . . o . . .
. . . x . . .
. . . o . . .
. . . x . . .
. . o o . . .
. . x x . . .
1 2 3 4 5 6 7"""
ROOT_SCORES = [0, 16, 2, None, 16, 0, 2]

# A ply-41 End-Easy position: one cell left, filling it draws.
LAST_CELL = "71255763773133525731261364622167124446454"
# Illegal or finished move strings, and what the error must quote.
BAD_MOVES = ["4a", "0", "8", "4 4", "4444444", "12121212", "1212121"]


def c4book(*args: str, stdin: str | None = None, timeout: float = 300):
    return subprocess.run(
        [*c4book_command(), *args], input=stdin, capture_output=True, text=True, timeout=timeout
    )


def assert_one_line_error(result, command: str, *names: str) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"c4book {command}: error: "), lines[0]
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


def pons_lines(name: str, step: int, limit: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in (DATA / name).read_text().split("\n") if line.strip()]
    return [(moves, int(score)) for moves, score in lines[::step][:limit]]


def signed(score):
    return "full" if score is None else f"{score:+d}" if score else "0"


@pytest.fixture(scope="module")
def solver():
    return Solver(table_log2=20)


@pytest.fixture(scope="module")
def db(small_book_path):
    return small_book_path


def expected(solver, moves):
    scores = solver.analyze(Position.from_moves(moves))
    score = max(s for s in scores if s is not None)
    return score, [c for c, s in enumerate(scores, start=1) if s == score], scores


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


# -- query --------------------------------------------------------------------


def test_query_book_position(db, solver):
    score, best, scores = expected(solver, SMALL_ROOT)
    assert (score, best, scores) == (16, [2, 5], ROOT_SCORES)
    result = c4book("query", SMALL_ROOT, "--db", db)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == (
        f"{ROOT_BOARD}\n\n"
        "moves  44444433  (ply 8, x to play)\n"
        "score  +16: first player wins with the 6th stone  [from the book]\n"
        "best   2 5\n"
        "moves  1:0  2:+16  3:+2  4:full  5:+16  6:0  7:+2\n"
    )


def test_query_mirrored_book_position(db, solver):
    moves = "44444455"
    score, best, scores = expected(solver, moves)
    result = c4book("query", moves, "--db", db)
    assert result.returncode == 0
    assert (
        f"score  {signed(score)}: first player wins with the 6th stone  [from the book]"
        in result.stdout
    )
    assert f"best   {' '.join(map(str, best))}\n" in result.stdout
    assert "best   3 6\n" in result.stdout
    assert (
        "moves  " + "  ".join(f"{c}:{signed(s)}" for c, s in enumerate(scores, 1)) in result.stdout
    )


def test_query_json(db, solver):
    moves = "444444332"  # o to move, lost: x wins with its 6th stone
    score, best, scores = expected(solver, moves)
    result = c4book("query", moves, "--db", db, "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert set(data) == {"moves", "score", "wdl", "best_moves", "move_scores", "source"}
    assert data == {
        "moves": moves,
        "score": score,
        "wdl": -1,
        "best_moves": best,
        "move_scores": scores,
        "source": "book",
    }
    assert score == -16


@pytest.mark.parametrize("options, source", [((), "book"), (("--no-book",), "search")])
def test_query_json_of_the_root(db, options, source):
    data = json.loads(c4book("query", SMALL_ROOT, "--db", db, *options, "--json").stdout)
    assert data == {
        "moves": SMALL_ROOT,
        "score": 16,
        "wdl": 1,
        "best_moves": [2, 5],
        "move_scores": ROOT_SCORES,
        "source": source,
    }


def test_book_given_as_an_sqlalchemy_url(db):
    url = f"sqlite:///{os.path.abspath(db)}"
    data = json.loads(c4book("query", SMALL_ROOT, "--db", url, "--json").stdout)
    assert (data["score"], data["best_moves"], data["source"]) == (16, [2, 5], "book")


def test_query_second_player_words(db, solver):
    result = c4book("query", "444444332", "--db", db)
    assert "moves  444444332  (ply 9, o to play)" in result.stdout
    assert "score  -16: first player wins with the 6th stone  [from the book]" in result.stdout


def test_query_outside_the_book_searches(db, solver):
    moves, score = pons_lines("Test_L3_R1", 137, 1)[0]
    _, best, scores = expected(solver, moves)
    text = c4book("query", moves, "--db", db)
    assert text.returncode == 0
    assert str(Position.from_moves(moves)) in text.stdout
    assert f"score  {signed(score)}: " in text.stdout
    assert "[not in the book: searched]" in text.stdout
    data = json.loads(c4book("query", moves, "--db", db, "--json").stdout)
    assert data == {
        "moves": moves,
        "score": score,
        "wdl": (score > 0) - (score < 0),
        "best_moves": best,
        "move_scores": scores,
        "source": "search",
    }


def test_query_frontier_is_partly_searched(db, solver):
    moves = book_moves(db, SMALL_PLY)[200]
    score, best, scores = expected(solver, moves)
    text = c4book("query", moves, "--db", db)
    assert "[partly from the book, the rest searched]" in text.stdout
    data = json.loads(c4book("query", moves, "--db", db, "--json").stdout)
    assert (data["score"], data["best_moves"], data["move_scores"], data["source"]) == (
        score,
        best,
        scores,
        "book+search",
    )


def test_query_draw_words(solver):
    result = c4book("query", LAST_CELL, "--no-book")
    assert result.returncode == 0
    assert "moves  " + LAST_CELL + "  (ply 41, o to play)" in result.stdout
    assert "score  0: draw  " in result.stdout
    assert "best   5\n" in result.stdout
    assert "moves  1:full  2:full  3:full  4:full  5:0  6:full  7:full\n" in result.stdout


def test_query_without_a_book_never_claims_the_book():
    result = c4book("query", LAST_CELL, "--no-book")
    assert "[from the book]" not in result.stdout


# -- move ---------------------------------------------------------------------


def test_move_from_the_book(db):
    result = c4book("move", SMALL_ROOT, "--db", db)
    assert result.returncode == 0 and result.stderr == ""
    assert re.fullmatch(r"5  \(book, score \+16, \d+\.\d ms\)\n", result.stdout), result.stdout


def test_move_json_from_the_book(db):
    data = json.loads(c4book("move", "44444455", "--db", db, "--json").stdout)
    assert set(data) == {
        "moves",
        "column",
        "score",
        "source",
        "proven",
        "seconds",
        "depth",
        "keeps",
    }
    assert (data["moves"], data["column"], data["score"], data["source"], data["proven"]) == (
        "44444455",
        3,
        16,
        "book",
        True,
    )
    assert 0 <= data["seconds"] < 5


def test_move_searched(db, solver):
    moves, score = pons_lines("Test_L2_R1", 211, 1)[0]
    _, best, _ = expected(solver, moves)
    text = c4book("move", moves, "--db", db)
    match = re.fullmatch(r"([1-7])  \(search, score ([+-]?\d+), \d+\.\d ms\)\n", text.stdout)
    assert match, text.stdout
    assert int(match[1]) in best and int(match[2]) == score
    data = json.loads(c4book("move", moves, "--db", db, "--json").stdout)
    assert data["column"] in best
    assert (data["moves"], data["score"], data["source"], data["proven"]) == (
        moves,
        score,
        "search",
        True,
    )


def test_move_with_a_time_budget(db):
    # A second: enough to look 4 plies ahead on a loaded machine, far too little to prove
    # anything about the opening (0.3 s once went to loading the kernels under load).
    data = json.loads(c4book("move", "4", "--db", db, "--time", "1", "--json").stdout)
    assert (data["moves"], data["score"], data["source"], data["proven"]) == (
        "4",
        None,
        "anytime",
        False,
    )
    assert 1 <= data["column"] <= 7 and data["depth"] >= 4
    assert data["seconds"] < 5
    text = c4book("move", "4", "--db", db, "--time", "1")
    assert re.fullmatch(
        r"[1-7]  \(anytime, \d+\.\d ms, not proven: time ran out, "
        r"best found looking \d+ plies ahead\)\n",
        text.stdout,
    ), text.stdout
    assert data["keeps"] is None  # nothing proven about the opening


@pytest.mark.parametrize("budget", ["nan", "inf"])
def test_move_odd_time_budget_is_handled(budget):
    moves, _ = pons_lines("Test_L3_R1", 137, 1)[0]
    result = c4book("move", moves, "--no-book", "--time", budget)
    assert "Traceback" not in result.stderr
    if result.returncode != 0:
        assert len(result.stderr.strip().splitlines()) == 1
    else:
        assert re.match(r"[1-7]  \(", result.stdout)


# -- stats --------------------------------------------------------------------


def test_stats_json(db, solver):
    result = c4book("stats", "--db", db, "--json")
    assert result.returncode == 0
    stats = json.loads(result.stdout)
    assert stats["positions_per_ply"] == {str(p): n for p, n in COUNTS.items()}
    assert stats["positions"] == sum(COUNTS.values()) == 753
    assert stats["plies_complete"] == sorted(COUNTS)
    assert (stats["root"], stats["max_ply"], stats["db"]) == (SMALL_ROOT, SMALL_PLY, db)
    assert stats["file_bytes"] == os.path.getsize(db)
    assert stats["bytes_per_position"] == round(os.path.getsize(db) / 753, 2)
    # every ply sealed: one segment each, no rows
    for ply, count in COUNTS.items():
        ((_, stored, blob),) = segment_rows(db, ply)
        assert stored == count
        assert stats["storage_per_ply"][str(ply)] == {
            "form": "sealed",
            "packed": count,
            "packed_bytes": len(blob),
            "rows": 0,
            "bytes_per_packed_position": round(len(blob) / count, 2),
        }
    for ply, count in COUNTS.items():
        outcome = stats["outcomes_per_ply"][str(ply)]
        assert outcome["win"] + outcome["draw"] + outcome["loss"] == count
    assert stats["outcomes_per_ply"]["8"] == {"win": 1, "draw": 0, "loss": 0}
    for ply in (9, 10):  # recount two plies by searching every position
        signs = [solver.solve(moves, weak=True) for moves in book_moves(db, ply)]
        assert stats["outcomes_per_ply"][str(ply)] == {
            "win": signs.count(1),
            "draw": signs.count(0),
            "loss": signs.count(-1),
        }


def test_stats_text(db):
    stats = json.loads(c4book("stats", "--db", db, "--json").stdout)
    result = c4book("stats", "--db", db)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == f"book {db}: root {SMALL_ROOT}, 753 positions"
    assert lines[1].split() == [
        "ply",
        "positions",
        "complete",
        "win",
        "draw",
        "loss",
        "stored",
        "bytes/pos",
        "(outcomes",
        "for",
        "the",
        "player",
        "to",
        "move)",
    ]
    rows = {}
    for line in lines[2 : 2 + len(COUNTS)]:
        ply, count, complete, win, draw, loss, form, per_position = line.split()
        rows[int(ply)] = (
            int(count.replace(",", "")),
            complete,
            int(win),
            int(draw),
            int(loss),
            form,
            per_position,
        )
    assert {p: r[0] for p, r in rows.items()} == COUNTS
    assert all(r[1] == "yes" for r in rows.values())
    for ply, row in rows.items():
        o = stats["outcomes_per_ply"][str(ply)]
        assert row[2:5] == (o["win"], o["draw"], o["loss"])
        stored = stats["storage_per_ply"][str(ply)]
        assert row[5:] == ("sealed", f"{stored['bytes_per_packed_position']:.2f}")
    assert (
        lines[-1] == f"file {os.path.getsize(db):,} bytes, "
        f"{round(os.path.getsize(db) / 753, 2)} bytes per position"
    )


def test_stats_of_a_book_kept_as_rows_and_partly_packed(small_rows_book_path, tmp_path):
    rows_stats = json.loads(c4book("stats", "--db", small_rows_book_path, "--json").stdout)
    assert rows_stats["positions_per_ply"] == {str(p): n for p, n in COUNTS.items()}
    assert {p: s["form"] for p, s in rows_stats["storage_per_ply"].items()} == {
        str(p): "rows" for p in COUNTS
    }
    assert rows_stats["storage_per_ply"]["12"] == {
        "form": "rows",
        "packed": 0,
        "packed_bytes": 0,
        "rows": 574,
        "bytes_per_packed_position": None,
    }
    text = c4book("stats", "--db", small_rows_book_path).stdout.splitlines()
    assert re.fullmatch(r"\s+12\s+574\s+yes(\s+\d+){3}\s+rows\s+\(574 rows\)", text[6]), text[6]
    # ply 12 still being built: one segment packed, more rows since (as the builder leaves it)
    path = tmp_path / "partly.db"
    path.write_bytes(Path(small_rows_book_path).read_bytes())
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE meta SET value = '[8, 9, 10, 11]' WHERE name = 'complete_plies'")
        conn.execute("DELETE FROM positions WHERE ply = 12 AND key % 2 = 0")
        conn.commit()
        held = conn.execute("SELECT count(*) FROM positions WHERE ply = 12").fetchone()[0]
    stamp(str(path))  # the meta's checksum, as a build writes it
    assert c4book("pack", "--db", str(path)).stdout == f"{path}: packed {179 + held} rows\n"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("ATTACH ? AS rows_book", (f"file:{small_rows_book_path}?mode=ro",))
        conn.execute(
            "INSERT INTO positions SELECT * FROM rows_book.positions WHERE ply = 12 AND key % 2 = 0"
        )
        conn.commit()
    stats = json.loads(c4book("stats", "--db", str(path), "--json").stdout)
    ((_, _, blob),) = segment_rows(str(path), 12)
    assert stats["positions_per_ply"]["12"] == 574 and stats["plies_complete"] == [8, 9, 10, 11]
    assert stats["storage_per_ply"]["12"] == {
        "form": "packed+rows",
        "packed": held,
        "packed_bytes": len(blob),
        "rows": 574 - held,
        "bytes_per_packed_position": round(len(blob) / held, 2),
    }
    assert stats["storage_per_ply"]["11"]["form"] == "sealed"
    line = c4book("stats", "--db", str(path)).stdout.splitlines()[6]
    # Ply 12 is not marked complete here, though it holds every position: all of it.
    assert stats["coverage_per_ply"] == {"12": 1.0}
    assert line.split()[6:] == [
        "packed+rows",
        f"{len(blob) / held:.2f}",
        f"({574 - held:,}",
        "rows)",
        "(100.0%",
        "of",
        "the",
        "ply)",
    ]


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


@pytest.mark.parametrize("command", ["solve", "query", "move", "play", "build"])
@pytest.mark.parametrize("board", ["3x3", "10x7", "8x8", "7x"])
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
    assert "width 4-9" in lines[0] and "64 bits" in lines[0]
    assert not (tmp_path / "x.db").exists()


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

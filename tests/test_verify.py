"""``verify`` and ``c4book verify`` on the real small book, sound and deliberately damaged.

True scores of damaged entries come from ``Solver``, not from the book.
"""

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from bookgen import BookNotFoundError, NotABookError
from bookgen.builder.verify import verify
from solver import Position, Solver
from solver.packed import moves_of_key

from conftest import SMALL_PLY, SMALL_ROOT

C4BOOK = str(Path(sys.executable).with_name("c4book"))
COUNTS = {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
DERIVED = 1 + 6 + 36 + 136
ALL_PLIES = [8, 9, 10, 11, 12]


@pytest.fixture(scope="module")
def solver():
    return Solver(table_log2=20)


def execute(path: str, sql: str, *args) -> int:
    with closing(sqlite3.connect(path)) as conn:
        changed = conn.execute(sql, args).rowcount
        conn.commit()
    return changed


def stored(path: str, sql: str, *args) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(sql, args).fetchall()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([C4BOOK, "verify", *args, "--no-progress"], capture_output=True,
                          text=True, timeout=300)


def key(moves: str) -> int:
    return Position.from_moves(moves).key


def parents_of(path: str, moves: str) -> list[str]:
    """Every book position one move above ``moves``, found by replay, as verify shows them."""
    target = Position.from_moves(moves).canonical_key
    parents = []
    for (stored_key,) in stored(path, "SELECT key FROM positions WHERE ply = ? ORDER BY key",
                                len(moves) - 1):
        parent = moves_of_key(stored_key, SMALL_ROOT)
        position = Position.from_moves(parent)
        if any(position.can_play(c) and not position.is_winning_move(c)
               and position.play(c).canonical_key == target for c in range(1, 8)):
            parents.append(parent)
    return parents


# -- a sound book --------------------------------------------------------------

def test_the_small_book_verifies(small_book_path):
    before = Path(small_book_path).read_bytes()
    report = verify(small_book_path, sample=25, progress=False)
    assert report.ok and report.problems == []
    assert (report.entries, report.derived_checked, report.frontier_sampled) == (753, DERIVED, 25)
    assert report.plies_counted == ALL_PLIES
    assert Path(small_book_path).read_bytes() == before  # verify only reads


def test_cli_passes_on_the_small_book(small_book_path):
    result = run_cli("--db", small_book_path, "--sample", "10")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (
        f"{small_book_path}: 753 entries; {DERIVED} checked against their children, 10 frontier "
        f"entries re-solved, complete plies counted: {ALL_PLIES}\n"
        "OK: the book is consistent\n")


def test_cli_runs_as_a_module_too(small_book_path):
    result = subprocess.run([sys.executable, "-m", "bookgen.cli", "verify", "--db",
                             small_book_path, "--sample", "0", "--no-progress"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "0 frontier entries re-solved" in result.stdout and "OK" in result.stdout


# -- a damaged derived entry -----------------------------------------------------

def test_an_altered_derived_score_is_reported_with_its_parents(small_book_copy, solver):
    (stored_key, score, best, packed), = stored(
        small_book_copy, "SELECT key, score, best_moves, move_scores FROM positions "
        "WHERE ply = 11 ORDER BY key LIMIT 1")
    moves = moves_of_key(stored_key, SMALL_ROOT)
    truth = solver.solve(Position.from_moves(moves))
    assert (moves, score, truth) == ("44444433111", 2, 2)
    assert execute(small_book_copy, "UPDATE positions SET score = 5 WHERE key = ?",
                   stored_key) == 1

    report = verify(small_book_copy, sample=0, progress=False)
    assert not report.ok
    parents = parents_of(small_book_copy, moves)
    assert parents == ["4444443311"]
    parent_scores = solver.analyze(Position.from_moves("4444443311"))
    assert parent_scores == [-2, 16, 2, None, 15, 15, -1]
    assert report.problems[0] == (
        f"'4444443311': stored score 16 best 2 moves {parent_scores}, but its "
        f"children give score 16 best 2 moves {[-5] + parent_scores[1:]}")
    assert report.problems[1] == (
        f"'{moves}': stored score 5 best 2 moves [-15, 2, -15, None, -15, -15, -15], but its "
        f"children give score {truth} best 2 moves [-15, 2, -15, None, -15, -15, -15]")
    assert len(report.problems) == 2
    assert (report.derived_checked, report.plies_counted) == (DERIVED, ALL_PLIES)


@pytest.mark.parametrize("column, value, shown", [
    ("best_moves", "'5'", "stored score 2 best 5 moves"),
    ("wdl", "0", "stored score 2 best 2 moves"),
    # -15 2 _ -15 -15 -15 -15: column 3 shown full and column 4 open, the wrong way round
    ("move_scores", "X'31420031313131'", "moves [-15, 2, None, -15, -15, -15, -15], but"),
])
def test_any_altered_derived_column_is_reported(small_book_copy, column, value, shown):
    execute(small_book_copy, f"UPDATE positions SET {column} = {value} WHERE key = ?",
            key("44444433111"))
    report = verify(small_book_copy, sample=0, progress=False)
    assert len(report.problems) == 1, report.problems
    assert report.problems[0].startswith("'44444433111': stored score 2 best")
    assert shown in report.problems[0]
    assert report.problems[0].endswith(
        "but its children give score 2 best 2 moves [-15, 2, -15, None, -15, -15, -15]")


def test_cli_reports_an_altered_root_and_exits_1(small_book_copy, solver):
    assert solver.solve(Position.from_moves(SMALL_ROOT)) == 16
    execute(small_book_copy, "UPDATE positions SET score = 15 WHERE key = ?", key(SMALL_ROOT))
    result = run_cli("--db", small_book_copy, "--sample", "0")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines()[1:] == [
        "FAILED: 1 problems; the first ones:",
        "  '44444433': stored score 15 best 25 moves [0, 16, 2, None, 16, 0, 2], but its "
        "children give score 16 best 25 moves [0, 16, 2, None, 16, 0, 2]"]


# -- a damaged frontier entry ----------------------------------------------------

def test_an_altered_frontier_entry_is_caught_by_the_fresh_solve_sample(small_book_copy, solver):
    moves = "444444331233"
    position = Position.from_moves(moves)
    truth = solver.solve(position)
    true_best = "".join(str(c) for c in position.legal_moves()
                        if solver.is_best_move(position, c, truth))
    assert (truth, true_best) == (-2, "1256")
    # best moves alone: the parents' check cannot see it, only a re-solve can
    execute(small_book_copy, "UPDATE positions SET best_moves = '12' WHERE key = ?", key(moves))
    assert verify(small_book_copy, sample=0, progress=False).ok

    report = verify(small_book_copy, sample=1000, progress=False)
    assert report.frontier_sampled == COUNTS[SMALL_PLY]
    assert report.problems == [f"'{moves}': stored score -2 best 12, but a fresh solve gives "
                               f"score -2 best 1256"]


def test_cli_reports_an_altered_frontier_score_and_exits_1(small_book_copy, solver):
    moves = "444444331112"
    truth = solver.solve(Position.from_moves(moves))
    assert truth == -2
    execute(small_book_copy, "UPDATE positions SET score = 3, wdl = 1 WHERE key = ?", key(moves))
    result = run_cli("--db", small_book_copy, "--sample", "574")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "574 frontier entries re-solved" in lines[0]
    assert lines[1] == "FAILED: 2 problems; the first ones:"
    # its parent no longer matches its children, and the re-solve names the entry itself
    assert lines[2].startswith("  '44444433111': stored score 2 best 2 moves")
    assert lines[3] == (f"  '{moves}': stored score 3 best 2, but a fresh solve gives "
                        f"score {truth} best 2")


# -- counts ----------------------------------------------------------------------

def test_a_deleted_frontier_row_fails_the_count(small_book_copy):
    moves = "444444331112"
    parents = parents_of(small_book_copy, moves)
    assert parents == ["44444433111"]
    assert execute(small_book_copy, "DELETE FROM positions WHERE key = ?", key(moves)) == 1
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.entries == 752
    assert report.problems == [
        "'44444433111': '444444331112' (child of '44444433111') is not in the book",
        "ply 12: 573 stored positions, 574 enumerated (1 missing, 0 unexpected)"]
    result = run_cli("--db", small_book_copy, "--sample", "0")
    assert result.returncode == 1
    assert "  ply 12: 573 stored positions, 574 enumerated (1 missing, 0 unexpected)" in \
        result.stdout.splitlines()


def test_an_unexpected_row_fails_the_count(small_book_copy):
    # a ply-12 position that is not reachable from the root: 4444443 then 3 ... (column 3 first)
    extra = Position.from_moves("444444313131")
    row = (extra.canonical_key, 12, 0, 0, "1", None, 0)
    execute(small_book_copy, "INSERT INTO positions VALUES (?, ?, ?, ?, ?, ?, ?)", *row)
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.problems == [
        "ply 12: 575 stored positions, 574 enumerated (0 missing, 1 unexpected)"]


def test_only_complete_plies_are_counted(small_book_copy):
    execute(small_book_copy, "DELETE FROM positions WHERE key = ?", key("444444331112"))
    execute(small_book_copy, "UPDATE meta SET value = '[8, 9, 10, 11]' "
                             "WHERE name = 'complete_plies'")
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.plies_counted == [8, 9, 10, 11]
    assert report.problems == [
        "'44444433111': '444444331112' (child of '44444433111') is not in the book"]


# -- keys that are not what their row says ------------------------------------

def test_a_key_that_is_not_canonical(small_book_copy):
    # the root's mirror image: the same position, but not the key a book stores
    mirror = key("44444455")
    execute(small_book_copy, "UPDATE positions SET key = ? WHERE key = ?", mirror, key(SMALL_ROOT))
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.problems[0] == f"key {mirror}: not the canonical key of a position at ply 8"
    assert "ply 8: 1 stored positions, 1 enumerated (1 missing, 1 unexpected)" in report.problems


def test_a_key_at_the_wrong_ply(small_book_copy):
    execute(small_book_copy, "UPDATE positions SET ply = 9 WHERE key = ?", key("4444443311"))
    report = verify(small_book_copy, sample=0, progress=False)
    assert f"key {key('4444443311')}: not the canonical key of a position at ply 9" in \
        report.problems


def test_a_key_no_game_reaches_is_named_by_its_number(small_book_copy):
    # the root with one more first-player stone: no game reaches it
    impossible = key(SMALL_ROOT) + (1 << 7)
    execute(small_book_copy, "UPDATE positions SET key = ? WHERE key = ?", impossible,
            key(SMALL_ROOT))
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.problems[0].startswith(f"key {impossible}: not the canonical key")


# -- not a book ------------------------------------------------------------------

def test_missing_or_foreign_files(tmp_path):
    missing = str(tmp_path / "missing.db")
    with pytest.raises(BookNotFoundError, match="no book at"):
        verify(missing, progress=False)
    result = run_cli("--db", missing)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"c4book verify: error: no book at {missing!r}\n"
    assert not os.path.exists(missing)

    text_file = tmp_path / "notes.txt"
    text_file.write_text("hello\n")
    with pytest.raises(NotABookError, match="not a SQLite file"):
        verify(str(text_file), progress=False)
    result = run_cli("--db", str(text_file))
    assert result.returncode == 1
    assert result.stderr.startswith("c4book verify: error:") and str(text_file) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1

"""Tests for ``c4book solve``: through the installed command and ``solve_lines`` directly."""

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bookgen.cli.solve import format_scores, solve_lines
from solver import Board

DATA = Path(__file__).parent / "data"
MIDDLE_EASY = DATA / "Test_L2_R1"

# End-Easy lines with full columns; their 'analyze' rows were checked by brute force.
ANALYZED = {
    "427566236745127177115664464254": "2 2 1 x 2 x 2",
    "12156756715535615116237724723": "x -2 -2 -6 x -2 -2",
    "67152117737262713366376314254": "-5 -5 -5 -1 6 -5 x",
}


def c4book_command():
    """The console script installed next to this Python, else the module."""
    script = Path(sys.executable).with_name("c4book")
    if script.exists():
        return [str(script)]
    found = shutil.which("c4book")
    return [found] if found else [sys.executable, "-m", "bookgen.cli"]


def run_solve(stdin, *options):
    return subprocess.run(
        [*c4book_command(), "solve", "--table-log2", "20", *options],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def sign(x):
    return (x > 0) - (x < 0)


# -- the real command ------------------------------------------------------------------


def test_command_reproduces_middle_easy_file():
    text = MIDDLE_EASY.read_text()
    result = run_solve(text)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout == text


def test_command_default_table_size():
    result = subprocess.run(
        [*c4book_command(), "solve"],
        input="427566236745127177115664464254\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "427566236745127177115664464254 2\n",
        "",
    )


def test_command_weak_prints_signs():
    lines = MIDDLE_EASY.read_text().splitlines()
    result = run_solve("\n".join(lines) + "\n", "--weak")
    assert result.returncode == 0, result.stderr
    expected = [f"{m} {sign(int(s))}" for m, s in (line.split() for line in lines)]
    assert result.stdout.splitlines() == expected
    assert {line.split()[1] for line in expected} == {"-1", "0", "1"}


def test_command_analyze_marks_full_columns():
    result = run_solve("".join(f"{m}\n" for m in ANALYZED), "--analyze")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"{m} {row}" for m, row in ANALYZED.items()]


@pytest.mark.slow
def test_command_analyze_early_full_column():
    # Column 4 filled in the first six moves; about 12 s of search.  The row is
    # the solver's own answer, consistent with solve("4444441") == 1.
    result = subprocess.run(
        [*c4book_command(), "solve", "--analyze"],
        input="4444441\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (result.returncode, result.stdout) == (0, "4444441 -2 1 -2 x -2 -1 -3\n")


def test_command_analyze_weak():
    result = run_solve("427566236745127177115664464254\n", "--analyze", "--weak")
    assert result.stdout == "427566236745127177115664464254 1 1 1 x 1 x 1\n"


def test_command_reports_bad_lines_and_goes_on():
    good = MIDDLE_EASY.read_text().splitlines()[:3]
    stdin = (
        "\n".join([good[0], "48", "44444444", good[1], "12121212", "abc", "1212121", good[2]])
        + "\n"
    )
    result = run_solve(stdin)
    assert result.returncode == 1
    assert result.stdout.splitlines() == good  # every good line, in order, after the bad ones
    assert result.stderr.splitlines() == [
        "line 2: illegal move '8' at position 2 of '48': columns are digits 1-7",
        "line 3: column 4 is full at move 7 of '44444444'",
        "line 5: move 2 at position 8 of '12121212' comes after the game was won",
        "line 6: illegal move 'a' at position 1 of 'abc': columns are digits 1-7",
        "line 7: the game is over after '1212121': nothing to solve",
    ]


def test_command_empty_input():
    result = run_solve("")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_command_bad_option_is_usage_error():
    result = run_solve("", "--no-such-option")
    assert result.returncode == 2
    assert "unrecognized arguments: --no-such-option" in result.stderr


def test_command_threads():
    # Begin-Medium lines are long enough for the two threads to race.
    lines = (DATA / "Test_L1_R2").read_text().splitlines()[:3]
    text = "\n".join(lines) + "\n"
    result = run_solve(text, "--threads", "2")
    assert (result.returncode, result.stdout, result.stderr) == (0, text, "")
    for bad in ("0", "two"):
        result = run_solve("", "--threads", bad)
        assert result.returncode == 2
        assert f"{bad!r} is not a thread count" in result.stderr
        assert "Traceback" not in result.stderr


# -- solve_lines in process -------------------------------------------------------------


def solve_text(text, **options):
    out, err = io.StringIO(), io.StringIO()
    status = solve_lines(io.StringIO(text), out, err, table_log2=16, **options)
    return status, out.getvalue(), err.getvalue()


def test_solve_lines_scores_and_ignores_extra_fields():
    text = "".join(MIDDLE_EASY.read_text().splitlines(keepends=True)[:50])
    assert solve_text(text) == (0, text, "")


def test_solve_lines_skips_blank_lines_but_counts_them():
    status, out, err = solve_text(" \n   \n427566236745127177115664464254\n\t\n48\n")
    assert status == 1
    assert out == "427566236745127177115664464254 2\n"
    assert err == "line 5: illegal move '8' at position 2 of '48': columns are digits 1-7\n"


def test_an_empty_line_is_the_empty_board_as_in_pons_solver():
    # Pons' solver reads an empty line as no moves, and prints the line, a space, the score.
    four = Board(4, 4)  # (7x6's empty board takes minutes)
    assert solve_text("\n3\r\n\n", board=four) == (0, " 0\n3 0\n 0\n", "")
    assert solve_text("\n", board=four, analyze=True) == (0, " 0 0 0 0\n", "")


def test_solve_lines_weak():
    status, out, _ = solve_text(
        "427566236745127177115664464254\n12156756715535615116237724723 -2\n", weak=True
    )
    assert (status, out) == (
        0,
        "427566236745127177115664464254 1\n12156756715535615116237724723 -1\n",
    )


def test_solve_lines_analyze():
    status, out, err = solve_text("".join(f"{m}\n" for m in ANALYZED), analyze=True)
    assert (status, err) == (0, "")
    assert out == "".join(f"{m} {row}\n" for m, row in ANALYZED.items())


def test_solve_lines_analyze_weak():
    status, out, _ = solve_text("67152117737262713366376314254\n", analyze=True, weak=True)
    assert (status, out) == (0, "67152117737262713366376314254 -1 -1 -1 -1 1 -1 x\n")


@pytest.mark.parametrize(
    "line, reason",
    [
        ("48", "illegal move '8' at position 2 of '48'"),
        ("44444444", "column 4 is full at move 7 of '44444444'"),
        ("12121212", "move 2 at position 8 of '12121212' comes after the game was won"),
        ("abc", "illegal move 'a' at position 1 of 'abc'"),
        ("547125662261271266215743771576315353334444", "the game is over after"),
    ],
)
def test_solve_lines_bad_line(line, reason):
    status, out, err = solve_text(f"{line}\n427566236745127177115664464254\n")
    assert status == 1
    assert out == "427566236745127177115664464254 2\n"
    assert err.startswith(f"line 1: {reason}")
    assert err.count("\n") == 1


def test_format_scores():
    assert format_scores([1, None, -2, 0]) == "1 x -2 0"

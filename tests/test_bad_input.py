"""Bad input to ``c4book``: a table of argument lists, each answered by one line naming
what is wrong and a non-zero exit, never a traceback (issue 41, items 22-24).

The table runs in this process through ``bookgen.cli.main`` (a real run of each
command up to its refusal: argparse, the book's opening, the build's checks);
a few cases that need a process of their own (stdout to ``/dev/full``, the
console script itself) run as subprocesses.
"""

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest
from conftest import PLY10, c4book_command

from bookgen.cli import main

LONG = "9" * 5000  # past int()'s 4,300 digits
MEMORY_DBS = ["", ":memory:", "sqlite://", "sqlite:///:memory:", "sqlite+pysqlite://"]

# (argument list, exit status, words the one line must hold)
USAGE = (
    [
        (["move", "4453", "--time", "1e308"], "'1e308' is not a number of seconds"),
        (["move", "4453", "--time", "inf"], "at most 86400 (a day)"),
        (["move", "4453", "--time", "٣"], "'٣'"),
        (["play", "--time", "1e308"], "--time"),
        (["serve", "--time", "1e308"], "--time"),
        (["serve", "--time", "0"], "above 0"),
        (["build", "--ply", "٣"], "'٣' is not a whole number"),
        (["build", "--ply", LONG], "'9999999999"),
        (["build", "--ply", "3", "--workers", "٢"], "--workers"),
        (["build", "--ply", "3", "--threads", "0"], "--threads"),
        (["build", "--ply", "3", "--dry-run", "--sample", "0"], "1 to 100000"),
        (["build", "--ply", "3", "--dry-run", "--sample", "-1"], "1 to 100000"),
        (["verify", "--sample", "99999999999"], "0 to 100000"),
        (["verify", "--sample", "-1"], "0 to 100000"),
        (["verify", "--seed", "\u0661"], "--seed"),
        (["serve", "--workers", "1000000"], "1 to 32"),
        (["serve", "--port", "٨٠٠٠"], "--port"),
        (["solve", "--threads", "1000000"], "1 to 256"),
        (["solve", "--table-log2", "٢٠"], "--table-log2"),
        (["play", "--seed", "1e5"], "--seed"),
        (["build", "--ply", "3", "--part", "3/2"], "'3/2' is not a part: I/K"),
        (["build", "--ply", "3", "--part", "٢/٣"], "is not a part"),
        (["merge", "--db", "{tmp}/x.db"], "PART"),
    ]
    + [(["build", "--ply", "3", "--db", db], "in memory") for db in MEMORY_DBS]
    + [(["pack", "--db", ":memory:"], "in memory"), (["upgrade", "--db", "sqlite://"], "in memory")]
)

NEEDS_DRIVER = importlib.util.find_spec("MySQLdb") is None
RUNTIME = [
    (["build", "--ply", "3", "--sample", "5", "--db", "{tmp}/new.db"], "--dry-run"),
    (["build", "--ply", "3", "--part", "1/2", "--dry-run", "--db", "{tmp}/new.db"], "--part 1/2"),
    (["merge", "--db", "{tmp}/new.db", "{tmp}/none.db"], "none.db' is no book"),
    (["query", "4453", "--db", "nosuch://x"], "'nosuch://x' is not a database URL"),
    (["build", "--ply", "3", "--db", "nosuch://x"], "'nosuch://x'"),
    (["verify", "--db", "postgresql://x:y:z"], "'postgresql://x:y:z' is not a database URL"),
    (
        ["stats", "--db", "mysql://u@localhost/x"],
        "database driver 'MySQLdb'" if NEEDS_DRIVER else "mysql://u@localhost/x",
    ),
    (["query", "4453", "--db", "postgresql://127.0.0.1:1/x"], "postgresql://127.0.0.1:1/x"),
    (["move", "4453", "--db", "{tmp}"], "directory"),
    (["play", "--db", "{tmp}/none.db"], "no book"),
] + (
    [
        (["stats", "--db", "/proc/self/mem"], "cannot read '/proc/self/mem'"),
        (["upgrade", "--db", "/proc/self/mem"], "cannot read"),
    ]
    if os.path.exists("/proc/self/mem")
    else []
)


def one_line(capsys, command: str, *words: str) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"c4book {command}: error: "), lines[0]
    assert len(lines[0]) < 400, lines[0]  # a long input is cut short in the message
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def run_main(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's refusal
        code = stop.code  # as the process would exit: None 0, a message 1
        return code if isinstance(code, int) else int(code is not None)


@pytest.mark.parametrize("argv, words", USAGE)
def test_a_bad_argument_is_a_usage_error_of_one_line(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_main(argv) == 2
    line = one_line(capsys, argv[0], words)
    assert line.endswith(f"(see c4book {argv[0]} --help)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, words", RUNTIME)
def test_an_input_that_cannot_be_used_is_one_line_and_exit_1(
    argv, words, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    assert run_main(argv) == 1
    one_line(capsys, argv[0], words.replace("{tmp}", str(tmp_path)))
    assert list(tmp_path.iterdir()) == []  # nothing made, not even an empty book


def test_the_console_script_says_the_same_in_one_line():
    """Through the real script: usage and runtime refusals, one line each, no traceback."""
    for argv, status in (
        (["move", "4453", "--time", "1e308"], 2),
        (["build", "--ply", "3", "--db", "sqlite://"], 2),
        (["query", "4453", "--db", "nosuch://x"], 1),
    ):
        result = subprocess.run(
            [*c4book_command(), *argv], capture_output=True, text=True, timeout=120
        )
        assert result.returncode == status, result.stderr
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("argv", [["query", "4453"], ["stats"], ["solve"]])
def test_output_that_cannot_be_written_is_one_line(argv):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*c4book_command(), *argv, *(["--db", str(PLY10)] if argv[0] != "solve" else [])],
            stdout=full,
            stderr=subprocess.PIPE,
            # (solve: an endgame of Pons' set, solved at once; the write is what fails)
            input=None if argv[0] != "solve" else "2252576253462244111563365343671351441\n",
            text=True,
            timeout=120,
        )
    assert result.returncode == 1
    assert (
        result.stderr.strip() == f"c4book {argv[0]}: error: cannot write the output: "
        "No space left on device"
    )


def test_a_path_object_and_a_good_number_still_work(capsys):
    """The checks refuse only what is wrong: ASCII numbers within bounds, as before."""
    assert run_main(["move", "4453", "--db", str(Path(PLY10)), "--time", "1.5e1"]) == 0
    assert capsys.readouterr().out.startswith("3  (book, score -2")

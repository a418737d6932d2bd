"""``c4book build --dry-run``: sizes and a cost estimate, writing nothing."""

import io
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import SMALL_PLY, SMALL_ROOT, c4book_command


def test_dry_run_sizes_the_build_and_writes_nothing(small_book_path, tmp_path):
    from bookgen.builder.dryrun import dry_run

    absent = tmp_path / "absent.db"
    report = dry_run(
        str(absent), SMALL_PLY, SMALL_ROOT, sample=5, progress=False, out=io.StringIO()
    )
    assert not absent.exists()
    assert report.positions_per_ply == {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
    assert (report.frontier, report.missing, report.stored_per_ply) == (574, 574, {})
    assert len(report.sample_seconds) == 5
    assert report.load_seconds > 0  # timed apart from the sample
    estimate, low, high = report.core_hours()
    assert 0 <= low <= estimate <= high
    assert "core-hours (95% range" in report.report()

    before = Path(small_book_path).read_bytes()
    report = dry_run(
        Path(small_book_path), 13, SMALL_ROOT, sample=3, progress=False, out=io.StringIO()
    )  # a Path, as a str
    assert Path(small_book_path).read_bytes() == before and report.db == small_book_path
    assert report.stored_per_ply == {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
    assert (report.frontier, report.missing) == (1762, 1762)

    report = dry_run(
        small_book_path, SMALL_PLY, SMALL_ROOT, sample=3, progress=False, out=io.StringIO()
    )
    assert (report.frontier, report.missing, report.sample_seconds) == (574, 0, [])
    assert "search cost: none, the frontier is all stored" in report.report()


def test_dry_run_on_the_command_line(tmp_path):
    path = tmp_path / "sized.db"
    command = [
        *c4book_command(),
        "build",
        "--ply",
        "10",
        "--root",
        SMALL_ROOT,
        "--db",
        str(path),
        "--dry-run",
        "--sample",
        "3",
        "--no-progress",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"dry run for book {path}: root {SMALL_ROOT}, up to ply 10; nothing written"
    )
    assert "   10          36           0" in lines
    assert "frontier (ply 10): 36 positions, 0 already stored, 36 to search" in lines
    cost = [line for line in lines if line.startswith("search cost: about ")]
    assert len(cost) == 1 and "from 3 random missing" in cost[0]  # then maybe why it is wide
    assert not path.exists()
    bad = subprocess.run(
        [*command[:3], "7", *command[4:]], capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr == (
        "c4book build: error: --ply 7 must be between the root's ply (8) and 42\n"
    )


def test_a_wide_range_says_why():
    from bookgen.builder.dryrun import DryRunReport

    # One slow position among quick ones: the heavy tail that makes a cold sample's range wide.
    report = DryRunReport(
        root="",
        ply=12,
        db="book.db",
        frontier=1000,
        missing=1000,
        sample_seconds=[0.01] * 99 + [9.01],
    )
    _estimate, low, high = report.core_hours()
    assert low == 0 and high > 2 * low
    assert report.report().splitlines()[-1] == (
        "  the range is wide because search times vary a lot between positions: the slowest "
        "of the 100 took 90% of the sample's time; a --sample four times larger halves the range"
    )
    report.sample_seconds = [0.1, 0.11, 0.12, 0.1]  # alike: a narrow range, no word on it
    assert report.report().splitlines()[-1].startswith("search cost: about ")


@pytest.mark.slow
def test_compiling_the_kernels_is_not_counted_as_search(tmp_path):
    # Issue 48: with an empty numba cache the first sample solve took the compile (tens of
    # seconds), and 7x4 to ply 10 was estimated at 150 core-hours, 0.08 the next time.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}  # compiled afresh
    command = [*c4book_command(), "build", "--board", "5x4", "--ply", "8", "--dry-run"]
    result = subprocess.run(
        [*command, "--db", str(tmp_path / "b.db"), "--sample", "10", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    found = re.search(r"\(([\d.]+) ms each on average, after ([\d.]+) s loading", result.stdout)
    assert found is not None, result.stdout
    each, loading = float(found[1]), float(found[2])
    # The compile (about 25 s), then positions solved in well under a millisecond each.
    assert loading > 5 and each < 100


def test_a_dry_run_past_64_bits(tmp_path):
    from conftest import WIDE_ROOT

    from bookgen.builder.dryrun import dry_run

    # Keys of two words: sampled, kept in key order and replayed as on one word.
    absent = tmp_path / "wide.db"
    report = dry_run(
        str(absent), 52, WIDE_ROOT, sample=4, progress=False, out=io.StringIO(), board="8x8"
    )
    assert report.positions_per_ply == {48: 1, 49: 4, 50: 15, 51: 40, 52: 82}
    assert (report.frontier, report.missing, len(report.sample_seconds)) == (82, 82, 4)
    assert report.report().startswith(f"dry run for book {absent}: 8x8 board, root {WIDE_ROOT}")
    assert not absent.exists()

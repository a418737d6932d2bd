"""``builder.extrapolate``: a frontier too costly to sample, carried back from further on."""

import io
import math
import random
import subprocess

import pytest
from conftest import c4book_command

from bookgen.builder.extrapolate import (
    AHEAD_LEFT,
    Level,
    ahead,
    carried_back,
    played_on,
)
from solver import Board, Position, Solver


def test_a_steady_growth_is_carried_back_exactly():
    # Each solve twice as long as two cells before: sqrt(2) a cell, 8 ms at 24 left, so 64 ms
    # at 30, and no spread about the line: no band either.
    levels = [Level(20, (0.002, 0.002)), Level(22, (0.004,)), Level(24, (0.008, 0.008, 0.008))]
    guess = carried_back(levels, 30)
    assert guess.growth == pytest.approx(math.sqrt(2))
    assert (guess.mean, guess.low, guess.high) == pytest.approx((0.064, 0.064, 0.064))
    assert guess.levels == tuple(levels) and guess.frontier_left == 30


def test_a_spread_gives_a_band_about_the_mean():
    # Two solves a level, half and twice a line that doubles every two cells: each level's
    # mean is 1.25 times the line, so the fit is exact; resampling the solves moves it.
    line = [0.001 * 2**k for k in range(1, 6)]  # 20 to 28 cells left: 2 to 32 ms
    levels = [
        Level(18, (9.0,)),  # past FIT_LEVELS from the frontier: not fitted
        *(Level(20 + 2 * k, (t / 2, t * 2)) for k, t in enumerate(line)),
    ]
    near, far = carried_back(levels, 30), carried_back(levels, 40)
    assert near.mean == pytest.approx(1.25 * 0.064) and near.growth == pytest.approx(math.sqrt(2))
    assert near.low < near.mean < near.high and far.high / far.low > near.high / near.low
    assert carried_back(levels, 30) == near  # the resamples are seeded
    text = near._replace(capped_at=30).report(60)
    assert text.startswith("  extrapolated: a frontier solve ran past 60 s")
    assert "18 cells left 9,000.0 ms" in text and "at 30 cells left a solve ran past 60 s" in text
    assert (
        "(95% bootstrap band " in text and "an estimate, not a measurement, and likely low" in text
    )


def test_played_on_keeps_the_game_open_and_calm():
    rng = random.Random(7)
    start = Position.from_moves("4453")
    for moves in (1, 2, 10, 20):
        position = played_on(start, moves, rng)
        assert position is not None and position.ply == 4 + moves
        assert position.moves.startswith("4453") and not position.is_game_over
        assert not any(position.is_winning_move(c) for c in position.legal_moves())
    # One cell from the end, no move leaves the game open.
    full = Position.from_moves("432131114423423", Board.parse("4x4"))
    assert full.ply == 15 and not full.is_game_over
    assert played_on(full, 1, rng) is None


def test_ahead_times_levels_toward_the_frontier():
    solver = Solver(table_log2=20)
    solver.load_kernels()  # (not in the times: a dry run loads them first too)
    frontier = [Position.from_moves(m) for m in ("44", "35", "12")]  # 40 cells left
    guess = ahead(solver, frontier, cap=0.02, seed=3)
    assert guess is not None and guess.frontier_left == 40
    lefts = [level.left for level in guess.levels]
    assert lefts[0] == AHEAD_LEFT and lefts == list(range(AHEAD_LEFT, lefts[-1] + 1, 2))
    assert lefts[-1] < 40 and all(len(level.seconds) == 3 for level in guess.levels)
    assert all(0 < s <= 0.5 for level in guess.levels for s in level.seconds)
    assert 0 < guess.low <= guess.mean <= guess.high


def test_a_dry_run_past_its_cap_is_carried_back(tmp_path):
    from bookgen.builder.dryrun import dry_run

    report = dry_run(
        str(tmp_path / "absent.db"), 4, "", sample=3, progress=False, out=io.StringIO(), cap=0.02
    )
    assert report.capped and report.extrapolation is not None
    assert report.sample_seconds == [] or max(report.sample_seconds) <= 0.5
    estimate, low, high = report.core_hours()
    per_position = report.extrapolation.mean
    assert estimate == pytest.approx(per_position * 568 / 3600)
    assert 0 < low <= estimate <= high
    lines = report.report().splitlines()
    assert lines[-2].startswith("search cost: about ") and "ms a position" in lines[-2]
    assert lines[-1].startswith("  extrapolated: a frontier solve ran past 0.02 s")
    assert not (tmp_path / "absent.db").exists()


def test_sample_cap_on_the_command_line(tmp_path):
    base = [*c4book_command(), "build", "--ply", "4", "--db", str(tmp_path / "b.db")]
    bad = subprocess.run([*base, "--dry-run", "--sample-cap", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr == (
        "c4book build: error: argument --sample-cap: '0' is not a number of seconds above 0 "
        "and at most 86400 (a day) (see c4book build --help)\n"
    )
    alone = subprocess.run([*base, "--sample-cap", "5"], capture_output=True, text=True)
    assert alone.returncode == 1 and alone.stderr == (
        "c4book build: error: --sample-cap 5 sizes a --dry-run's estimate; a build searches "
        "every position: add --dry-run, or leave out --sample-cap\n"
    )
    assert not (tmp_path / "b.db").exists()

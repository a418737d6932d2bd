"""A frontier too costly to sample: positions further on timed, and their cost carried back.

A dry run estimates a build's search by solving a sample of its frontier.
Where one such solve runs past a cap (an 8x8 position 52 cells from the
end takes hours), ``ahead`` times positions further on instead: from each
sampled frontier position, calm random play (``calm_move``: it neither
takes a win nor hands one over), ``AHEAD_LEFT`` cells from the end first (quick),
then two cells more at a time (the same player to move), until a solve runs
past the cap.  The mean solve time grows about geometrically with the cells
left, so a least-squares line through the logarithms of the last ``FIT_LEVELS``
levels' means, carried back to the frontier, estimates a frontier
position's mean; the range is a 95% bootstrap band (each level's solves
resampled, the line fitted again).  It is an extrapolation, not a
measurement, and says so: the growth steepens toward the frontier, and on
7x6, where a frontier can be sampled too, such estimates fell 2-12 times
short (docs/scaling.md, "A frontier too costly to sample").
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from solver import Position, SearchLimitError, Solver
from solver.alarm import Alarm

from .solve_position import solve_position

AHEAD_LEFT = 20  # cells from the end of the first level: milliseconds a solve on any board
STEP = 2  # cells a level: an even step keeps the player to move
FIT_LEVELS = 5  # the levels nearest the frontier fit the growth: it steepens toward it
RESAMPLES = 1000  # bootstrap resamples of each level's solves, for the band
BAND = (0.025, 0.975)  # the band's quantiles: 95%


class Level(NamedTuple):
    """Positions ``left`` cells from the end, and each one's cold solve in seconds."""

    left: int
    seconds: tuple[float, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.seconds)


class Extrapolation(NamedTuple):
    """A frontier position's mean solve time, carried back from ``levels``."""

    frontier_left: int
    levels: tuple[Level, ...]
    mean: float  # seconds
    low: float
    high: float
    capped_at: int | None = None  # cells left of the level where a solve ran past the cap

    @property
    def growth(self) -> float:
        """The fitted growth of the mean a cell nearer the frontier."""
        return math.exp(_fit(self.levels[-FIT_LEVELS:])[1])

    def report(self, cap: float) -> str:
        steps = ", ".join(
            f"{level.left} cells left {1000 * level.mean:,.1f} ms" for level in self.levels
        )
        stop = (
            ""
            if self.capped_at is None
            else f"; at {self.capped_at} cells left a solve ran past {cap:g} s"
        )
        return (
            f"  extrapolated: a frontier solve ran past {cap:g} s, so positions further on were "
            f"timed ({len(self.levels[0].seconds)} a level, means: {steps}{stop}); the means grow "
            f"{self.growth:.2f}x a cell, which carried back to the frontier's "
            f"{self.frontier_left} cells left gives a mean of {_seconds(self.mean)} a position "
            f"(95% bootstrap band {_seconds(self.low)} to {_seconds(self.high)}): an estimate, "
            "not a measurement, and likely low (on 7x6 such estimates fell 2-12 times short of "
            "a sample of the frontier: docs/scaling.md)"
        )


def _seconds(value: float) -> str:
    if value >= 3600:
        return f"{value / 3600:,.1f} h"
    return f"{value:,.1f} s" if value >= 1 else f"{1000 * value:,.1f} ms"


def _fit(levels: Sequence[Level]) -> tuple[float, float]:
    """``(intercept, slope)`` of the least-squares line through the logs of the levels'
    means against their cells left (a flat line through one level)."""
    xs = [float(level.left) for level in levels]
    ys = [math.log(max(level.mean, 1e-9)) for level in levels]
    if len(levels) == 1:
        return ys[0], 0.0
    slope, intercept = statistics.linear_regression(xs, ys)
    return intercept, slope


def carried_back(levels: Sequence[Level], frontier_left: int, seed: int = 0) -> Extrapolation:
    """``levels`` (nearest the frontier last) carried back to ``frontier_left`` cells left:
    the fitted mean there, within a 95% bootstrap band (each level's solves resampled, the
    line fitted again: a few slow solves make a level's mean, and its noise)."""
    fitted = list(levels[-FIT_LEVELS:])
    intercept, slope = _fit(fitted)
    rng = random.Random(seed)
    again = sorted(math.exp(_at(fitted, rng, frontier_left)) for _ in range(RESAMPLES))
    low, high = (again[min(RESAMPLES - 1, int(q * RESAMPLES))] for q in BAND)
    mean = math.exp(intercept + slope * frontier_left)
    return Extrapolation(frontier_left, tuple(levels), mean, min(low, mean), max(high, mean))


def _at(levels: Sequence[Level], rng: random.Random, left: int) -> float:
    """The log mean at ``left`` of the line through ``levels`` resampled."""
    intercept, slope = _fit([_resampled(level, rng) for level in levels])
    return intercept + slope * left


def _resampled(level: Level, rng: random.Random) -> Level:
    return Level(level.left, tuple(rng.choices(level.seconds, k=len(level.seconds))))


def calm_move(position: Position, rng: random.Random) -> int:
    """A random move that neither takes a win nor hands one over while another move does not
    (plain random play mostly ends early on big boards); ``position`` is not over."""
    moves = position.legal_moves()
    quiet = [c for c in moves if not position.is_winning_move(c)] or moves
    return rng.choice([c for c in quiet if not hands_a_win(position.play(c))] or quiet)


def hands_a_win(position: Position) -> bool:
    """Whether the player to move can win at once."""
    moves = () if position.is_game_over else position.legal_moves()
    return any(position.is_winning_move(c) for c in moves)


def played_on(start: Position, moves: int, rng: random.Random, tries: int = 20) -> Position | None:
    """``start`` played ``moves`` further by ``calm_move``, unfinished and the player to move
    unable to win at once, or ``None`` if every try ended otherwise."""
    for _ in range(tries):
        position = start
        while position.ply < start.ply + moves and not position.is_game_over:
            position = position.play(calm_move(position, rng))
        if not position.is_game_over and not hands_a_win(position):
            return position
    return None


def timed_solve(
    solver: Solver, alarm: Alarm, position: Position | str, cap: float, known: tuple = ()
) -> float | None:
    """Seconds ``solve_position`` takes (``known``: its bounds), or ``None`` past ``cap``."""
    started = time.perf_counter()
    alarm.set(started + cap, lambda: solver.set_node_limit(1))
    try:
        solve_position(solver, position, *known)
    except SearchLimitError:
        return None
    finally:
        alarm.cancel()
        solver.set_node_limit(None)
    return time.perf_counter() - started


def ahead(
    solver: Solver,
    frontier: Sequence[Position],
    cap: float,
    seed: int,
    tick: Callable[[str], None] = lambda _: None,
) -> Extrapolation | None:
    """Levels of positions played on from ``frontier`` (all of one ply), each solved cold
    within ``cap`` seconds, carried back to the frontier; ``None`` if not even the first
    level solves within the cap."""
    board = solver.board
    frontier_left = board.cells - frontier[0].ply
    rng = random.Random(seed)
    alarm = Alarm()
    levels: list[Level] = []
    left = min(AHEAD_LEFT, frontier_left - STEP)
    left -= (frontier_left - left) % STEP  # (the same player to move as at the frontier)
    while 0 < left < frontier_left:
        tick(f"{left} cells left")
        seconds = []
        for start in frontier:
            position = played_on(start, frontier_left - left, rng)
            if position is None:  # every try ended the game: not a position to time
                continue
            solver.clear()  # cold, as the frontier's sample
            took = timed_solve(solver, alarm, position, cap)
            if took is None:
                return (
                    carried_back(levels, frontier_left)._replace(capped_at=left) if levels else None
                )
            seconds.append(took)
        if seconds:
            levels.append(Level(left, tuple(seconds)))
        left += STEP
    return carried_back(levels, frontier_left) if levels else None

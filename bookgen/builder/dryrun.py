"""``c4book build --dry-run``: what a build would cost, before paying for a cluster.

It lists every ply as the build would, counts what the book already holds,
and solves a small uniform random sample of the missing frontier on this
machine, one core, to estimate the search in core-hours with its spread
(with the bounds a book's previous ply gives, as the build has them).
It writes nothing: an absent book stays absent, Ray is never started.
Where a sample solve runs past ``--sample-cap`` seconds, the estimate comes
from positions further on instead, carried back to the frontier
(``extrapolate``).

The estimate is of cold searches: a build's workers solve neighbouring
positions one after another with a warm table, which usually costs less.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import IO

import numpy as np

from solver import Position, Solver
from solver.alarm import Alarm
from solver.bitboard import DEFAULT_TABLE_LOG2, Board

from ..book.format.location import book_location
from ..book.write.store import BookStore
from ..progress import progress_bar
from . import AHEAD_SAMPLE, DEFAULT_SAMPLE, SAMPLE_CAP
from .config import book_board, check_request
from .extrapolate import AHEAD_LEFT, Extrapolation, ahead, timed_solve
from .listing import keys_by_ply, moves_of_keys
from .missing import MissingKeys

Z95 = 1.96  # a normal 95% interval on the mean time per position


@dataclass
class DryRunReport:
    root: str
    ply: int
    db: str
    positions_per_ply: dict[int, int] = field(default_factory=dict)
    stored_per_ply: dict[int, int] = field(default_factory=dict)
    frontier: int = 0
    missing: int = 0
    sample_seconds: list[float] = field(default_factory=list)
    list_seconds: float = 0.0
    load_seconds: float = 0.0  # loading (or compiling) the kernels: not in the sample
    board: str = "7x6"
    cap: float = SAMPLE_CAP
    capped: bool = False  # a sample solve ran past ``cap``: the sample is not the estimate
    extrapolation: Extrapolation | None = None  # then, what positions further on say

    def core_hours(self) -> tuple[float, float, float]:
        """``(estimate, low, high)``: the missing frontier's search, 95% range (carried back
        from further on: the extrapolation's bootstrap band)."""
        if self.extrapolation is not None:
            guess, scale = self.extrapolation, self.missing / 3600
            return guess.mean * scale, guess.low * scale, guess.high * scale
        if not self.sample_seconds or not self.missing or self.capped:
            return 0.0, 0.0, 0.0
        mean = statistics.fmean(self.sample_seconds)
        spread = (
            Z95 * statistics.stdev(self.sample_seconds) / math.sqrt(len(self.sample_seconds))
            if len(self.sample_seconds) > 1
            else mean
        )
        scale = self.missing / 3600
        return mean * scale, max(0.0, mean - spread) * scale, (mean + spread) * scale

    def why_wide(self) -> str:
        """Why the 95% range is wide: a few positions take most of the search."""
        times = self.sample_seconds
        return (
            f"  the range is wide because search times vary a lot between positions: the "
            f"slowest of the {len(times)} took {max(times) / sum(times):.0%} of the sample's "
            f"time; a --sample four times larger halves the range"
        )

    def report(self) -> str:
        board = "" if self.board == "7x6" else f"{self.board} board, "
        lines = [
            (
                f"dry run for book {self.db}: {board}root {self.root or '(empty board)'}, "
                f"up to ply {self.ply}; nothing written"
            ),
            "  ply   positions      stored",
        ]
        for ply, count in self.positions_per_ply.items():
            lines.append(f"  {ply:>3}  {count:>10,}  {self.stored_per_ply.get(ply, 0):>10,}")
        lines.append(
            f"  total {sum(self.positions_per_ply.values()):,} positions, listed in "
            f"{self.list_seconds:.1f} s"
        )
        lines.append(
            f"frontier (ply {self.ply}): {self.frontier:,} positions, "
            f"{self.frontier - self.missing:,} already stored, {self.missing:,} to search"
        )
        if self.extrapolation is not None:
            estimate, low, high = self.core_hours()
            lines.append(
                f"search cost: about {estimate:,.4g} core-hours (range {low:,.4g} to {high:,.4g}), "
                f"{1000 * self.extrapolation.mean:,.4g} ms a position, after "
                f"{self.load_seconds:.1f} s loading the search kernels"
            )
            lines.append(self.extrapolation.report(self.cap))
        elif self.capped:
            lines.append(
                f"search cost: unknown: a sample solve ran past {self.cap:g} s, and so did "
                f"positions {AHEAD_LEFT} cells from the end (a larger --sample-cap waits longer)"
            )
        elif self.sample_seconds:
            estimate, low, high = self.core_hours()
            n = len(self.sample_seconds)
            lines.append(
                f"search cost: about {estimate:,.2f} core-hours (95% range {low:,.2f} to "
                f"{high:,.2f}), from {n} random missing positions solved cold on one core in "
                f"{sum(self.sample_seconds):.1f} s ({1000 * statistics.fmean(self.sample_seconds):.1f}"
                f" ms each on average, after {self.load_seconds:.1f} s loading the search "
                f"kernels); warm worker tables usually search less"
            )
            if high > 2 * low:
                lines.append(self.why_wide())
        elif self.missing == 0:
            lines.append("search cost: none, the frontier is all stored")
        return "\n".join(lines)


def sample_missing(frontier: MissingKeys, size: int, seed: int) -> np.ndarray:
    """A uniform random sample of ``size`` missing keys, drawn while streaming.

    Each key gets a random priority; the ``size`` smallest priorities win, so
    the sample is uniform without knowing the total in advance.
    """
    rng = np.random.default_rng(seed)
    keys: np.ndarray | None = None
    priorities = np.empty(0)
    for missing in frontier.chunks():  # in key order: kept in key order below
        keys = missing if keys is None else np.concatenate([keys, missing])
        priorities = np.concatenate([priorities, rng.random(len(missing))])
        if len(keys) > size:
            keep = np.sort(np.argpartition(priorities, size)[:size])
            keys, priorities = keys[keep], priorities[keep]
    return np.empty(0, np.uint64) if keys is None else keys


def dry_run(
    db: str = "book.db",
    ply: int = 8,
    root: str = "",
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 2026,
    table_log2: int = DEFAULT_TABLE_LOG2,
    progress: bool = True,
    out: IO[str] | None = None,
    board: Board | str | None = None,
    cap: float = SAMPLE_CAP,
) -> DryRunReport:
    """Size a build of ``db`` up to ``ply`` below ``root``; write nothing.  A sample solve past
    ``cap`` seconds makes the estimate an extrapolation from positions further on."""
    out = out or sys.stderr
    db = book_location(db)
    root_position = check_request(root, ply, book_board(db, board))
    report = DryRunReport(root=root, ply=ply, db=db, board=str(root_position.board), cap=cap)
    store = BookStore(
        db, root, root_position.canonical_key, readonly=True, board=root_position.board
    )
    try:
        started = time.perf_counter()
        levels = keys_by_ply(root_position, ply - 1) if ply > root_position.ply else {}
        frontier = MissingKeys(store if store.exists else None, root_position, levels, ply)
        chosen = sample_missing(frontier, max(0, sample), seed)
        report.list_seconds = time.perf_counter() - started
        report.positions_per_ply = {p: len(keys) for p, keys in levels.items()}
        report.positions_per_ply[ply] = frontier.total
        report.stored_per_ply = (
            {p: n for p, n in store.count_by_ply().items() if p <= ply} if store.exists else {}
        )
        report.frontier, report.missing = frontier.total, frontier.total - frontier.stored
        parents = store.entries_above(ply) if store.exists and ply > root_position.ply else None
    finally:
        store.close()
    if len(chosen):
        solver = Solver(table_log2=table_log2, board=root_position.board)
        if progress:
            print("loading the search kernels (compiled once after an install)", file=sys.stderr)
        report.load_seconds = solver.load_kernels()
        solver.clear()  # the sample is solved cold, as the estimate says
        bounds = parents.bounds(chosen) if parents is not None else None
        alarm = Alarm()
        sampled = moves_of_keys(chosen, root, root_position.board)
        for i, moves in enumerate(
            progress_bar(sampled, desc="sample solves", unit="pos", disable=not progress)
        ):
            known = bounds.known(i) if bounds is not None else ()
            took = timed_solve(solver, alarm, moves, cap, known)
            if took is None:  # too costly to sample: from further on, carried back
                report.capped = True
                report.extrapolation = _carried_back(solver, sampled, cap, seed, progress)
                break
            report.sample_seconds.append(took)
    print(report.report(), file=out)
    return report


def _carried_back(
    solver: Solver, frontier: list[str], cap: float, seed: int, progress: bool
) -> Extrapolation | None:
    """``ahead`` from the first ``AHEAD_SAMPLE`` of the sample, with a line a level."""
    board = solver.board
    starts = [Position.from_moves(moves, board) for moves in frontier[:AHEAD_SAMPLE]]
    if progress:
        print(
            f"a sample solve ran past {cap:g} s: timing positions further on instead",
            file=sys.stderr,
        )
    tick = (lambda at: print(f"  solving {at}", file=sys.stderr)) if progress else (lambda _: None)
    return ahead(solver, starts, cap, seed, tick)

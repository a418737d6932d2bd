"""``c4book verify``: check a whole book against itself, the enumeration and the solver.

* Every entry with per-move scores must equal one ply of negamax over its
  children's entries (score, best moves, win/draw/loss, each move's score).
* A fixed-seed sample of frontier entries (searched, no per-move scores)
  must agree with a fresh solve.
* Each complete ply must hold exactly the enumerated positions.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import IO

from sqlalchemy import select
from tqdm import tqdm

from solver import Position

from .derive import MissingChildError, best_of, move_scores_from_children, sign
from .enumerate import positions_by_ply
from .schema import Entry, unpack_scores
from .store import check_sqlite_file, make_engine, read_meta, sqlite_path
from .frontier import solve_frontier

SHOWN_PROBLEMS = 10


@dataclass
class VerifyReport:
    entries: int = 0
    derived_checked: int = 0
    frontier_sampled: int = 0
    plies_counted: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(db: str, sample: int = 100, seed: int = 2026, progress: bool = True) -> VerifyReport:
    path = sqlite_path(db)
    if path is not None:
        check_sqlite_file(path, must_exist=True)
    engine = make_engine(db, readonly=True)
    try:
        meta = read_meta(engine, db)
        with engine.connect() as conn:
            rows = conn.execute(select(Entry.key, Entry.ply, Entry.moves, Entry.score, Entry.wdl,
                                       Entry.best_moves, Entry.move_scores)).all()
    finally:
        engine.dispose()
    report = VerifyReport(entries=len(rows))
    scores = {row.key: row.score for row in rows}
    frontier = []
    for row in tqdm(rows, desc="derived entries", unit="pos", disable=not progress):
        position = _replay(row, report)
        if position is None:
            continue
        if row.move_scores is None:
            frontier.append(row)
            continue
        report.derived_checked += 1
        try:
            expected = move_scores_from_children(
                position, lambda child: scores.get(child.canonical_key))
        except MissingChildError as error:
            report.problems.append(f"{row.moves!r}: {error.args[0]}")
            continue
        score, best = best_of(expected)
        stored = unpack_scores(row.move_scores)
        if (stored, row.score, row.best_moves, row.wdl) != (expected, score, best, sign(score)):
            report.problems.append(
                f"{row.moves!r}: stored score {row.score} best {row.best_moves} moves {stored}, "
                f"but its children give score {score} best {best} moves {expected}")
    _check_frontier(frontier, sample, seed, report, progress)
    _check_counts(meta, {row.key: row.ply for row in rows}, report)
    return report


def _replay(row, report: VerifyReport) -> Position | None:
    try:
        position = Position.from_moves(row.moves)
    except ValueError as error:
        report.problems.append(f"{row.moves!r}: stored moves do not replay: {error}")
        return None
    if position.key != row.key or position.ply != row.ply:
        report.problems.append(f"{row.moves!r}: stored key/ply do not match its moves")
        return None
    return position


def _check_frontier(frontier: list, sample: int, seed: int, report: VerifyReport,
                    progress: bool) -> None:
    if not frontier or sample <= 0:
        return
    from solver import Solver

    chosen = random.Random(seed).sample(sorted(frontier, key=lambda r: r.key),
                                        min(sample, len(frontier)))
    solver = Solver()
    for row in tqdm(chosen, desc="frontier re-solves", unit="pos", disable=not progress):
        fresh = solve_frontier(solver, row.moves)
        report.frontier_sampled += 1
        if (fresh["score"], fresh["wdl"], fresh["best_moves"]) != (row.score, row.wdl,
                                                                    row.best_moves):
            report.problems.append(
                f"{row.moves!r}: stored score {row.score} best {row.best_moves}, but a fresh "
                f"solve gives score {fresh['score']} best {fresh['best_moves']}")


def _check_counts(meta: dict, ply_of: dict[int, int], report: VerifyReport) -> None:
    complete = json.loads(meta.get("complete_plies", "[]"))
    if not complete:
        return
    levels = positions_by_ply(Position.from_moves(meta["root"]), max(complete))
    for ply in complete:
        expected = {p.key for p in levels.get(ply, [])}
        stored = {key for key, p in ply_of.items() if p == ply}
        report.plies_counted.append(ply)
        if stored != expected:
            report.problems.append(
                f"ply {ply}: {len(stored):,} stored positions, {len(expected):,} enumerated "
                f"({len(expected - stored):,} missing, {len(stored - expected):,} unexpected)")


def run_verify(db: str, sample: int, seed: int, out: IO[str], progress: bool = True) -> int:
    report = verify(db, sample, seed, progress)
    out.write(f"{db}: {report.entries:,} entries; {report.derived_checked:,} checked against "
              f"their children, {report.frontier_sampled:,} frontier entries re-solved, "
              f"complete plies counted: {report.plies_counted}\n")
    if report.ok:
        out.write("OK: the book is consistent\n")
        return 0
    out.write(f"FAILED: {len(report.problems):,} problems; the first ones:\n")
    for problem in report.problems[:SHOWN_PROBLEMS]:
        out.write(f"  {problem}\n")
    return 1

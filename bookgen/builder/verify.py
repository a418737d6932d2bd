"""``c4book verify``: check a whole book against itself, the enumeration and the solver.

* Every entry with per-move scores must equal one ply of negamax over its
  children's entries (score, best moves, win/draw/loss, each move's score),
  derived by the same kernel the build uses.
* Every key must be the canonical key of a position at its row's ply.
* A fixed-seed sample of frontier entries (searched, no per-move scores)
  must agree with a fresh solve.
* Each complete ply must hold exactly the enumerated positions.

The book is read a ply at a time, deepest first, as arrays: a ply and the
one below it are in memory at once.  Problems name positions by the
smallest move string that reaches them.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import IO

import numpy as np
from sqlalchemy import text
from tqdm import tqdm

from solver import Position
from solver.bitboard import WIDTH
from solver.packed import canonical_keys, moves_of_key, moves_of_keys, plies_of

from ..book.schema import BEST_TEXT, unpack_scores
from ..book.store import check_sqlite_file, make_engine, read_meta, sqlite_path
from .derive import derive, sign
from .listing import contains_sorted, keys_by_ply
from .solve_position import solve_position

SHOWN_PROBLEMS = 10
READ_CHUNK = 200_000
_BEST_BITS = {text: bits for bits, text in enumerate(BEST_TEXT)}


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


@dataclass
class _Ply:
    """One ply's stored rows as arrays, in key order."""

    keys: np.ndarray
    scores: np.ndarray
    wdl: np.ndarray
    best: np.ndarray          # bit sets; -1 for text that is no set of columns
    move_scores: np.ndarray   # (n, 7) packed; zeros on the frontier
    derived: np.ndarray       # whether the row has move scores

    @classmethod
    def read(cls, conn, ply: int) -> _Ply:
        parts = []
        result = conn.execute(text(
            "SELECT key, score, wdl, best_moves, move_scores FROM positions WHERE ply = :ply "
            "ORDER BY key"), {"ply": ply})
        while rows := result.fetchmany(READ_CHUNK):
            n = len(rows)
            ints = np.array([(r[0], r[1], r[2], _BEST_BITS.get(r[3], -1), r[4] is not None)
                             for r in rows], dtype=np.int64).reshape(n, 5)
            packed = b"".join(bytes(r[4]) if r[4] is not None and len(r[4]) == WIDTH
                              else bytes(WIDTH) for r in rows)
            parts.append((ints, np.frombuffer(packed, dtype=np.uint8).reshape(n, WIDTH)))
        ints = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, 5), np.int64)
        packed = (np.concatenate([p[1] for p in parts]) if parts
                  else np.zeros((0, WIDTH), np.uint8))
        return cls(ints[:, 0].astype(np.uint64), ints[:, 1], ints[:, 2], ints[:, 3], packed,
                   ints[:, 4].astype(bool))


def verify(db: str, sample: int = 100, seed: int = 2026, progress: bool = True) -> VerifyReport:
    path = sqlite_path(db)
    if path is not None:
        check_sqlite_file(path, must_exist=True)
    engine = make_engine(db, readonly=True)
    report = VerifyReport()
    problems: list[tuple[int, str]] = []   # (key, text): shown in key order, as stored
    frontier: list[_Ply] = []
    try:
        meta = read_meta(engine, db)
        complete = json.loads(meta.get("complete_plies", "[]"))
        with engine.connect() as conn:
            plies = sorted(conn.execute(text("SELECT DISTINCT ply FROM positions")).scalars())
            above = None   # the ply below (deeper) this one: its children
            for ply in tqdm(plies[::-1], desc="plies", unit="ply", disable=not progress):
                rows = _Ply.read(conn, ply)
                report.entries += len(rows.keys)
                problems += _check_keys(rows, ply)
                problems += _check_derived(rows, above if above and above[0] == ply + 1
                                           else None, meta["root"], report)
                if not rows.derived.all():
                    frontier.append(_Ply(*(a[~rows.derived] for a in (
                        rows.keys, rows.scores, rows.wdl, rows.best, rows.move_scores,
                        rows.derived))))
                above = (ply, rows.keys, rows.scores)
            counts = _check_counts(conn, meta["root"], complete, report)
    finally:
        engine.dispose()
    report.problems = [text for _, text in sorted(problems, key=lambda p: p[0])]
    _check_frontier(frontier, sample, seed, meta["root"], report, progress)
    report.problems += counts
    return report


def _shown(key: int, root: str) -> str:
    try:
        return repr(moves_of_key(key, root))
    except ValueError:
        return f"key {key}"


def _check_keys(rows: _Ply, ply: int) -> list[tuple[int, str]]:
    """Each key must be the canonical key of a position at its row's ply."""
    bad = (canonical_keys(rows.keys) != rows.keys) | (plies_of(rows.keys) != ply)
    return [(key, f"key {key}: not the canonical key of a position at ply {ply}")
            for key in rows.keys[bad].tolist()]


def _check_derived(rows: _Ply, children, root: str,
                   report: VerifyReport) -> list[tuple[int, str]]:
    """Every entry with move scores is one ply of negamax over its children's entries."""
    index = np.flatnonzero(rows.derived)
    report.derived_checked += len(index)
    if not len(index):
        return []
    _, child_keys, child_scores = children or (0, np.empty(0, np.uint64), np.empty(0, np.int8))
    expected = derive(rows.keys[index], child_keys, child_scores, strict=False)
    same = ((expected.scores == rows.scores[index]) & (expected.best == rows.best[index])
            & (np.sign(expected.scores) == rows.wdl[index])
            & (expected.move_scores == rows.move_scores[index]).all(axis=1))
    problems = []
    for at in np.flatnonzero(~expected.complete).tolist():
        key = int(expected.keys[at])
        parent, child = _shown(key, root), _shown(int(expected.missing[at]), root)
        problems.append((key, f"{parent}: {child} (child of {parent}) is not in the book"))
    for at in np.flatnonzero(~same & expected.complete).tolist():
        i, key = index[at], int(expected.keys[at])
        best = BEST_TEXT[rows.best[i]] if rows.best[i] >= 0 else "?"
        problems.append((key, (
            f"{_shown(key, root)}: stored score {rows.scores[i]} best {best} moves "
            f"{unpack_scores(rows.move_scores[i].tobytes())}, but its children give score "
            f"{expected.scores[at]} best {BEST_TEXT[expected.best[at]]} moves "
            f"{unpack_scores(expected.move_scores[at].tobytes())}")))
    return problems


def _check_frontier(frontier: list[_Ply], sample: int, seed: int, root: str,
                    report: VerifyReport, progress: bool) -> None:
    """Re-solve a sample of frontier rows, drawn from all of them in key order."""
    if not frontier or sample <= 0:
        return
    from solver import Solver

    keys = np.concatenate([f.keys for f in frontier])
    order = np.argsort(keys, kind="stable")
    chosen = order[random.Random(seed).sample(range(len(keys)), min(sample, len(keys)))]
    scores, wdl, best = (np.concatenate([getattr(f, name) for f in frontier])[chosen]
                         for name in ("scores", "wdl", "best"))
    solver = Solver()
    moves = moves_of_keys(keys[chosen], root)
    for i in tqdm(range(len(chosen)), desc="frontier re-solves", unit="pos",
                  disable=not progress):
        fresh = solve_position(solver, moves[i])
        report.frontier_sampled += 1
        stored_best = BEST_TEXT[best[i]] if best[i] >= 0 else "?"
        if (fresh.score, sign(fresh.score), fresh.best) != (scores[i], wdl[i], best[i]):
            report.problems.append(
                f"{moves[i]!r}: stored score {scores[i]} best {stored_best}, but a fresh "
                f"solve gives score {fresh.score} best {fresh.best_moves}")


def _check_counts(conn, root: str, complete: list[int], report: VerifyReport) -> list[str]:
    """Each complete ply must hold exactly the enumerated keys."""
    if not complete:
        return []
    levels = keys_by_ply(Position.from_moves(root), max(complete))
    problems = []
    for ply in sorted(complete):
        report.plies_counted.append(ply)
        expected = levels.get(ply, np.empty(0, dtype=np.uint64))
        stored = np.fromiter(conn.execute(text(
            "SELECT key FROM positions WHERE ply = :ply ORDER BY key"), {"ply": ply}).scalars(),
            dtype=np.uint64)
        if not np.array_equal(stored, expected):
            missing = int((~contains_sorted(stored, expected)).sum())
            unexpected = int((~contains_sorted(expected, stored)).sum())
            problems.append(f"ply {ply}: {len(stored):,} stored positions, {len(expected):,} "
                            f"enumerated ({missing:,} missing, {unexpected:,} unexpected)")
    return problems


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

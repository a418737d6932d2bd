"""``c4book verify``: check a whole book against itself, the enumeration and the solver.

* Every position whose children the book holds whole must score one ply of
  negamax over its children's entries, derived by the same kernel the build
  uses (and match its stored best moves, where it keeps them).
* Every key must be the canonical key of a position at its ply, once.
* A fixed-seed sample of the positions at the deepest plies (searched, not
  derived) must agree with a fresh solve: score and best moves.
* Each complete ply must hold exactly the enumerated positions.

The book is read a ply at a time, deepest first, as arrays, packed and rows
alike (``BookStore.entries_at``): a ply and the one below it are in memory
at once.  A damaged packed ply is a problem found, named by its ply.
Problems name positions by the smallest move string that reaches them.
Past 64 bits keys are ``(n, 2)`` rows, and the kernels the two-word twins
(``solver.wide.packed``), loaded only then.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import numpy as np

from solver import Board, Position

from ..book.format.database import check_sqlite_file, make_engine, read_meta, sqlite_path
from ..book.format.errors import CorruptBookError, board_of_meta
from ..book.format.location import book_location
from ..book.format.scores import BEST_TEXT, unpack_scores
from ..book.format.segment import Segment
from ..book.write.store import BookStore
from ..progress import progress_bar
from .derive import derive, moves_of
from .listing import contains_sorted, key_ints, keys_by_ply, moves_of_keys
from .solve_position import solve_position

NOT_KEPT = -1  # a frontier entry's best moves, where its ply keeps none
READ_CHUNK = 200_000


@dataclass(frozen=True)
class VerifyReport:
    """What ``verify`` checked, and every problem it found (none: the book is consistent)."""

    entries: int
    derived_checked: int
    frontier_sampled: int
    plies_counted: tuple[int, ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class _Tally:
    """A ``VerifyReport`` while it is being made."""

    entries: int = 0
    derived_checked: int = 0
    frontier_sampled: int = 0
    plies_counted: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def report(self) -> VerifyReport:
        return VerifyReport(
            self.entries,
            self.derived_checked,
            self.frontier_sampled,
            tuple(self.plies_counted),
            tuple(self.problems),
        )


def verify(db: str, sample: int = 100, seed: int = 2026, progress: bool = True) -> VerifyReport:
    db = book_location(db)
    path = sqlite_path(db)
    if path is not None:
        check_sqlite_file(path, must_exist=True)
    probe = make_engine(db, readonly=True)
    try:
        meta = read_meta(probe, db)
    finally:
        probe.dispose()
    report = _Tally()
    problems: list[tuple[int, str]] = []  # (key, text): shown in key order, as stored
    frontier: list[Segment] = []
    complete = json.loads(meta.get("complete_plies", "[]"))
    board = board_of_meta(meta, db)
    store = BookStore(db, meta["root"], int(meta["root_key"]), readonly=True, board=board)
    try:
        plies = sorted(store.count_by_ply())
        above = None  # the ply below (deeper) this one: its children
        for ply in progress_bar(plies[::-1], desc="plies", unit="ply", disable=not progress):
            try:
                entries = store.entries_at(ply)
            except CorruptBookError as error:
                report.problems.append(str(error))
                above = None
                continue
            report.entries += len(entries.keys)
            problems += _check_keys(entries, ply, board)
            if ply in complete and ply + 1 in complete and above is not None:
                problems += _check_derived(entries, above, meta["root"], report, board)
            else:
                if entries.best is None and len(entries.keys) and ply + 1 not in complete:
                    # The reader would answer its positions with no best move.
                    report.problems.append(
                        f"ply {ply}: no best moves stored, and ply "
                        f"{ply + 1}, whose scores give them, is not complete"
                    )
                frontier.append(entries)
            above = (ply, entries.keys, entries.scores) if ply in complete else None
        counts = _check_counts(store, meta["root"], complete, report)
    finally:
        store.close()
    report.problems += [text for _, text in sorted(problems, key=lambda p: p[0])]
    _check_frontier(frontier, sample, seed, meta["root"], report, progress, board)
    report.problems += counts
    return report.report()


def _shown(key: int, root: str, board: Board) -> str:
    try:
        return repr(moves_of(key, board, root))
    except ValueError:
        return f"key {key}"


def _check_keys(entries: Segment, ply: int, board: Board) -> list[tuple[int, str]]:
    """Each key must be the canonical key of a position at its ply."""
    if board.is_wide:
        from solver.wide.packed import canonical_keys, plies_of
    else:
        from solver.packed import canonical_keys, plies_of
    moved = canonical_keys(board, entries.keys) != entries.keys
    bad = (moved if moved.ndim == 1 else moved.any(axis=1)) | (plies_of(board, entries.keys) != ply)
    return [
        (key, f"key {key}: not the canonical key of a position at ply {ply}")
        for key in key_ints(entries.keys[bad])
    ]


def _check_derived(
    entries: Segment, children, root: str, report: _Tally, board: Board
) -> list[tuple[int, str]]:
    """Every entry is one ply of negamax over its children's entries."""
    report.derived_checked += len(entries.keys)
    if not len(entries.keys):
        return []
    _, child_keys, child_scores = children
    expected = derive(entries.keys, child_keys, child_scores, strict=False, board=board)
    same = expected.scores == entries.scores
    if entries.best is not None:
        same &= expected.best == entries.best
    problems = []
    for at in np.flatnonzero(~expected.complete).tolist():
        key, missing = key_ints(expected.keys[[at]]) + key_ints(expected.missing[[at]])
        parent, child = _shown(key, root, board), _shown(missing, root, board)
        problems.append((key, f"{parent}: {child} (child of {parent}) is not in the book"))
    for at in np.flatnonzero(~same & expected.complete).tolist():
        key = key_ints(expected.keys[[at]])[0]
        best = "" if entries.best is None else f" best {BEST_TEXT[entries.best[at]]}"
        problems.append(
            (
                key,
                (
                    f"{_shown(key, root, board)}: stored score {entries.scores[at]}{best}, but its children "
                    f"give score {expected.scores[at]} best {BEST_TEXT[expected.best[at]]} moves "
                    f"{unpack_scores(expected.move_scores[at].tobytes())}"
                ),
            )
        )
    return problems


def _check_frontier(
    frontier: list[Segment],
    sample: int,
    seed: int,
    root: str,
    report: _Tally,
    progress: bool,
    board: Board,
) -> None:
    """Re-solve a sample of the searched entries, drawn from all of them in key order."""
    frontier = [f for f in frontier if len(f.keys)]
    if not frontier or sample <= 0:
        return
    from solver import Solver

    keys = np.concatenate([f.keys for f in frontier])
    scores = np.concatenate([f.scores for f in frontier])
    best = np.concatenate(
        [
            f.best.astype(np.int64)
            if f.best is not None
            else np.full(len(f.keys), NOT_KEPT, np.int64)
            for f in frontier
        ]
    )
    if board.is_wide:
        from ..book.format.wide_keys import order as sorted_order

        order = sorted_order(keys)
    else:
        order = np.argsort(keys, kind="stable")
    chosen = order[random.Random(seed).sample(range(len(keys)), min(sample, len(keys)))]
    solver = Solver(board=board)
    moves = moves_of_keys(keys[chosen], root, board)
    for i in progress_bar(
        range(len(chosen)), desc="frontier re-solves", unit="pos", disable=not progress
    ):
        fresh = solve_position(solver, moves[i])
        report.frontier_sampled += 1
        score, bits = int(scores[chosen[i]]), int(best[chosen[i]])
        stored_best = "" if bits == NOT_KEPT else f" best {BEST_TEXT[bits]}"
        if fresh.score != score or bits not in (NOT_KEPT, fresh.best):
            report.problems.append(
                f"{moves[i]!r}: stored score {score}{stored_best}, but a fresh "
                f"solve gives score {fresh.score} best {fresh.best_moves}"
            )


def _check_counts(store: BookStore, root: str, complete: list[int], report: _Tally) -> list[str]:
    """Each complete ply must hold exactly the enumerated keys."""
    if not complete:
        return []
    levels = keys_by_ply(Position.from_moves(root, store.board), max(complete))
    problems = []
    for ply in sorted(complete):
        report.plies_counted.append(ply)
        expected = levels.get(ply, np.empty((0, 2) if store.board.is_wide else 0, dtype=np.uint64))
        try:
            stored = store.entries_at(ply).keys
        except CorruptBookError:
            continue  # already reported
        if not np.array_equal(stored, expected):
            missing = int((~contains_sorted(stored, expected)).sum())
            unexpected = int((~contains_sorted(expected, stored)).sum())
            problems.append(
                f"ply {ply}: {len(stored):,} stored positions, {len(expected):,} "
                f"enumerated ({missing:,} missing, {unexpected:,} unexpected)"
            )
    return problems

"""``c4book verify``: check a whole book, and say what disagrees."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..limits import MAX_SAMPLE
from .arguments import add_db, found, verify_sample, whole

if TYPE_CHECKING:  # (the module loads numba: imported when verify runs)
    from ..builder.verify import VerifyReport

SHOWN_PROBLEMS = 10


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "verify",
        help="check a whole book for consistency",
        description="Check every entry against its children's entries, re-solve a fixed-seed "
        "sample of the frontier, and count each complete ply against the "
        "enumeration. Exits 1 and lists the first bad entries if anything disagrees.",
    )
    add_db(parser)
    parser.add_argument(
        "--sample",
        type=verify_sample,
        default=100,
        help=f"frontier entries to re-solve, 0 to {MAX_SAMPLE}; each is a search, "
        "milliseconds to seconds (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=whole, default=2026, help="sample seed (default: %(default)s)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def run(args: argparse.Namespace) -> int:
    from ..builder.verify import verify

    db = found(args.db)
    report = verify(db, args.sample, args.seed, not args.no_progress)
    sys.stdout.write(shown(db, report))
    return 0 if report.ok else 1


def shown(db: str, report: VerifyReport) -> str:
    """What was checked, then OK or the first ``SHOWN_PROBLEMS`` problems."""
    said = (
        f"{db}: {report.entries:,} entries; {report.derived_checked:,} checked against "
        f"their children, {report.frontier_sampled:,} frontier entries re-solved, "
        f"complete plies counted: {list(report.plies_counted)}\n"
    )
    if report.ok:
        return said + "OK: the book is consistent\n"
    said += f"FAILED: {len(report.problems):,} problems; the first ones:\n"
    return said + "".join(f"  {problem}\n" for problem in report.problems[:SHOWN_PROBLEMS])

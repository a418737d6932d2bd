"""``c4book export``: a book as a data set, and one line saying what was written."""

from __future__ import annotations

import argparse
import os
import sys

from .arguments import add_db, found


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "export",
        help="write a book as a data set: Parquet, CSV or Tromp's UCI layout",
        description="One row per stored position (one of each mirror pair): its ply, a move "
        "string reaching it, its cells, key, score, outcome, best moves and each "
        "move's score (docs/data.md). --format uci writes the positions where "
        "neither player can win at once, in the layout of Tromp's UCI Connect-4 "
        "set (67,557 rows at ply 8 on 7x6). The file appears only once complete. "
        "Parquet needs the data extra: pip install 'c4book[data]'. Ctrl-C, SIGTERM or "
        "SIGHUP stops it leaving no file, and exits 130, 143 or 129.",
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="file to write (.parquet, .csv or .data tell the format); a device or a pipe "
        "(/dev/stdout, a FIFO) is written into directly",
    )
    parser.add_argument(
        "--format",
        choices=("parquet", "csv", "uci"),
        default=None,
        help="file format (default: from the file's suffix)",
    )
    parser.add_argument(
        "--plies",
        default=None,
        metavar="LO-HI",
        help="plies to write, e.g. 8 or 8-12 (default: every ply of the book)",
    )
    add_db(parser)
    parser.add_argument(
        "--mirrors",
        action="store_true",
        help="also write each position's mirror image as a row of its own",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace FILE if it exists (and is a file)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def run(args: argparse.Namespace) -> int:
    from ..builder.interrupts import signals_as_interrupts
    from ..export import export

    # --out /dev/stdout: the rows are this command's output, and its summary goes apart.
    summary = sys.stderr if _is_stdout(args.out) else sys.stdout
    with signals_as_interrupts():  # a stopped export removes its temporary file
        done = export(
            args.out,
            args.format,
            args.plies,
            found(args.db),
            mirrors=args.mirrors,
            force=args.force,
            progress=not args.no_progress,
        )
    first, last = done.plies[0], done.plies[-1]
    plies = f"ply {first}" if first == last else f"plies {first}-{last}"
    print(
        f"{done.rows:,} rows of {plies} written to {done.path} ({done.format}, {done.seconds:.1f} s)",
        file=summary,
    )
    return 0


def _is_stdout(path: str) -> bool:
    """Whether ``path`` is the file this command's stdout writes."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError):  # no such path, or a stdout with no file
        return False

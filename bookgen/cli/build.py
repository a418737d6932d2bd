"""``c4book build``: build or resume a book, or size one (``--dry-run``)."""

from __future__ import annotations

import argparse
import sys

from solver.bitboard import DEFAULT_TABLE_LOG2

from ..builder import AHEAD_SAMPLE, DEFAULT_SAMPLE, SAMPLE_CAP, WORKER_TABLE_LOG2
from ..limits import MAX_SAMPLE
from .arguments import (
    add_board,
    add_db,
    build_part,
    dry_run_sample,
    positive,
    seconds,
    table_log2,
    whole,
)


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "build",
        help="build or resume a book of every position up to a ply",
        description="Solve every position reachable from --root up to --ply (mirror images "
        "once, finished games left out) and store exact scores and best moves. "
        "Only the last ply is searched, on Ray workers; shallower plies follow "
        "from their children. A book that already holds the ply above grows "
        "cheaply: its entries bound each new position's score before the search. "
        "Rerunning the same command resumes. Ctrl-C, SIGTERM or SIGHUP (a closed "
        "terminal) stops cleanly in any step, keeping every finished batch, and "
        "exits 130 (Ctrl-C), 143 (SIGTERM) or 129 (SIGHUP); a failure exits 1.",
    )
    parser.add_argument(
        "--ply", type=whole, required=True, help="last ply (stones on the board) to cover"
    )
    parser.add_argument(
        "--root", default="", help="moves of the starting position (default: empty board)"
    )
    add_db(parser, writes=True)
    add_board(parser, "of a new book; default 7x6. A book keeps the board it was made with")
    parser.add_argument(
        "--address",
        default=None,
        help="Ray cluster to join: 'auto', HOST:PORT, or ray://HOST:PORT (Ray "
        "Client: needs pip install 'c4book[cluster]' here and on the head), or "
        "'local'; default: RAY_ADDRESS if set (as in a job started by ray job "
        "submit), else 'local': a Ray of its own on this machine's cores",
    )
    parser.add_argument(
        "--workers",
        type=positive,
        default=None,
        help="positions solved at once (default: every CPU of the Ray cluster)",
    )
    parser.add_argument(
        "--threads",
        type=positive,
        default=None,
        help="solver threads per worker process, sharing its transposition table "
        "(default: the CPUs of the smallest node)",
    )
    parser.add_argument(
        "--table-log2",
        type=table_log2,
        default=WORKER_TABLE_LOG2,
        help="each worker process's transposition table, as a power of two of "
        "8-byte slots (default: %(default)s, 1 GiB)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="show Ray's own messages (hidden by default; a failure names their log)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing and start no Ray: print positions per ply, how many are "
        "stored, the frontier's size, and its search cost in core-hours, "
        "estimated from a random sample of the missing frontier",
    )
    parser.add_argument(
        "--part",
        type=build_part,
        default=None,
        metavar="I/K",
        help="search and store only the I-th of K equal parts of the frontier (in key "
        "order), for K drivers at once, each into a book of its own (a copy of the "
        "book they grow); the ply is sealed, and the plies above derived, once "
        "c4book merge has gathered the parts and a build of the whole ply runs on it",
    )
    parser.add_argument(
        "--sample",
        type=dry_run_sample,
        default=None,
        help="with --dry-run: missing frontier positions to solve for the estimate, "
        f"1 to {MAX_SAMPLE} (default: {DEFAULT_SAMPLE})",
    )
    parser.add_argument(
        "--sample-cap",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="with --dry-run: a sample solve that runs past this many seconds makes the "
        "estimate an extrapolation: positions further on from the frontier are timed, "
        f"{AHEAD_SAMPLE} a level, and their growth carried back (default: {SAMPLE_CAP:g})",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..builder.driver import BuildArgumentError, build

    if args.dry_run and args.part is not None:
        raise BuildArgumentError(
            f"--part {args.part} builds a part; a --dry-run sizes the whole ply "
            "(a part costs about its share of it): leave out one of them"
        )
    if args.dry_run:
        from ..builder.dryrun import dry_run

        sample = DEFAULT_SAMPLE if args.sample is None else args.sample
        cap = SAMPLE_CAP if args.sample_cap is None else args.sample_cap
        dry_run(
            args.db,
            args.ply,
            args.root,
            sample=sample,
            table_log2=min(args.table_log2, DEFAULT_TABLE_LOG2),
            progress=not args.no_progress,
            out=sys.stdout,
            board=args.board,
            cap=cap,
        )
        return 0
    for name, value in (("--sample", args.sample), ("--sample-cap", args.sample_cap)):
        if value is not None:
            raise BuildArgumentError(
                f"{name} {value:g} sizes a --dry-run's estimate; a build searches every "
                f"position: add --dry-run, or leave out {name}"
            )
    summary = build(
        args.db,
        args.ply,
        args.root,
        address=args.address,
        workers=args.workers,
        threads=args.threads,
        table_log2=args.table_log2,
        progress=not args.no_progress,
        verbose=args.verbose,
        board=args.board,
        part=args.part,
    )
    return summary.exit_status

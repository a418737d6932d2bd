"""``c4book merge``: gather books built in parts (``build --part``) into one."""

from __future__ import annotations

import argparse
import sys

from ..book.format.location import book_location
from .arguments import add_db


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "merge",
        help="gather books built in parts (build --part) into one",
        description="Copy into the book --db (made if absent) the entries of every ply "
        "that each PART book holds still being built: the parts of a frontier that "
        "build --part I/K stored. Plies a part holds whole must be whole in --db "
        "too (merge into the book the parts were grown from, or a copy of it). Each "
        "slice of keys is one transaction and a stored key is left as it is (and counted "
        "apart from those copied). Ctrl-C, SIGTERM or SIGHUP stops it after the slice "
        "being written, leaving the book whole, and exits 130, 143 or 129: run it again "
        "to finish. Then c4book build --ply N --db BOOK seals the "
        "ply (searching whatever no part stored) and derives the plies above.",
    )
    add_db(parser, writes=True)
    parser.add_argument(
        "parts", metavar="PART", nargs="+", type=book_location, help="a book built with --part"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..book.write.merge import merge
    from ..builder.interrupts import WITH_HANGUP, graceful_interrupts

    # As a build: a signal stops it between slices, never inside its last steps (folding
    # the write-ahead log back into the book), and a second one at once.
    with graceful_interrupts(WITH_HANGUP) as stop:
        merge(args.db, args.parts, out=sys.stdout, check=stop.check)
    stop.check()  # a stop asked during the last slice: said, and its exit status
    return 0

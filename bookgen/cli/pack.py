"""``c4book pack``: pack a book's rows into compact segments or blocks, in place."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .arguments import add_db

if TYPE_CHECKING:
    from ..book.write.upgrade import Packed


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "pack",
        help="pack a book's rows into compact segments or blocks, in place",
        description="A ply still being built is kept as rows (27 bytes a position); a "
        "complete ply is sealed into compressed blocks behind an index (about one byte "
        "a position) by the build itself. This packs the rows left: a complete ply is "
        "sealed, a "
        "ply still being built gets one more segment (the segments before it stay "
        "byte for byte, so a book kept in git grows by the new part only). The "
        "book stays valid throughout (Ctrl-C, SIGTERM or SIGHUP stops it with the book "
        "as it was, exit 130, 143 or 129); a build resumes from a packed book. A "
        "SQLite file also gives back the pages of rows already dropped (VACUUM). "
        "It refuses while a build is writing the book: stop the build first.",
    )
    add_db(parser, writes=True)
    return parser


def run(args: argparse.Namespace) -> int:
    from ..book.write.upgrade import pack
    from ..builder.interrupts import signals_as_interrupts

    # SIGTERM and SIGHUP unwind it as Ctrl-C does: its transaction rolls back, the book is
    # as it was, and the command says so in one line (exit 143 or 129).
    with signals_as_interrupts():
        done = pack(args.db)
    sys.stdout.write(shown(args.db, done))
    return 0


def shown(db: str, done: Packed) -> str:
    if done.rows:
        return f"{db}: packed {done.rows:,} rows\n"
    if done.freed:
        return f"{db}: no rows to pack; gave back {done.freed:,} bytes of free pages\n"
    return f"{db}: no rows to pack\n"

"""``c4book upgrade``: convert a book of an older schema version, in place."""

from __future__ import annotations

import argparse
import sys

from ..book.format.names import SCHEMA_VERSION
from .arguments import add_db


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "upgrade",
        help="convert a book of an older schema version, in place",
        description="Bring a book written by an older c4book to this schema version without "
        "re-solving anything: version 1 stored a move string per row (checked "
        "against the key, then dropped), version 2 a row per position, versions 3 and "
        "4 a segment per ply: every complete ply is sealed in blocks, a ply at a "
        "time; version 5 kept in its blocks what the positions' stones say: each "
        "ply is sealed again without it. Ctrl-C, SIGTERM or SIGHUP stops it with the book valid (exit "
        "130, 143 or 129); running it again finishes an interrupted upgrade.",
    )
    add_db(parser, writes=True)
    return parser


def run(args: argparse.Namespace) -> int:
    from ..book.write.upgrade import upgrade
    from ..builder.interrupts import signals_as_interrupts

    # SIGTERM and SIGHUP unwind it as Ctrl-C does: its transaction rolls back, the book is
    # as it was, and the command says so in one line (exit 143 or 129).
    with signals_as_interrupts():
        done = upgrade(args.db)
    sys.stdout.write(shown(args.db, done))
    return 0


def shown(db: str, old: int | None) -> str:
    """What ``upgrade`` did, given the version it found (``None``: it had nothing to do)."""
    if old is None:
        return f"{db}: already book schema version {SCHEMA_VERSION}; nothing to do\n"
    if old == SCHEMA_VERSION:
        return f"{db}: book schema version {SCHEMA_VERSION}; packed or sealed what was left\n"
    return f"{db}: upgraded from book schema version {old} to {SCHEMA_VERSION}\n"

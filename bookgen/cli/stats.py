"""``c4book stats``: what a book holds, ply by ply."""

from __future__ import annotations

import argparse
import json
import os
import sys

from solver import Board, Position

from ..book.format.database import sqlite_path
from ..book.format.location import shown
from ..book.read.reader import Book
from .arguments import add_db, found


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "stats", help="what a book holds: positions per ply, outcomes, size"
    )
    add_db(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    return parser


def run(args: argparse.Namespace) -> int:
    db = found(args.db)
    stats = book_stats(db)
    sys.stdout.write(json.dumps(stats) + "\n" if args.json else table(db, stats))
    return 0


def book_stats(db: str) -> dict:
    """What ``stats`` says of ``db``, as ``--json`` prints it."""
    with Book.open(db, compiled=False) as book:  # no lookups
        counts = book.count_by_ply()
        outcomes = book.score_counts()
        info = book.info
        board = book.board
    from ..book.write.store import BookStore  # (not at import: a query never loads SQLAlchemy)

    store = BookStore(
        db,
        info.root,
        Position.from_moves(info.root, board).canonical_key,
        readonly=True,
        board=board,
    )
    try:
        storage = store.storage_by_ply()
    finally:
        store.close()
    path = sqlite_path(db)
    size = os.path.getsize(path) if path is not None else None
    total = sum(counts.values())
    complete = set(info.plies_complete)

    def stored(ply: int) -> dict:
        packed, nbytes, rows = storage.get(ply, (0, 0, 0))
        form = (
            "sealed"
            if not rows and ply in complete
            else "rows"
            if not packed
            else "packed"
            if not rows
            else "packed+rows"
        )
        return {
            "form": form,
            "packed": packed,
            "packed_bytes": nbytes,
            "rows": rows,
            "bytes_per_packed_position": round(nbytes / packed, 2) if packed else None,
        }

    return {
        "db": shown(db),  # (JSON writes a string's value, not its masked text)
        "board": str(board),
        "root": info.root,
        "max_ply": info.max_ply,
        "coverage_per_ply": _coverage(info.root, counts, complete, board),
        "plies_complete": list(info.plies_complete),
        "positions": total,
        "positions_per_ply": {str(p): n for p, n in counts.items()},
        "outcomes_per_ply": {
            str(p): {"win": o.get(1, 0), "draw": o.get(0, 0), "loss": o.get(-1, 0)}
            for p, o in outcomes.items()
        },
        "storage_per_ply": {str(p): stored(p) for p in counts},
        "search_core_hours": round(info.search_core_seconds / 3600, 2),
        "file_bytes": size,
        "bytes_per_position": round(size / total, 2) if size and total else None,
    }


def _coverage(
    root: str, counts: dict[int, int], complete: set[int], board: Board
) -> dict[str, float]:
    """For each ply still being built, the share of its positions the book holds
    (listing the ply takes seconds: ply 12 is 5.8 million positions)."""
    building = [p for p in counts if p not in complete]
    if not building:
        return {}
    from ..builder.listing import keys_by_ply

    levels = keys_by_ply(Position.from_moves(root, board), max(building))
    return {str(p): counts[p] / len(levels[p]) for p in building if len(levels.get(p, ()))}


def table(db: str, stats: dict) -> str:
    """``book_stats`` as a table, a line a ply."""
    complete = set(stats["plies_complete"])
    board = "" if stats["board"] == str(Board()) else f"{stats['board']} board, "
    lines = [
        (
            f"book {db}: {board}root {stats['root'] or '(empty board)'}, "
            f"{stats['positions']:,} positions\n"
        ),
        (
            "  ply  positions  complete     win    draw    loss   stored    bytes/pos"
            "   (outcomes for the player to move)\n"
        ),
    ]
    for ply, count in stats["positions_per_ply"].items():
        o = stats["outcomes_per_ply"][ply]
        mark = "yes" if int(ply) in complete else "no"
        form = stats["storage_per_ply"][ply]
        per = (
            ""
            if form["bytes_per_packed_position"] is None
            else f"{form['bytes_per_packed_position']:.2f}"
        )
        rows = f"  ({form['rows']:,} rows)" if form["rows"] else ""
        if ply in stats["coverage_per_ply"]:
            rows += f"  ({stats['coverage_per_ply'][ply]:.1%} of the ply)"
        lines.append(
            f"  {ply:>3}  {count:>9,}  {mark:>8}  {o['win']:>6,}  {o['draw']:>6,}  "
            f"{o['loss']:>6,}   {form['form']:<11} {per:>5}{rows}\n"
        )
    if stats["search_core_hours"]:
        lines.append(f"search time so far: {stats['search_core_hours']:,} core-hours\n")
    if stats["file_bytes"] is not None:
        lines.append(
            f"file {stats['file_bytes']:,} bytes, "
            f"{stats['bytes_per_position']} bytes per position\n"
        )
    return "".join(lines)

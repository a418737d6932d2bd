"""``c4book query``, ``move`` and ``stats``: what users ask of a book."""

from __future__ import annotations

import json
import os
from typing import IO, Any

from solver import Board, Position

from ..book.format.database import sqlite_path
from ..book.format.location import shown
from ..book.read.entry import as_position
from ..book.read.reader import Book
from ..book.write.store import BookStore
from ..play.analysis import analyze, describe_score, ordinal
from ..play.levels import lookahead
from ..play.player import Player
from ..progress import SEARCH_NOTICE, notice_if_slow


def open_book(db: str | None, board: Board | None = None) -> Book | None:
    """``None`` for no book (``--no-book``), else the checked book (of ``board``, if given),
    read in Python: loading the compiled lookups costs more than one position saves."""
    return None if db is None else Book.open(db, board=board, compiled=False)


def _signed(score: int) -> str:
    return f"{score:+d}" if score else "0"


def _move_score(score: int | None) -> str:
    """A move's score as ``query`` prints it: ``full`` for a full column (an ``x`` was read
    as a stone)."""
    return "full" if score is None else _signed(score)


def _examined(moves: str, db: str | None, board: Board | None, examine) -> tuple[Position, Any]:
    """``moves`` read on the book's board (or ``board``, or 7x6 with no book), and what
    ``examine(position, book)`` makes of it; a search that takes a while says so."""
    book = open_book(db, board)
    try:
        position = as_position(moves, book.board if book is not None else board or Board())
        with notice_if_slow(SEARCH_NOTICE):
            return position, examine(position, book)
    finally:
        if book is not None:
            book.close()


def run_query(
    moves: str, db: str | None, as_json: bool, out: IO[str], board: Board | None = None
) -> int:
    position, result = _examined(moves, db, board, analyze)
    board = position.board
    if as_json:
        out.write(json.dumps(result.to_json()) + "\n")
        return 0
    mover = "x" if position.ply % 2 == 0 else "o"
    source = {
        "book": "from the book",
        "search": "not in the book: searched",
        "book+search": "partly from the book, the rest searched",
    }[result.source]
    out.write(f"{position}\n\n")
    out.write(
        f"moves  {position.moves or '(empty board)'}  (ply {position.ply}, {mover} to play)\n"
    )
    out.write(
        f"score  {_signed(result.score)}: "
        f"{describe_score(result.score, position.ply, board)}  [{source}]\n"
    )
    out.write(f"best   {' '.join(map(str, result.best_moves))}\n")
    out.write(
        "moves  "
        + "  ".join(f"{col}:{_move_score(s)}" for col, s in enumerate(result.move_scores, start=1))
        + "\n"
    )
    return 0


def run_move(
    moves: str,
    db: str | None,
    as_json: bool,
    time_budget: float | None,
    out: IO[str],
    board: Board | None = None,
) -> int:
    book = open_book(db, board)
    try:
        player = Player(book, time_budget=time_budget, board=board)
        with notice_if_slow(SEARCH_NOTICE):
            decision = player.choose(moves)
    finally:
        if book is not None:
            book.close()
    if as_json:
        out.write(
            json.dumps(
                {"moves": Position.from_moves(moves, player.board).moves, **decision.to_json()}
            )
            + "\n"
        )
    else:
        if decision.proven:
            proof = ""
        elif decision.keeps is not None:
            kept = {1: "win", 0: "draw", -1: "loss"}[decision.keeps]
            proof = f", not proven best: time ran out; it keeps the {kept}"
        else:
            assert decision.depth is not None  # an unproven move says its depth
            proof = f", not proven: time ran out, best found looking {lookahead(decision.depth)}"
        score = "" if decision.score is None else f", score {_signed(decision.score)}"
        out.write(
            f"{decision.column}  ({decision.source}{score}, "
            f"{decision.seconds * 1000:.1f} ms{proof})\n"
        )
    return 0


def book_stats(db: str) -> dict:
    with Book.open(db, compiled=False) as book:  # no lookups
        counts = book.count_by_ply()
        outcomes = book.score_counts()
        info = book.info
        board = book.board
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


def run_stats(db: str, as_json: bool, out: IO[str]) -> int:
    stats = book_stats(db)
    if as_json:
        out.write(json.dumps(stats) + "\n")
        return 0
    complete = set(stats["plies_complete"])
    board = "" if stats["board"] == str(Board()) else f"{stats['board']} board, "
    out.write(
        f"book {db}: {board}root {stats['root'] or '(empty board)'}, "
        f"{stats['positions']:,} positions\n"
    )
    out.write(
        "  ply  positions  complete     win    draw    loss   stored    bytes/pos"
        "   (outcomes for the player to move)\n"
    )
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
        out.write(
            f"  {ply:>3}  {count:>9,}  {mark:>8}  {o['win']:>6,}  {o['draw']:>6,}  "
            f"{o['loss']:>6,}   {form['form']:<11} {per:>5}{rows}\n"
        )
    if stats["search_core_hours"]:
        out.write(f"search time so far: {stats['search_core_hours']:,} core-hours\n")
    if stats["file_bytes"] is not None:
        out.write(
            f"file {stats['file_bytes']:,} bytes, "
            f"{stats['bytes_per_position']} bytes per position\n"
        )
    return 0


def run_review(
    moves: str, db: str | None, as_json: bool, out: IO[str], board: Board | None = None
) -> int:
    from ..play.review import review

    position, result = _examined(moves, db, board, review)
    if as_json:
        out.write(json.dumps(result.to_json()) + "\n")
        return 0
    count = f"{position.ply} move{'' if position.ply == 1 else 's'}"
    if result.winner is not None:
        stone = "x" if result.winner == "first" else "o"
        end = f"{result.winner} player ({stone}) won with its {ordinal((position.ply + 1) // 2)} stone"
    elif result.finished:
        end = "the board is full: a draw"
    else:
        end = f"unfinished, {'x' if position.ply % 2 == 0 else 'o'} to play"
    out.write(f"moves  {position.moves or '(empty board)'}  ({count}; {end})\n")
    if result.played:
        out.write(
            "score: the move's, for its player; best: the best moves and their score, "
            "the position's (Pons' convention)\n\n"
        )
        out.write("    #  by  move  score  best                mark\n")
    for move in result.played:
        best = f"{' '.join(map(str, move.best_moves))}: {_signed(move.score_before)}"
        mark = f"{move.mark} {move.symbol}".rstrip()
        stone = "x" if move.player == "first" else "o"
        out.write(
            f"  {move.number:>3}  {stone}   {move.column:>4}  {_signed(move.score):>5}  "
            f"{best:<18}  {mark}\n"
        )
    out.write("\n")
    for summary in (result.first, result.second):
        stone = "x" if summary.player == "first" else "o"
        marks = ", ".join(
            f"{count} {one if count == 1 else many}"
            for count, one, many in (
                (summary.best, "best", "best"),
                (summary.inaccuracy, "inaccuracy", "inaccuracies"),
                (summary.mistake, "mistake", "mistakes"),
                (summary.blunder, "blunder", "blunders"),
            )
        )
        score = "-" if summary.accuracy is None else f"{summary.accuracy:.1f}%"
        out.write(
            f"{summary.player:<6} player ({stone}): {summary.moves:>2} moves, {marks}; "
            f"accuracy {score}\n"
        )
    return 0

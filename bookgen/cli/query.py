"""``c4book query``: a position's score, best moves and every move's score."""

from __future__ import annotations

import argparse
import json
import sys

from solver import Position

from ..play.analysis import Analysis, analyze, describe_score
from .arguments import book_to_read
from .position import add_position_command, examined, signed


def add(commands) -> argparse.ArgumentParser:
    return add_position_command(
        commands,
        "query",
        help="score, best moves and every move's score of a position",
        description="Look a position up in the book (searching what the book lacks) and show "
        "the board, its score in words, the best move(s) and each move's score. "
        'MOVES may be empty ("") for the best opening move.',
    )


def run(args: argparse.Namespace) -> int:
    position, result = examined(args.moves, book_to_read(args), args.board, analyze)
    sys.stdout.write(json.dumps(result.to_json()) + "\n" if args.json else shown(position, result))
    return 0


def shown(position: Position, result: Analysis) -> str:
    """The board, and what ``query`` says of it."""
    mover = "x" if position.ply % 2 == 0 else "o"
    source = {
        "book": "from the book",
        "search": "not in the book: searched",
        "book+search": "partly from the book, the rest searched",
    }[result.source]
    words = describe_score(result.score, position.ply, position.board)
    scores = "  ".join(
        f"{col}:{_move_score(s)}" for col, s in enumerate(result.move_scores, start=1)
    )
    return (
        f"{position}\n\n"
        f"moves  {position.moves or '(empty board)'}  (ply {position.ply}, {mover} to play)\n"
        f"score  {signed(result.score)}: {words}  [{source}]\n"
        f"best   {' '.join(map(str, result.best_moves))}\n"
        f"moves  {scores}\n"
    )


def _move_score(score: int | None) -> str:
    """A move's score: ``full`` for a full column (an ``x`` was read as a stone)."""
    return "full" if score is None else signed(score)

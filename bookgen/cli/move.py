"""``c4book move``: the AI's move for a position, and how it found it."""

from __future__ import annotations

import argparse
import json
import sys

from solver import Position

from ..limits import MAX_TIME_BUDGET
from ..play.levels import lookahead
from ..play.player import Decision, Player
from .arguments import add_time, book_to_read
from .position import add_position_command, open_book, signed


def add(commands) -> argparse.ArgumentParser:
    parser = add_position_command(
        commands,
        "move",
        help="the AI's move for a position",
        description="Print the column (1-7) the AI plays, and how it "
        "found it: book or search, score and time.",
    )
    add_time(
        parser,
        None,
        "answer within about this long, unproven if need be; at most "
        f"{MAX_TIME_BUDGET:g} (a day) (default: no limit)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..progress import NOTICE_SECONDS, SEARCH_NOTICE, notice_if_slow

    book = open_book(book_to_read(args), args.board)
    try:
        player = Player(book, time_budget=args.time, board=args.board)
        # a word if loading (or compiling) the kernels takes long, beyond the time asked for
        with notice_if_slow(SEARCH_NOTICE, seconds=NOTICE_SECONDS + (args.time or 0)):
            decision = player.choose(args.moves)
    finally:
        if book is not None:
            book.close()
    if args.json:
        moves = Position.from_moves(args.moves, player.board).moves
        sys.stdout.write(json.dumps({"moves": moves, **decision.to_json()}) + "\n")
    else:
        sys.stdout.write(shown(decision))
    return 0


def shown(decision: Decision) -> str:
    """The column, then the source, score, time and proof in brackets."""
    if decision.proven:
        proof = ""
    elif decision.keeps is not None:
        kept = {1: "win", 0: "draw", -1: "loss"}[decision.keeps]
        proof = f", not proven best: time ran out; it keeps the {kept}"
    else:
        assert decision.depth is not None  # an unproven move says its depth
        proof = f", not proven: time ran out, best found looking {lookahead(decision.depth)}"
    score = "" if decision.score is None else f", score {signed(decision.score)}"
    return (
        f"{decision.column}  ({decision.source}{score}, {decision.seconds * 1000:.1f} ms{proof})\n"
    )

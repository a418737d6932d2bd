"""``c4book play``: a game against the AI in the terminal."""

from __future__ import annotations

import argparse
import sys

from ..limits import MAX_TIME_BUDGET
from ..play.levels import LEVELS
from .arguments import add_book_options, add_time, book_to_read, whole


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "play",
        help="play a game against the AI in the terminal",
        description="A game against the AI: type a column 1-7 each turn, q to quit. The last "
        "stone played is in capitals (and underlined on a colour terminal; set "
        "NO_COLOR to turn colours off).",
    )
    add_book_options(parser)
    parser.add_argument(
        "--first",
        choices=("human", "ai"),
        default="human",
        help="who plays first (default: %(default)s)",
    )
    parser.add_argument(
        "--start",
        default="",
        metavar="MOVES",
        help="moves already played, e.g. 4453: the game goes on from there, "
        "--first choosing who moves next (default: the empty board)",
    )
    parser.add_argument(
        "--level",
        choices=tuple(LEVELS),
        default="perfect",
        help="how well the AI plays: "
        + "; ".join(f"{level.rated}: {level.about}" for level in LEVELS.values())
        + " (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=whole,
        default=None,
        help="seed of a level's random choices, to replay a game (default: random)",
    )
    parser.add_argument(
        "--hints",
        action="store_true",
        help="before each of your moves, show what every move leads to with best "
        "play (win, draw or loss, and with which stone)",
    )
    add_time(
        parser,
        10.0,
        "longest the AI thinks outside the book; past it, it plays the best "
        f"move it found, marked not proven; at most {MAX_TIME_BUDGET:g} "
        "(default: %(default)s)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..play.game import run_play

    return run_play(
        book_to_read(args),
        args.first,
        sys.stdin,
        sys.stdout,
        args.time,
        level=args.level,
        seed=args.seed,
        hints=args.hints,
        start=args.start,
        board=args.board,
    )

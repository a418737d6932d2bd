"""``c4book review``: each move of a game marked best, inaccuracy, mistake or blunder."""

from __future__ import annotations

import argparse
import json
import sys

from solver import Position

from ..play.analysis import ordinal
from ..play.review import PlayerSummary, Review, review
from .arguments import book_to_read
from .position import add_position_command, examined, signed


def add(commands) -> argparse.ArgumentParser:
    return add_position_command(
        commands,
        "review",
        moves_help="the game's moves, e.g. 4453 or a whole game; it may end in a win or a full "
        "board",
        help="each move of a game marked best, inaccuracy, mistake or blunder",
        description="Review a game move by move from exact scores (the book first, the solver "
        "past it): the position's score before each move, the move's score for its "
        "player, the best moves, and a mark: a blunder turns a win into a loss, a "
        "mistake drops the result one step (a win to a draw, a draw to a loss), an "
        "inaccuracy keeps it but wins more slowly or loses sooner; any other move is "
        "best. Then each player's marks and accuracy: the percentage of their moves "
        "marked best (docs/ai.md).",
    )


def run(args: argparse.Namespace) -> int:
    position, result = examined(args.moves, book_to_read(args), args.board, review)
    sys.stdout.write(json.dumps(result.to_json()) + "\n" if args.json else shown(position, result))
    return 0


def shown(position: Position, result: Review) -> str:
    """The game, a line a move, then a line a player."""
    count = f"{position.ply} move{'' if position.ply == 1 else 's'}"
    if result.winner is not None:
        stone = "x" if result.winner == "first" else "o"
        end = f"{result.winner} player ({stone}) won with its {ordinal((position.ply + 1) // 2)} stone"
    elif result.finished:
        end = "the board is full: a draw"
    else:
        end = f"unfinished, {'x' if position.ply % 2 == 0 else 'o'} to play"
    lines = [f"moves  {position.moves or '(empty board)'}  ({count}; {end})\n"]
    if result.played:
        lines += [
            (
                "score: the move's, for its player; best: the best moves and their score, "
                "the position's (Pons' convention)\n\n"
            ),
            "    #  by  move  score  best                mark\n",
        ]
    for move in result.played:
        best = f"{' '.join(map(str, move.best_moves))}: {signed(move.score_before)}"
        mark = f"{move.mark} {move.symbol}".rstrip()
        stone = "x" if move.player == "first" else "o"
        lines.append(
            f"  {move.number:>3}  {stone}   {move.column:>4}  {signed(move.score):>5}  "
            f"{best:<18}  {mark}\n"
        )
    lines.append("\n")
    lines += [_player(summary) for summary in (result.first, result.second)]
    return "".join(lines)


def _player(summary: PlayerSummary) -> str:
    """A player's marks and accuracy, on one line."""
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
    return (
        f"{summary.player:<6} player ({stone}): {summary.moves:>2} moves, {marks}; "
        f"accuracy {score}\n"
    )

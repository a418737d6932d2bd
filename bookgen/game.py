"""``c4book play``: a game against the AI in the terminal."""

from __future__ import annotations

from typing import IO

from solver import Position

from .analysis import ordinal
from .book import Book
from .player import Player


def play_game(player: Player, human_first: bool, stdin: IO[str], out: IO[str]) -> int:
    """Play one game; returns 0 when it ends (or the human quits)."""
    position = Position()
    human = 0 if human_first else 1  # parity of the plies the human plays
    out.write("You are x. " if human_first else "You are o. ")
    out.write("Type a column 1-7 and press Enter; q quits.\n\n")
    out.write(f"{position}\n\n")
    while not position.is_game_over:
        if position.ply % 2 == human:
            col = _ask_column(position, stdin, out)
            if col is None:
                out.write("\ngame abandoned\n")
                return 0
            position = position.play(col)
        else:
            decision = player.choose(position)
            position = position.play(decision.column)
            how = decision.source if decision.proven else "heuristic, not proven"
            out.write(f"AI plays {decision.column}  ({how}, {decision.seconds * 1000:.0f} ms)\n")
        out.write(f"\n{position}\n\n")
    if not position.is_won:
        out.write("Draw.\n")
    elif (position.ply - 1) % 2 == human:
        out.write(f"You win, with your {ordinal((position.ply + 1) // 2)} stone!\n")
    else:
        out.write(f"The AI wins, with its {ordinal((position.ply + 1) // 2)} stone.\n")
    out.write(f"moves: {position.moves}\n")
    return 0


def _ask_column(position: Position, stdin: IO[str], out: IO[str]) -> int | None:
    while True:
        out.write("your move (1-7): ")
        out.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in ("q", "quit", "exit"):
            return None
        text = line.strip()
        if not (text.isascii() and text.isdigit()):
            out.write(f"{text!r} is not a column: type a number from 1 to 7\n")
        elif not 1 <= int(text) <= 7:
            out.write(f"there is no column {int(text)}: columns are 1 to 7\n")
        elif not position.can_play(int(text)):
            out.write(f"column {int(text)} is full: choose another\n")
        else:
            return int(text)


DEFAULT_TIME = 10.0  # seconds per AI move outside the book


def run_play(db: str | None, first: str, stdin: IO[str], out: IO[str],
             time_budget: float | None = DEFAULT_TIME) -> int:
    book = None if db is None else Book.open(db)
    try:
        return play_game(Player(book, time_budget=time_budget), first == "human", stdin, out)
    finally:
        if book is not None:
            book.close()

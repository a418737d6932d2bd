"""``c4book play``: a game against the AI in the terminal."""

from __future__ import annotations

import os
from typing import IO, Protocol

from solver import STANDARD, Board, GameOverError, Position

from ..book.read.reader import Book
from ..progress import NOTICE_SECONDS, SEARCH_NOTICE, notice_if_slow
from .analysis import ordinal
from .levels import lookahead
from .player import Decision, Player


class Lines(Protocol):
    """What a game reads the human's moves from: a text stream's ``readline``."""

    def readline(self) -> str: ...


# ANSI colours: x red, o yellow; the last stone played also bold and underlined.
COLOURS = {"x": "\x1b[31m", "o": "\x1b[33m"}
LAST = "\x1b[1;4m"
RESET = "\x1b[0m"


def use_colour(out: IO[str]) -> bool:
    """Colour on a terminal, unless ``NO_COLOR`` is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


def board_text(position: Position, colour: bool = False) -> str:
    """The board as ``str(Position)`` draws it, with the last stone in capitals (X, O), and
    at a win every stone of the four it made.

    With ``colour``, stones are coloured too, and the capitals bold and underlined.
    """
    rows = str(position).split("\n")
    board = position.board
    grid = [row.split(" ") for row in rows[: board.height]]
    marked = set()
    if position.ply:
        col = int(position.moves[-1]) - 1
        last = (board.height - position.moves.count(position.moves[-1]), col)
        marked = four_through(grid, last) if position.is_won else {last}
    lines = []
    for r, cells in enumerate(grid):
        for c in range(board.width):
            stone = cells[c].upper() if (r, c) in marked else cells[c]
            if colour and stone != ".":
                stone = COLOURS[stone.lower()] + (LAST if (r, c) in marked else "") + stone + RESET
            cells[c] = stone
        lines.append(" ".join(cells))
    return "\n".join(lines + rows[board.height :])


def four_through(grid: list[list[str]], cell: tuple[int, int]) -> set[tuple[int, int]]:
    """The cells (row from the top, column) of every line of four or more like stones
    through ``cell`` in ``grid`` (rows of "x", "o", "."), ``cell`` always among them."""
    row, col = cell
    stone = grid[row][col]
    found = {cell}
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = [cell]
        for step in (1, -1):
            r, c = row + step * dr, col + step * dc
            while 0 <= r < len(grid) and 0 <= c < len(grid[0]) and grid[r][c] == stone:
                line.append((r, c))
                r, c = r + step * dr, c + step * dc
        if len(line) >= 4:
            found.update(line)
    return found


def describe_decision(decision: Decision) -> str:
    """How the AI found its move, in a few words."""
    if decision.source == "level":
        assert decision.depth is not None  # a level's choice and an unproven move say their depth
        return f"looked {lookahead(decision.depth)}"
    if decision.proven:
        return decision.source
    if decision.keeps is not None:
        kept = {1: "its win", 0: "the draw", -1: "a lost game"}[decision.keeps]
        return f"keeps {kept}, not proven best in time"
    assert decision.depth is not None
    return f"not proven: best found in time, looking {lookahead(decision.depth)}"


def hint_words(score: int | None, ply: int = 0, board: Board = STANDARD) -> str:
    """A move's score for the player making it at ``ply``, in words."""
    if score is None:
        return "full"
    if score == 0:
        return "draw"
    stones = ordinal(board.winner_stones(score, ply))
    if score > 0:
        return f"you win with your {stones} stone"
    return f"you lose, to the AI's {stones} stone"


def write_hints(player: Player, position: Position, out: IO[str]) -> None:
    scores = player.analyze(position).move_scores
    out.write("hints:\n")
    for col, score in enumerate(scores, start=1):
        if score is not None:
            out.write(f"  {col}: {hint_words(score, position.ply, position.board)}\n")


def play_game(
    player: Player,
    human_first: bool,
    stdin: Lines,
    out: IO[str],
    hints: bool = False,
    start: str = "",
) -> int:
    """Play one game from the moves ``start``; returns 0 when it ends (or the human quits).

    ``human_first``: the human makes the first move after ``start``.
    """
    colour = use_colour(out)
    position = Position.from_moves(start, player.board)
    if position.is_game_over:
        raise GameOverError(f"the game is over after {start!r}: nothing left to play", start)
    human = (position.ply + (not human_first)) % 2  # parity of the plies the human plays
    out.write(f"Level: {player.level.name}. ")
    out.write("You are x. " if human == 0 else "You are o. ")
    out.write(f"Type a column 1-{player.board.width} and press Enter; q quits.\n\n")
    out.write(f"{board_text(position, colour)}\n\n")
    searched = False
    while not position.is_game_over:
        if position.ply % 2 == human:
            if hints:
                write_hints(player, position, out)
            col = _ask_column(position, stdin, out)
            if col is None:
                out.write("\ngame abandoned\n")
                return 0
            position = position.play(col)
        else:
            if searched:
                decision = player.choose(position)
            else:  # the first loads the kernels (after an install, compiles them): a word
                # if that takes long, beyond the time the move may take anyway
                wait = NOTICE_SECONDS + (player.time_budget or 0)
                with notice_if_slow(SEARCH_NOTICE, seconds=wait):
                    decision = player.choose(position)
                searched = True
            position = position.play(decision.column)
            out.write(
                f"AI plays {decision.column}  ({describe_decision(decision)}, "
                f"{decision.seconds * 1000:.0f} ms)\n"
            )
        out.write(f"\n{board_text(position, colour)}\n\n")
    if not position.is_won:
        out.write("Draw.\n")
    elif (position.ply - 1) % 2 == human:
        out.write(f"You win, with your {ordinal((position.ply + 1) // 2)} stone!\n")
    else:
        out.write(f"The AI wins, with its {ordinal((position.ply + 1) // 2)} stone.\n")
    out.write(f"moves: {position.moves}\n")
    return 0


def _ask_column(position: Position, stdin: Lines, out: IO[str]) -> int | None:
    width = position.board.width
    while True:
        out.write(f"your move (1-{width}): ")
        out.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in ("q", "quit", "exit"):
            return None
        text = line.strip()
        if not text:  # a bare Enter: ask again
            continue
        number = text.lstrip("0") or "0"  # as int() reads it, without int(): 4,301 digits raise
        if not (text.isascii() and text.isdigit()):
            out.write(f"{_shown(text)!r} is not a column: type a number from 1 to {width}\n")
        elif len(number) > 1 or not 1 <= int(number) <= width:
            out.write(f"there is no column {_shown(number)}: columns are 1 to {width}\n")
        elif not position.can_play(int(text)):
            out.write(f"column {int(text)} is full: choose another\n")
        else:
            return int(text)


def _shown(text: str) -> str:
    """``text``, cut short if it is long enough to flood the terminal."""
    return text if len(text) <= 20 else text[:20] + "..."


DEFAULT_TIME = 10.0  # seconds per AI move outside the book


def run_play(
    db: str | None,
    first: str,
    stdin: Lines,
    out: IO[str],
    time_budget: float | None = DEFAULT_TIME,
    level: str = "perfect",
    seed: int | None = None,
    hints: bool = False,
    start: str = "",
    board: Board | None = None,
) -> int:
    book = None if db is None else Book.open(db, board=board)
    try:
        player = Player(book, time_budget=time_budget, level=level, seed=seed, board=board)
        return play_game(player, first == "human", stdin, out, hints, start)
    finally:
        if book is not None:
            book.close()

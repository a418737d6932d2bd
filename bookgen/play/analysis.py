"""Book first, search for the rest: a position's score and every move's score."""

from __future__ import annotations

from dataclasses import dataclass

from solver import STANDARD, Board, Position
from solver.errors import GameOverError

from ..book.format.scores import best_of, sign
from ..book.read.entry import as_position
from ..book.read.reader import Book


@dataclass(frozen=True)
class Analysis:
    """A position's exact score and per-move scores, and where they came from.

    ``source`` is ``"book"`` (no search), ``"book+search"`` (the position or
    some children from the book, the rest searched) or ``"search"``.
    """

    moves: str
    ply: int
    score: int
    wdl: int
    best_moves: tuple[int, ...]
    move_scores: tuple[int | None, ...]
    source: str

    def to_json(self) -> dict:
        return {
            "moves": self.moves,
            "score": self.score,
            "wdl": self.wdl,
            "best_moves": list(self.best_moves),
            "move_scores": list(self.move_scores),
            "source": self.source,
        }


def new_solver(board: Board = STANDARD):
    from solver import Solver  # numba loads only when a search is needed

    return Solver(board=board)


def board_of(moves: str | Position, book: Book | None, solver) -> Board:
    """The board a move string is read on: the book's, else the solver's, else 7x6 (a
    ``Position`` brings its own when there is neither)."""
    if book is not None:
        return book.board
    if solver is not None:
        return solver.board
    return moves.board if isinstance(moves, Position) else STANDARD


def analyze(moves: str | Position, book: Book | None = None, solver=None) -> Analysis:
    """Exact analysis of a position: from the book where it can, by search otherwise.

    A move string is read on the book's board, else the solver's, else 7x6."""
    position = as_position(moves, board_of(moves, book, solver))
    if position.is_game_over:
        raise GameOverError(
            f"the game is over after {position.moves!r}: nothing to analyze", position.moves
        )
    entry = book.get(position) if book is not None else None
    if entry is not None and entry.move_scores is not None:
        return Analysis(
            position.moves,
            position.ply,
            entry.score,
            entry.wdl,
            entry.best_moves,
            entry.move_scores,
            "book",
        )
    searched, used_book = False, entry is not None
    children = [
        position.play(col) for col in position.legal_moves() if not position.is_winning_move(col)
    ]
    in_book = (
        {}
        if book is None
        else {  # every child in one lookup
            child.key: found for child, found in zip(children, book.get_many(children), strict=True)
        }
    )

    def child_score(child: Position) -> int:
        nonlocal searched, used_book, solver
        child_entry = in_book.get(child.key)
        if child_entry is not None:
            used_book = True
            return child_entry.score
        searched = True
        solver = solver or new_solver(position.board)
        return solver.solve(child)

    scores = position.move_scores(child_score)
    score, best = best_of(scores)
    source = ("book+search" if searched else "book") if used_book else "search"
    return Analysis(
        position.moves,
        position.ply,
        score,
        sign(score),
        tuple(int(c) for c in best),
        tuple(scores),
        source,
    )


def describe_score(score: int, ply: int, board: Board = STANDARD) -> str:
    """A score in words, for the first or second player: "draw", "... wins with the 21st stone"."""
    if score == 0:
        return "draw"
    mover = "first" if ply % 2 == 0 else "second"
    other = "second" if mover == "first" else "first"
    winner = mover if score > 0 else other
    return f"{winner} player wins with the {ordinal(board.winner_stones(score, ply))} stone"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"

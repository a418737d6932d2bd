"""A game's review: each move marked best, inaccuracy, mistake or blunder, from exact scores.

The marks' rules and the accuracy figure are written here once; the command line
(``c4book review``), the explorer (``/api/review``) and docs/ai.md follow them.
Each position of the game is analysed as ``c4book query`` does it (``analyze``):
the book first, the solver past it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from solver import STANDARD, Board, Position

from ..book.format.scores import sign
from ..book.read.entry import as_position
from ..book.read.reader import Book
from .analysis import analyze, board_of, new_solver

if TYPE_CHECKING:
    from solver import Solver

BEST, INACCURACY, MISTAKE, BLUNDER = "best", "inaccuracy", "mistake", "blunder"
# The marks as chess annotates moves: shown beside a move, so that no mark is told by colour alone.
SYMBOLS = {BEST: "", INACCURACY: "?!", MISTAKE: "?", BLUNDER: "??"}


def mark(best: int, played: int) -> str:
    """The mark of a move scoring ``played`` where the best move scores ``best`` (both for the
    player who moves, Pons' convention):

    - ``"blunder"``: the result drops from a win to a loss;
    - ``"mistake"``: it drops one step, a win to a draw or a draw to a loss;
    - ``"inaccuracy"``: the same result, but a slower win or a quicker loss;
    - ``"best"`` otherwise: the move keeps the position's exact score.
    """
    drop = sign(best) - sign(played)
    if drop >= 2:
        return BLUNDER
    if drop == 1:
        return MISTAKE
    return INACCURACY if played < best else BEST


def accuracy(best: int, moves: int) -> float | None:
    """A player's accuracy, in percent: the share of their moves marked best (``None`` for no
    moves), to one decimal."""
    return None if moves == 0 else round(100 * best / moves, 1)


@dataclass(frozen=True)
class ReviewedMove:
    """One move of a game: its number (from 1), the column played, ``score_before`` (the
    position's exact score before it, which is also the best moves' score), ``score`` (the
    move's, for the player who played it), ``best_moves`` (every move that reaches
    ``score_before``), its ``mark`` (see ``mark``), every column's score (``None``: a full
    column) and where they came from (``analyze``'s ``source``)."""

    number: int
    column: int
    score_before: int
    score: int
    best_moves: tuple[int, ...]
    mark: str
    move_scores: tuple[int | None, ...]
    source: str

    @property
    def player(self) -> str:
        """``"first"`` or ``"second"``: who played it."""
        return "first" if self.number % 2 == 1 else "second"

    @property
    def symbol(self) -> str:
        """The mark as a chess annotator writes it: ``""``, ``"?!"``, ``"?"`` or ``"??"``."""
        return SYMBOLS[self.mark]

    def to_json(self) -> dict:
        return {
            **asdict(self),
            "player": self.player,
            "best_moves": list(self.best_moves),
            "symbol": self.symbol,
            "move_scores": list(self.move_scores),
        }


@dataclass(frozen=True)
class PlayerSummary:
    """One player's moves counted by mark, and ``accuracy``: the percentage of their moves
    marked best (``None`` when they made none)."""

    player: str
    moves: int
    best: int
    inaccuracy: int
    mistake: int
    blunder: int
    accuracy: float | None

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Review:
    """A game's review: ``played``, each move reviewed in order; whether the game is
    ``finished`` and its ``winner`` (``"first"``, ``"second"``, ``None`` for a draw or an
    unfinished game); and each player's summary."""

    moves: str
    played: tuple[ReviewedMove, ...]
    finished: bool
    winner: str | None
    first: PlayerSummary
    second: PlayerSummary
    board: Board = STANDARD

    def to_json(self) -> dict:
        return {
            "moves": self.moves,
            "board": {"width": self.board.width, "height": self.board.height},
            "finished": self.finished,
            "winner": self.winner,
            "played": [move.to_json() for move in self.played],
            "summary": {"first": self.first.to_json(), "second": self.second.to_json()},
        }


class _LazySolver:
    """The solver, made at the first search: a game the book covers loads no numba."""

    def __init__(self, board: Board):
        self.board = board
        self.solver: Solver | None = None

    def solve(self, position: Position) -> int:
        if self.solver is None:
            self.solver = new_solver(self.board)
        return self.solver.solve(position)


def reviewed_moves(
    position: Position, book: Book | None = None, solver=None
) -> Iterator[ReviewedMove]:
    """Each move of ``position``'s game reviewed, in order, as soon as it is (a caller with a
    deadline keeps those done in time)."""
    board = position.board
    searcher = solver if solver is not None else _LazySolver(board)
    before = Position(board)
    for number, char in enumerate(position.moves, start=1):
        column = int(char)
        found = analyze(before, book, searcher)
        played = found.move_scores[column - 1]
        assert played is not None  # the game was replayed: every move is legal
        yield ReviewedMove(
            number,
            column,
            found.score,
            played,
            found.best_moves,
            mark(found.score, played),
            found.move_scores,
            found.source,
        )
        before = before.play(column)


def summarize(position: Position, played: tuple[ReviewedMove, ...] | list[ReviewedMove]) -> Review:
    """The review of ``position``'s game from its reviewed moves (maybe only the first ones)."""

    def summary(player: str) -> PlayerSummary:
        marks = [move.mark for move in played if move.player == player]
        best = marks.count(BEST)
        return PlayerSummary(
            player,
            len(marks),
            best,
            marks.count(INACCURACY),
            marks.count(MISTAKE),
            marks.count(BLUNDER),
            accuracy(best, len(marks)),
        )

    winner = None
    if position.is_won:  # the last stone made four
        winner = "first" if position.ply % 2 == 1 else "second"
    return Review(
        position.moves,
        tuple(played),
        position.is_game_over,
        winner,
        summary("first"),
        summary("second"),
        position.board,
    )


def review(moves: str | Position, book: Book | None = None, solver=None) -> Review:
    """The review of a game, finished or not: every move's mark, and each player's summary.

    Scores come from ``book`` where it holds them, else from ``solver`` (made when first
    needed); a move string is read on the book's board, else the solver's, else 7x6.  A
    string that is no game (a bad digit, a full column, a move after the game ended)
    raises ``IllegalMoveError`` or ``GameOverError`` (``ValueError``s) naming it.
    """
    position = as_position(moves, board_of(moves, book, solver))
    return summarize(position, list(reviewed_moves(position, book, solver)))

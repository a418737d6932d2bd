"""The explorer's answers as JSON: a position's moves and their scores, a finished game, the words.

Every answer of the app is compact UTF-8 JSON rendered by orjson (``dumps``); a
column's part of an answer is made once and kept (``column_fragment``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import orjson

from solver import Board, Position

from ..play.analysis import describe_score
from ..play.player import Decision


class MoveScore(NamedTuple):
    """One column: its score for the player to move (``None``: full, or not solved in time),
    where it came from (``"book"``, ``"solver"``, ``None``), whether it is full, and
    ``book_depth``, the moves the book covers from here along this column, this one
    included (``None``: none)."""

    column: int
    score: int | None
    source: str | None
    full: bool
    book_depth: int | None = None


class Explored(NamedTuple):
    """A position's scores as the explorer shows them.

    ``proven`` says ``score`` is exact and each of ``best_moves`` is a best move.
    When the cap ran out (not ``complete``: some moves' scores unknown) and the
    book does not know the position, ``best_found`` is the player's move within
    the cap, and ``best_moves`` that move alone: proven if the player proved it.
    ``source`` is ``"book"``, ``"book+solver"`` or ``"solver"``.
    """

    position: Position
    score: int | None
    best_moves: tuple[int, ...]
    columns: tuple[MoveScore, ...]
    source: str
    in_book: bool
    proven: bool
    best_found: Decision | None
    seconds: float

    @property
    def move_scores(self) -> list[int | None]:
        return [c.score for c in self.columns]

    @property
    def complete(self) -> bool:
        """Every playable column's score is known."""
        return all(c.source is not None for c in self.columns if not c.full)

    def to_json(self) -> dict:
        """The answer as plain data; the columns are copies, the caller's to change."""
        return self._answer(
            lambda column, ply, best, board: dict(column_json(column, ply, best, board))
        )

    def rendered(self) -> bytes:
        """``to_json`` as the server sends it: compact JSON, each kind of column rendered
        once (copying and rendering columns took half of a book answer's own time)."""
        return dumps(self._answer(column_fragment))

    def _answer(self, column) -> dict:
        ply = self.position.ply
        return {
            **_about(self.position),
            "game_over": False,
            "winner": None,
            "in_book": self.in_book,
            "source": self.source,
            "proven": self.proven,
            "complete": self.complete,
            "score": self.score,
            "score_words": score_words(self.score, ply, self.position.board),
            "score_detail": None
            if self.score is None
            else describe_score(self.score, ply, self.position.board),
            "best_moves": list(self.best_moves),
            "move_scores": self.move_scores,
            "columns": [
                column(c, ply, c.column in self.best_moves, self.position.board)
                for c in self.columns
            ],
            "best_found": None if self.best_found is None else self.best_found.to_json(),
            "seconds": round(self.seconds, 6),
        }


@lru_cache(maxsize=1 << 14)
def column_json(column: MoveScore, ply: int, best: bool, board: Board = Board()) -> dict:
    """A column as the answer shows it; built once per kind (a few thousand) and shared:
    copy it before handing it out."""
    score = column.score
    return {
        "column": column.column,
        "score": score,
        "words": None if column.source is None else score_words(score, ply, board),
        "detail": None if score is None else describe_score(score, ply, board),
        "source": column.source,
        "best": best,
        "full": column.full,
        "book_depth": column.book_depth,
    }


@lru_cache(maxsize=1 << 14)
def column_fragment(
    column: MoveScore, ply: int, best: bool, board: Board = Board()
) -> orjson.Fragment:
    """``column_json`` rendered, for ``dumps`` to put in an answer as it is."""
    return orjson.Fragment(dumps(column_json(column, ply, best, board)))


def dumps(answer: dict) -> bytes:
    """Compact UTF-8 JSON, as every answer of the app is rendered: orjson, since the
    standard library's encoder took a tenth of a book answer's CPU."""
    return orjson.dumps(answer)


def _about(position: Position) -> dict:
    board = position.board
    return {
        "moves": position.moves,
        "ply": position.ply,
        "to_move": "first" if position.ply % 2 == 0 else "second",
        "board": {"width": board.width, "height": board.height},
    }


def finished_json(position: Position) -> dict:
    """A game that has ended: who won (``None``: a draw), and no moves."""
    winner = None
    if position.is_won:  # the last stone made four
        winner = "first" if position.ply % 2 == 1 else "second"
    return {
        **_about(position),
        "game_over": True,
        "winner": winner,
        "in_book": False,
        "source": None,
        "proven": True,
        "complete": True,
        "score": None,
        "score_words": None,
        "score_detail": None,
        "best_moves": [],
        "move_scores": [None] * position.board.width,
        "columns": [
            {
                "column": col,
                "score": None,
                "words": None,
                "detail": None,
                "source": None,
                "best": False,
                "full": True,
                "book_depth": None,
            }
            for col in range(1, position.board.width + 1)
        ],
        "best_found": None,
        "seconds": 0.0,
    }


def score_words(score: int | None, ply: int, board: Board = Board()) -> str | None:
    """A score of the player to move at ``ply``, in their moves: "win in 5" (this move
    counted), "draw", "loss in 8" (the opponent's moves); ``None`` if unknown.

    The winner's stones at the end follow from the score (on 7x6, 22 minus it);
    each player has ``ply // 2`` (to move) and ``(ply + 1) // 2`` (the other) on
    the board now.
    """
    if score is None:
        return None
    if score == 0:
        return "draw"
    if score > 0:
        return f"win in {board.winner_stones(score, ply) - ply // 2}"
    return f"loss in {board.winner_stones(score, ply) - (ply + 1) // 2}"

"""``NoBook``: a book of no positions, on any board, for what reads a book and must do
without one (``c4book serve --no-book``, boards past 64 bits, which no book holds yet)."""

from __future__ import annotations

from collections.abc import Sequence

from solver import Position
from solver.bitboard import STANDARD, Board

from ..format.names import SCHEMA_VERSION
from .entry import BookEntry, BookInfo, BookMove, preference


class NoBook:
    """Read-only, and empty: every lookup finds nothing, so every position is searched.

    Its ``info`` holds no ply (``max_ply`` -1: not even the root's) and its ``db`` is
    ``None``: no file.
    """

    db = None

    def __init__(self, board: Board | str = STANDARD):
        self.board = board = Board.parse(board)
        self.info = BookInfo(
            width=board.width,
            height=board.height,
            root="",
            plies_complete=(),
            schema_version=SCHEMA_VERSION,
            max_ply=-1,
        )

    def get(self, moves: str | Position) -> BookEntry | None:
        return None

    def get_many(self, moves_list: Sequence[str | Position]) -> list[BookEntry | None]:
        return [None] * len(moves_list)

    def best_move(
        self, moves: str | Position, prefer: Sequence[int] | None = None
    ) -> BookMove | None:
        preference(prefer, self.board)  # (a bad one is named, as by ``Book``)
        return None

    def entries_of_keys(self, keys: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
        return [], [], []

    def __contains__(self, moves: str | Position) -> bool:
        return False

    def __len__(self) -> int:
        return 0

    def close(self) -> None:
        """Nothing to let go (as ``Book.close``, for whoever opened it)."""

    def __repr__(self) -> str:
        return f"NoBook({str(self.board)!r})"

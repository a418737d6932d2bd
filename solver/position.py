"""``Position``: an immutable Connect 4 position, built from a move string."""

from __future__ import annotations

import random
from collections.abc import Callable

from .bitboard import STANDARD, Board
from .errors import BoardSizeError, GameOverError, IllegalMoveError, is_whole


class Position:
    """A position as two bitboards plus the moves that led to it, on its ``Board``.

    Columns are 1-based, as in move strings: ``Position.from_moves("4453")``
    on the standard 7x6 board, ``Position.from_moves("343", board="6x5")`` on
    another.  Values are immutable; ``play`` returns a new Position.
    """

    __slots__ = ("_board", "_current", "_mask", "_moves", "_won")

    def __init__(self, board: Board | str | None = None) -> None:
        self._current = 0
        self._mask = 0
        self._moves = ""
        self._won = False
        self._board = Board.parse(board)

    @classmethod
    def from_moves(cls, moves: str, board: Board | str | None = None) -> Position:
        """The position after ``moves``, a string of column digits (may be empty), on
        ``board`` (a ``Board`` or ``"WxH"``; the standard 7x6 by default)."""
        board = Board.parse(board)
        if not isinstance(moves, str):
            raise IllegalMoveError(
                f"moves must be a string of digits {_columns(board)}, got {moves!r}", str(moves)
            )
        # Fast path for the usual, legal string: plain bit arithmetic, no
        # intermediate Positions.  Anything unusual (a bad digit, a full column,
        # a four before the end) replays move by move to name the problem.
        index, top, bottom, cells = (
            _COLUMN_INDEX,
            board.top_cells,
            board.bottom_cells,
            board.column_masks,
        )
        last = board.width - 1
        current = mask = 0
        for char in moves:
            col = index.get(char)
            if col is None or col > last or mask & top[col]:
                return cls._replay(moves, board)
            current, mask = current ^ mask, mask | ((mask + bottom[col]) & cells[col])
        # Stones never leave the board: no four now means no four was ever made.
        if board.has_four(current) or board.has_four(current ^ mask):
            return cls._replay(moves, board)
        return cls._raw(current, mask, moves, False, board)

    @classmethod
    def _replay(cls, moves: str, board: Board = STANDARD) -> Position:
        position = cls(board)
        for index, char in enumerate(moves):
            if char not in board.digits:
                raise IllegalMoveError(
                    f"illegal move {char!r} at position {index + 1} of {moves!r}: "
                    f"columns are digits {_columns(board)}",
                    moves,
                    index,
                )
            position = position._play_checked(int(char), moves, index)
        return position

    @classmethod
    def _raw(
        cls, current: int, mask: int, moves: str, won: bool, board: Board = STANDARD
    ) -> Position:
        position = cls.__new__(cls)
        position._current = current
        position._mask = mask
        position._moves = moves
        position._won = won
        position._board = board
        return position

    # -- playing -----------------------------------------------------------
    def can_play(self, col: int) -> bool:
        """True when column ``col`` (from 1) is on the board and not full."""
        if not is_whole(col) or not 1 <= col <= self._board.width:
            return False
        return not self._mask & self._board.top_cells[col - 1]

    def legal_moves(self) -> list[int]:
        """Columns (from 1) that can be played; empty once the game is over."""
        if self.is_game_over:
            return []
        return [col for col in range(1, self._board.width + 1) if self.can_play(col)]

    def play(self, col: int) -> Position:
        """The position after the player to move drops a stone in ``col`` (from 1)."""
        return self._play_checked(col, self._moves + str(col), len(self._moves))

    def _play_checked(self, col: int, moves: str, index: int) -> Position:
        board = self._board
        if not is_whole(col) or not 1 <= col <= board.width:
            raise IllegalMoveError(
                f"illegal column {col!r} in {moves!r}: columns are {_columns(board)}", moves, index
            )
        if self._won:
            raise GameOverError(
                f"move {col} at position {index + 1} of {moves!r} comes after the game was won",
                moves,
                index,
            )
        if self.is_full:
            raise GameOverError(
                f"move {col} at position {index + 1} of {moves!r} comes after the board is full",
                moves,
                index,
            )
        if not self.can_play(col):
            raise IllegalMoveError(
                f"column {col} is full at move {index + 1} of {moves!r}", moves, index
            )
        stone = (self._mask + board.bottom_cells[col - 1]) & board.column_masks[col - 1]
        mover = self._current | stone
        return Position._raw(
            self._current ^ self._mask,
            self._mask | stone,
            self._moves + str(col),
            board.has_four(mover),
            board,
        )

    def move_scores(self, child_score: Callable[[Position], int]) -> list[int | None]:
        """Each column's score (``None`` if full) by one ply of negamax.

        A winning move and a move that fills the board score at once; any other
        child is scored by ``child_score`` (from its own player's side) and negated.
        """
        scores: list[int | None] = []
        for col in range(1, self._board.width + 1):
            if not self.can_play(col):
                scores.append(None)
            elif self.is_winning_move(col):
                scores.append(self._board.win_score(self.ply))
            else:
                child = self.play(col)
                scores.append(0 if child.is_full else -child_score(child))
        return scores

    def is_winning_move(self, col: int) -> bool:
        """True when playing ``col`` now makes four in a row for the player to move."""
        if self.is_game_over or not self.can_play(col):
            return False
        board = self._board
        stone = (self._mask + board.bottom_cells[col - 1]) & board.column_masks[col - 1]
        return board.has_four(self._current | stone)

    def is_opponent_winning_move(self, col: int) -> bool:
        """True when the opponent would make four by playing ``col``, were it their turn."""
        if self.is_game_over or not self.can_play(col):
            return False
        board = self._board
        stone = (self._mask + board.bottom_cells[col - 1]) & board.column_masks[col - 1]
        return board.has_four((self._current ^ self._mask) | stone)

    # -- state -------------------------------------------------------------
    @property
    def board(self) -> Board:
        """The board this position is played on."""
        return self._board

    @property
    def moves(self) -> str:
        return self._moves

    @property
    def ply(self) -> int:
        """Number of stones on the board."""
        return len(self._moves)

    @property
    def current(self) -> int:
        """Bitboard of the stones of the player to move."""
        return self._current

    @property
    def mask(self) -> int:
        """Bitboard of all stones."""
        return self._mask

    @property
    def is_won(self) -> bool:
        """True when the last move made four in a row."""
        return self._won

    @property
    def is_full(self) -> bool:
        return self.ply == self._board.cells

    @property
    def is_game_over(self) -> bool:
        return self._won or self.is_full

    # -- identity ----------------------------------------------------------
    @property
    def key(self) -> int:
        """An integer unique to this position (not to the moves' order)."""
        return self._current + self._mask

    def mirror(self) -> Position:
        """The position with columns reversed; its moves are mirrored too."""
        board = self._board
        return Position._raw(
            board.mirror_bits(self._current),
            board.mirror_bits(self._mask),
            board.mirror_moves(self._moves),
            self._won,
            board,
        )

    @property
    def mirror_key(self) -> int:
        return self._board.mirror_bits(self.key)

    @property
    def canonical_key(self) -> int:
        """The same for a position and its mirror image: the smaller key."""
        return min(self.key, self.mirror_key)

    @property
    def is_canonical(self) -> bool:
        return self.key <= self.mirror_key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self._current == other._current
            and self._mask == other._mask
            and self._board is other._board
        )

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        if self._board is STANDARD:
            return f"Position.from_moves({self._moves!r})"
        return f"Position.from_moves({self._moves!r}, board={str(self._board)!r})"

    def _repr_svg_(self) -> str:
        """The board as SVG, for notebooks (``solver.svg``, imported at the first drawing)."""
        from .svg import board_svg

        return board_svg(self)

    def _repr_html_(self) -> str:
        return f"<div>{self._repr_svg_()}</div>"

    def __str__(self) -> str:
        """The board in ASCII: ``x`` moved first, ``o`` second; column numbers below."""
        board = self._board
        first = self._current if self.ply % 2 == 0 else self._current ^ self._mask
        rows = []
        for row in reversed(range(board.height)):
            cells = []
            for col in range(board.width):
                bit = 1 << (row + col * board.h1)
                cells.append("." if not self._mask & bit else "x" if first & bit else "o")
            rows.append(" ".join(cells))
        rows.append(" ".join(board.digits))
        return "\n".join(rows)


def random_position(rng: random.Random, ply: int, board: Board = STANDARD) -> Position:
    """An unfinished position at ``ply``: the end of a random legal game on ``board``, each
    move drawn from ``rng`` (the same seed, the same position)."""
    while True:
        position = Position.from_moves("", board)
        while position.ply < ply and not position.is_game_over:
            position = position.play(rng.choice(position.legal_moves()))
        if not position.is_game_over:
            return position


def position_on(value: str | Position, board: Board, holder: str) -> Position:
    """``value`` as a Position of ``board``: a move string is read on it, a Position must be
    of it.  Otherwise an error naming the input, and ``holder`` ("this solver plays")."""
    if isinstance(value, str):
        return Position.from_moves(value, board)
    if not isinstance(value, Position):
        raise IllegalMoveError(f"expected a Position or a move string, got {value!r}")
    if value.board is not board:
        raise BoardSizeError(
            f"position {value.moves!r} is on a {value.board} board; {holder} {board}"
        )
    return value


# Every digit, so that a digit past the board's width takes the slow path to be named.
_COLUMN_INDEX = {str(col + 1): col for col in range(9)}


def _columns(board: Board) -> str:
    """How an error names the board's columns: ``1-7``."""
    return f"1-{board.width}"

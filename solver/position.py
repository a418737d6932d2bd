"""``Position``: an immutable Connect 4 position, built from a move string."""

from __future__ import annotations

from collections.abc import Callable

from .bitboard import (
    BOTTOM_CELLS,
    CELLS,
    COLUMN_MASKS,
    HEIGHT,
    TOP_CELLS,
    WIDTH,
    has_four,
    mirror_bits,
    mirror_moves,
    win_score,
)
from .errors import GameOverError, IllegalMoveError


_COLUMN_INDEX = {str(col + 1): col for col in range(WIDTH)}


class Position:
    """A 7x6 position as two bitboards plus the moves that led to it.

    Columns are 1-based, as in move strings: ``Position.from_moves("4453")``.
    Values are immutable; ``play`` returns a new Position.
    """

    __slots__ = ("_current", "_mask", "_moves", "_won")

    def __init__(self) -> None:
        self._current = 0
        self._mask = 0
        self._moves = ""
        self._won = False

    @classmethod
    def from_moves(cls, moves: str) -> Position:
        """The position after ``moves``, a string of digits 1-7 (may be empty)."""
        if not isinstance(moves, str):
            raise IllegalMoveError(f"moves must be a string of digits 1-7, got {moves!r}", str(moves))
        # Fast path for the usual, legal string: plain bit arithmetic, no
        # intermediate Positions.  Anything unusual (a bad digit, a full column,
        # a four before the end) replays move by move to name the problem.
        current = mask = 0
        for char in moves:
            col = _COLUMN_INDEX.get(char)
            if col is None or mask & TOP_CELLS[col]:
                return cls._replay(moves)
            current, mask = current ^ mask, mask | ((mask + BOTTOM_CELLS[col]) & COLUMN_MASKS[col])
        # Stones never leave the board: no four now means no four was ever made.
        if has_four(current) or has_four(current ^ mask):
            return cls._replay(moves)
        return cls._raw(current, mask, moves, False)

    @classmethod
    def _replay(cls, moves: str) -> Position:
        position = cls()
        for index, char in enumerate(moves):
            if char not in "1234567":
                raise IllegalMoveError(
                    f"illegal move {char!r} at position {index + 1} of {moves!r}: "
                    "columns are digits 1-7",
                    moves,
                    index,
                )
            position = position._play_checked(int(char), moves, index)
        return position

    @classmethod
    def _raw(cls, current: int, mask: int, moves: str, won: bool) -> Position:
        position = cls.__new__(cls)
        position._current = current
        position._mask = mask
        position._moves = moves
        position._won = won
        return position

    # -- playing -----------------------------------------------------------
    def can_play(self, col: int) -> bool:
        """True when column ``col`` (1-7) is on the board and not full."""
        if isinstance(col, bool) or not isinstance(col, int) or not 1 <= col <= WIDTH:
            return False
        return not self._mask & TOP_CELLS[col - 1]

    def legal_moves(self) -> list[int]:
        """Columns (1-7) that can be played; empty once the game is over."""
        if self.is_game_over:
            return []
        return [col for col in range(1, WIDTH + 1) if self.can_play(col)]

    def play(self, col: int) -> Position:
        """The position after the player to move drops a stone in ``col`` (1-7)."""
        return self._play_checked(col, self._moves + str(col), len(self._moves))

    def _play_checked(self, col: int, moves: str, index: int) -> Position:
        if isinstance(col, bool) or not isinstance(col, int) or not 1 <= col <= WIDTH:
            raise IllegalMoveError(f"illegal column {col!r} in {moves!r}: columns are 1-7", moves, index)
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
        stone = (self._mask + BOTTOM_CELLS[col - 1]) & COLUMN_MASKS[col - 1]
        mover = self._current | stone
        return Position._raw(self._current ^ self._mask, self._mask | stone, self._moves + str(col),
                             has_four(mover))

    def move_scores(self, child_score: Callable[[Position], int]) -> list[int | None]:
        """Each column's score (``None`` if full) by one ply of negamax.

        A winning move and a move that fills the board score at once; any other
        child is scored by ``child_score`` (from its own player's side) and negated.
        """
        scores: list[int | None] = []
        for col in range(1, WIDTH + 1):
            if not self.can_play(col):
                scores.append(None)
            elif self.is_winning_move(col):
                scores.append(win_score(self.ply))
            else:
                child = self.play(col)
                scores.append(0 if child.is_full else -child_score(child))
        return scores

    def is_winning_move(self, col: int) -> bool:
        """True when playing ``col`` now makes four in a row for the player to move."""
        if self.is_game_over or not self.can_play(col):
            return False
        stone = (self._mask + BOTTOM_CELLS[col - 1]) & COLUMN_MASKS[col - 1]
        return has_four(self._current | stone)

    def is_opponent_winning_move(self, col: int) -> bool:
        """True when the opponent would make four by playing ``col``, were it their turn."""
        if self.is_game_over or not self.can_play(col):
            return False
        stone = (self._mask + BOTTOM_CELLS[col - 1]) & COLUMN_MASKS[col - 1]
        return has_four((self._current ^ self._mask) | stone)

    # -- state -------------------------------------------------------------
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
        return self.ply == CELLS

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
        return Position._raw(mirror_bits(self._current), mirror_bits(self._mask),
                             mirror_moves(self._moves), self._won)

    @property
    def mirror_key(self) -> int:
        return mirror_bits(self.key)

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
        return self._current == other._current and self._mask == other._mask

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Position.from_moves({self._moves!r})"

    def __str__(self) -> str:
        """The board in ASCII: ``x`` moved first, ``o`` second; columns 1-7 below."""
        first = self._current if self.ply % 2 == 0 else self._current ^ self._mask
        rows = []
        for row in reversed(range(HEIGHT)):
            cells = []
            for col in range(WIDTH):
                bit = 1 << (row + col * (HEIGHT + 1))
                cells.append("." if not self._mask & bit else "x" if first & bit else "o")
            rows.append(" ".join(cells))
        rows.append(" ".join(str(col) for col in range(1, WIDTH + 1)))
        return "\n".join(rows)

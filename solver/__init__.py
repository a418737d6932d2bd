"""Connect 4 game logic and perfect-play search, on 7x6 or any other ``Board``.

``Board``, ``Position`` and the errors are pure Python; ``Solver`` pulls in
numba only when first used, so that reading positions stays light.
"""

from typing import TYPE_CHECKING, Any

from .bitboard import DEFAULT_TABLE_LOG2, STANDARD, Board, win_score
from .errors import BoardSizeError, C4Error, GameOverError, IllegalMoveError, SearchLimitError
from .position import Position

if TYPE_CHECKING:  # type checkers see Solver's types; Python loads it on first use
    from .engine import Solver

__all__ = [
    "DEFAULT_TABLE_LOG2",
    "STANDARD",
    "Board",
    "BoardSizeError",
    "C4Error",
    "GameOverError",
    "IllegalMoveError",
    "Position",
    "SearchLimitError",
    "Solver",
    "win_score",
]


def __getattr__(name: str) -> Any:
    if name == "Solver":
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")

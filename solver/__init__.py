"""Connect 4 (7x6) game logic and perfect-play search.

``Position`` and the errors are pure Python; ``Solver`` pulls in numba only
when first used, so that reading positions stays light.
"""

from .bitboard import DEFAULT_TABLE_LOG2, HEIGHT, WIDTH, win_score
from .errors import BoardSizeError, C4Error, GameOverError, IllegalMoveError, SearchLimitError
from .position import Position

__all__ = ["Position", "Solver", "C4Error", "IllegalMoveError", "GameOverError",
           "BoardSizeError", "SearchLimitError", "WIDTH", "HEIGHT", "DEFAULT_TABLE_LOG2",
           "win_score"]


def __getattr__(name):
    if name == "Solver":
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")

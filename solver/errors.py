"""The project's exception hierarchy.

Every error the project raises on purpose derives from ``C4Error``, so that
the command line can turn any of them into one readable line.  Each also
derives from the built-in exception a caller would naturally catch.
"""


class C4Error(Exception):
    """Base of every c4book error."""


class IllegalMoveError(C4Error, ValueError):
    """A move string or column that cannot be played.

    ``moves`` is the whole input, ``index`` the 0-based offset of the bad
    character in it (``None`` when the input as a whole is wrong).
    """

    def __init__(self, message: str, moves: str = "", index: "int | None" = None):
        super().__init__(message)
        self.moves = moves
        self.index = index


class GameOverError(IllegalMoveError):
    """A move played after the game was already won or drawn."""


class BoardSizeError(C4Error, ValueError):
    """A board size c4book does not play, or a position, solver or book of another board
    than the one asked for."""


class SearchLimitError(C4Error, RuntimeError):
    """A search stopped at the node limit its caller set, before it was proven."""


class ArgumentError(C4Error, ValueError):
    """An argument outside what it may be (a thread count, a table size, a time budget);
    the message names the argument and the value given."""


class ArgumentTypeError(C4Error, TypeError):
    """An argument of a kind that cannot be used at all (a number where a path is taken,
    one string where a list of them is); the message names the argument."""


def is_whole(value: object) -> bool:
    """True for an ``int`` that is not a ``bool``: the test every whole-number argument passes
    at run time, whatever its annotation promised (``value`` is ``object`` so that a type
    checker does not call the test redundant)."""
    return isinstance(value, int) and not isinstance(value, bool)

"""A build's settings as one frozen value: checked where it is made, then passed whole.

``BuildConfig.create`` finds what a build's arguments leave to the outside
world (the book's location and board, the cluster in ``RAY_ADDRESS``);
the constructor checks the rest, so that any ``BuildConfig`` is one that
can be built.  A bad setting is a ``ValueError`` naming its option.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from solver import Board, Position
from solver.bitboard import STANDARD, TABLE_LOG2_MAX, TABLE_LOG2_MIN
from solver.errors import C4Error

from ..book.format.location import book_location
from .part import Part

WORKER_TABLE_LOG2 = 27  # 1 GiB per worker process: neighbours' subtrees stay in it


class BuildArgumentError(C4Error, ValueError):
    """A build setting that cannot be built: ``--root``, ``--ply``, ``--workers``, ..."""


def check_request(root: str, ply: int, board: Board | None = None) -> Position:
    """The position after ``root``, once it is known that a book up to ``ply`` can grow
    from it."""
    position = Position.from_moves(root, board)
    if position.is_game_over:
        raise BuildArgumentError(f"--root {root!r} is a finished game: nothing to build")
    if not position.ply <= ply <= position.board.cells:
        raise BuildArgumentError(
            f"--ply {ply} must be between the root's ply ({position.ply}) "
            f"and {position.board.cells}"
        )
    return position


def book_board(db: str, board: Board | str | None) -> Board | None:
    """The board to build: an existing book's (refused if ``board`` is another), else
    ``board`` (``None``: the standard 7x6)."""
    from ..book.format.database import recorded_board

    board = None if board is None else Board.parse(board)
    return recorded_board(db, board) or board


@dataclass(frozen=True)
class BuildConfig:
    """The book ``db`` up to ``ply`` below ``root``, and how to build it."""

    db: str  # a path or a SQLAlchemy URL, as ``book_location`` gives it
    ply: int
    root: str = ""  # the moves of the book's root
    board: Board = STANDARD  # an existing book's own (``create`` reads it)
    address: str | None = None  # the Ray cluster; None: a Ray of its own on this machine
    workers: int | None = None  # solvers in all; None: every CPU of the cluster
    threads: int | None = None  # solver threads per process; None: the smallest node's CPUs
    table_log2: int = WORKER_TABLE_LOG2  # each worker process's transposition table
    progress: bool = True  # progress bars (and what the workers are waiting for)
    verbose: bool = False  # Ray's own messages
    part: Part | None = None  # search and store only this part of the frontier (``part``)
    position: Position = field(init=False, repr=False, compare=False)  # the root's

    def __post_init__(self) -> None:
        # In the order build() has always checked them, so that the first bad one is named
        # (create reads RAY_ADDRESS and parses --part before).
        object.__setattr__(self, "position", check_request(self.root, self.ply, self.board))
        if self.address is not None:
            from .cluster import check_address  # loads Ray: not for a dry run's imports

            check_address(self.address)
        if self.workers is not None and self.workers < 1:
            raise BuildArgumentError(f"--workers must be at least 1, got {self.workers}")
        if self.threads is not None and self.threads < 1:
            raise BuildArgumentError(f"--threads must be at least 1, got {self.threads}")
        if not TABLE_LOG2_MIN <= self.table_log2 <= TABLE_LOG2_MAX:
            raise BuildArgumentError(
                f"--table-log2 must be between {TABLE_LOG2_MIN} and {TABLE_LOG2_MAX}, "
                f"got {self.table_log2}"
            )

    @classmethod
    def create(
        cls,
        db: str | os.PathLike = "book.db",
        ply: int = 8,
        root: str = "",
        *,
        board: Board | str | None = None,
        address: str | None = None,
        workers: int | None = None,
        threads: int | None = None,
        table_log2: int = WORKER_TABLE_LOG2,
        progress: bool = True,
        verbose: bool = False,
        part: Part | str | None = None,
    ) -> BuildConfig:
        """The config of ``build()``'s arguments: ``db`` located, the board an existing
        book's, the cluster ``address`` or else ``RAY_ADDRESS``'s, ``part`` parsed from
        ``"I/K"``."""
        from .cluster import build_address  # loads Ray: not for a dry run's imports

        db = book_location(db)
        board = book_board(db, board) or STANDARD
        check_request(root, ply, board)  # the caller's own mistake is named before the shell's
        if address is None:  # RAY_ADDRESS, as a Ray job's driver finds its cluster
            address = build_address(None)
        if isinstance(part, str):
            part = Part.parse(part)
        return cls(
            db=db,
            ply=ply,
            root=root,
            board=board,
            address=address,
            workers=workers,
            threads=threads,
            table_log2=table_log2,
            progress=progress,
            verbose=verbose,
            part=part,
        )

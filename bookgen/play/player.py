"""``Player``: a Connect 4 AI that reads the book before it searches.

By default it plays perfectly.  Under a time or node budget it plays the
anytime search's move (``solver.anytime``): the result protected first, then
the best move found; below ``level="perfect"`` it plays like a person of that
level (``bookgen.play.levels``).
"""

from __future__ import annotations

import math
import numbers
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from solver import Board, Position
from solver.bitboard import DEFAULT_TABLE_LOG2
from solver.errors import (
    ArgumentError,
    ArgumentTypeError,
    BoardSizeError,
    GameOverError,
    is_whole,
)

from ..book.read.entry import as_position, preference
from ..book.read.reader import Book
from ..limits import MAX_NODE_BUDGET, MAX_TIME_BUDGET
from .analysis import Analysis, analyze
from .knowledge import Floors, book_bound, book_leaves
from .levels import DEFAULT_LEVEL, get_level, level_move

if TYPE_CHECKING:
    from solver import Solver
    from solver.anytime import AnytimeSearch

_BOOKISH = ("get", "get_many", "best_move", "info", "board")  # what a player reads of its book


def check_time_budget(seconds: float, name: str = "time_budget") -> float:
    """``seconds`` if it is a number above 0 and at most ``MAX_TIME_BUDGET``; else an
    ``ArgumentError`` naming ``name``."""
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, numbers.Real)
        or not 0 < seconds <= MAX_TIME_BUDGET
    ):
        raise ArgumentError(
            f"{name} must be a number of seconds above 0 and at most "
            f"{MAX_TIME_BUDGET:g} (a day), got {seconds!r}"
        )
    return seconds


@dataclass(frozen=True)
class Decision:
    """The move chosen and how.

    ``source`` is ``"book"``, ``"search"`` (exact), ``"anytime"`` (the budget
    ran out first: the best move found, see ``depth``) or ``"level"`` (a
    level's choice).  ``proven`` says the move is optimal; ``score`` is the
    position's exact score when known.  ``depth`` is how deep the evaluation
    search looked for an unproven move (0: it did not need to).  ``keeps``
    is the position's result (1 won, 0 drawn, -1 lost) when the move is
    proven to keep it, else ``None``.
    """

    column: int
    score: int | None
    source: str
    proven: bool
    seconds: float
    depth: int | None = None
    keeps: int | None = None

    def to_json(self) -> dict:
        return {
            "column": self.column,
            "score": self.score,
            "source": self.source,
            "proven": self.proven,
            "seconds": round(self.seconds, 6),
            "depth": self.depth,
            "keeps": self.keeps,
        }


class Player:
    """Plays the best move: the fastest win, the slowest loss, never losing a draw.

    ``time_budget`` (seconds) caps a search outside the book: the anytime
    search then answers with the best move it found, marked not proven, but
    never a move that loses at once while another does not, nor one off a
    proven win.  ``node_budget`` caps it in explored nodes instead (or as
    well), which, unlike time, gives the same answers on any machine under
    any load.  ``level`` (see ``LEVELS``) plays weaker, like a person, and
    without the book; ``seed`` makes its choices reproducible.  ``threads``
    (default: one per core) search an exact solve together; a budgeted search
    keeps to one.
    It plays the book's board, or without a book ``board`` (7x6 by default; a board past
    64 bits, such as 8x8, has no book: books keep one-word keys).
    ``book`` may be a path (or URL): the player opens it (``player.book``).
    Threads may share a player: its moves are chosen one at a time, in turn
    (a lock), each as a lone player would; a budget starts when its turn does.
    """

    def __init__(
        self,
        book: Book | str | os.PathLike[str] | None = None,
        time_budget: float | None = None,
        table_log2: int | None = None,
        node_budget: int | None = None,
        level: str = DEFAULT_LEVEL,
        seed: int | None = None,
        threads: int | None = None,
        board: Board | str | None = None,
    ):
        if time_budget is not None:
            time_budget = check_time_budget(time_budget)
        if node_budget is not None and (
            not is_whole(node_budget) or not 1 <= node_budget <= MAX_NODE_BUDGET
        ):
            raise ArgumentError(
                f"node_budget must be a positive whole number of nodes, at "
                f"most {MAX_NODE_BUDGET:.0e}, got {node_budget!r}"
            )
        if seed is not None and not isinstance(seed, (int, str, bytes)):
            raise ArgumentTypeError(f"seed must be a whole number, a string or None, got {seed!r}")
        if (
            not isinstance(book, (str, os.PathLike))
            and book is not None
            and not all(hasattr(book, name) for name in _BOOKISH)
        ):
            raise ArgumentTypeError(f"book must be a Book, a book's path or None, got {book!r}")
        if threads is not None:
            from solver.engine import (
                check_threads,  # (the solver's modules load only if asked)
            )

            check_threads(threads)  # now, not at the first search
        self.level = get_level(level)
        self.threads = threads
        asked = None if board is None else Board.parse(board)
        if isinstance(book, (str, os.PathLike)):  # the player's own book, open while it plays
            book = Book.open(book, board=asked)
        elif book is not None and asked is not None and asked is not book.board:
            raise BoardSizeError(f"board {asked} is not the book's: {book.db!r} is of {book.board}")
        self.book = book
        self._moves_book = book if self.level.reads_book else None  # what the moves read
        self.board = book.board if book is not None else asked or Board()
        # Centre columns first (on 7x6: 4 3 5 2 6 1 7).
        self._centre_first = preference(None, self.board)  # (the book's default order too)
        self.time_budget = time_budget
        self.node_budget = node_budget if node_budget is not None else self.level.nodes
        self.table_log2 = (
            table_log2 if table_log2 is not None else _table_for(time_budget, self.node_budget)
        )
        self.seed = seed
        self._budgeted = time_budget is not None or self.node_budget is not None
        self._rng = random.Random(seed)
        self._solver: Solver | None = None
        self._anytime: AnytimeSearch | None = None
        self._floors = Floors()  # what earlier proofs say about positions to come
        # One move at a time: the solver's node limit, the anytime search's scratch,
        # the floors and the level's random choices serve one search.
        self._lock = threading.RLock()
        self.last: Decision | None = None

    def __repr__(self) -> str:
        nodes = (
            ""
            if self.node_budget in (None, self.level.nodes)
            else f", node_budget={self.node_budget!r}"
        )
        level = (
            ""
            if self.level.name == DEFAULT_LEVEL
            else f", level={self.level.name!r}, seed={self.seed!r}"
        )
        board = (
            "" if self.book is not None or self.board is Board() else f", board={str(self.board)!r}"
        )
        return f"Player(book={self.book!r}, time_budget={self.time_budget!r}{nodes}{level}{board})"

    def best_move(self, moves: str | Position) -> int:
        """The column (from 1) to play."""
        return self.choose(moves).column

    def analyze(self, moves: str | Position) -> Analysis:
        """Every move's exact score: from the book where it can, by this player's solver otherwise."""
        position = as_position(moves, self.board)
        with self._lock:
            return analyze(position, self.book, self._get_solver())

    def choose(self, moves: str | Position) -> Decision:
        with self._lock:
            return self._choose(moves)

    def _choose(self, moves: str | Position) -> Decision:
        if self._anytime is None and (self.time_budget or self.level.name != "perfect"):
            self._get_anytime()  # loads its kernels before the clock starts
        started = time.perf_counter()
        position = as_position(moves, self.board)
        if position.is_game_over:
            raise GameOverError(
                f"the game is over after {position.moves!r}: no move to play", position.moves
            )
        column, score, source, proven, depth, keeps = self._decide(position, started)
        if keeps is None and score is not None and proven:
            keeps = (score > 0) - (score < 0)
        self.last = Decision(
            column, score, source, proven, time.perf_counter() - started, depth, keeps
        )
        return self.last

    def _decide(self, position: Position, started: float) -> tuple:
        """(column, score, source, proven, depth, keeps): see ``Decision``."""
        if self.level.depth is not None:
            column, _ = level_move(self._get_anytime(), position, self.level, self._rng)
            return column, None, "level", False, self.level.depth, None
        book = self._moves_book
        if book is not None and (found := book.best_move(position, self._centre_first)):
            column, score = found
            # The book ends: remember its proof for the budgeted searches past it
            # (only they read it: a player without a budget skips the grandchildren).
            if position.ply + 2 > book.info.max_ply and self._budgeted:
                self._floors.after_move(position, column, score)
            return column, score, "book", True, None, None
        for col in self._centre_first:
            if position.is_winning_move(col):
                return col, self.board.win_score(position.ply), "search", True, None, None
        if self.time_budget is None and self.node_budget is None:
            return (*self._search(position), "search", True, None, None)
        return self._anytime_move(position, started)

    def _search(self, position: Position) -> tuple[int, int]:
        solver = self._get_solver()
        score = solver.solve(position)
        for col in self._centre_first:
            if solver.is_best_move(position, col, score):
                return col, score
        raise AssertionError(f"no move reaches the score {score} of {position!r}")

    def _anytime_move(self, position: Position, started: float) -> tuple:
        """The anytime search's move, within the budget, from what the book and earlier proofs say."""
        own = self._floors.get(position)  # from this player's proofs: a win is kept at any cost
        bound = book_bound(self._moves_book, position)
        floors = [f for f in (own, None if bound is None else bound.low) if f is not None]
        high = bound.low if bound is not None and bound.exact else self.board.cells
        answer = self._get_anytime().choose(
            position,
            seconds=self.time_budget,
            nodes=self.node_budget,
            low=max(floors, default=-99),
            high=high,
            known=book_leaves(self._moves_book, position),
            keep_win=own is not None and own >= 1,
            started=started,
        )
        if answer.score is not None and answer.proven:
            self._floors.after_move(position, answer.column, answer.score)
        elif answer.keeps_result and answer.result is not None and answer.result >= 0:
            self._floors.after_move(position, answer.column, answer.result)
        source = "search" if answer.proven else "anytime"
        return (
            answer.column,
            answer.score,
            source,
            answer.proven,
            None if answer.proven else answer.depth,
            answer.result if answer.keeps_result else None,
        )

    def _get_anytime(self) -> AnytimeSearch:
        if self._anytime is None:
            from solver.anytime import AnytimeSearch

            self._anytime = AnytimeSearch(self._get_solver())
        return self._anytime

    def _get_solver(self) -> Solver:
        if self._solver is None:
            from solver import Solver

            # Searches with no budget race one thread per core on the table;
            # budgeted ones are stopped from outside, so they keep to one thread.
            self._solver = Solver(
                table_log2=self.table_log2,
                threads=1 if self._budgeted else self.threads,
                board=self.board,
            )
            # Touch every page of the table now (17 ms for 2**24 slots): the first
            # searches would otherwise fault them in one by one, up to 0.4 s more.
            self._solver.clear()
        return self._solver


def _table_for(seconds: float | None, nodes: int | None) -> int:
    """The solver's table size (log2 of its slots): 2**24 for exact play, 2**20-2**22 under a budget.

    A budgeted search visits a few million nodes at most, and a big table
    hurt it: on a loaded machine the first touches of a 128 MiB table stalled
    20 ms searches by tens of milliseconds (scripts/bench_anytime.py).
    """
    if seconds is None and nodes is None:
        return DEFAULT_TABLE_LOG2
    most = min(n for n in (nodes, None if seconds is None else seconds * 5e6) if n is not None)
    return max(20, min(22, math.ceil(math.log2(most + 1))))

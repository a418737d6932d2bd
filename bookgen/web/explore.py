"""How the explorer finds a position's move scores: from the book, or solved within a time cap.

A book position that holds its moves' scores is answered at once
(``from_book``).  Anything else goes to an ``Explorer``, one per worker
thread of the server's pool: it solves the moves the book lacks, centre
first, until a share of the cap is spent; if some are left unsolved and the
book does not know the position, its ``Player`` finds the best move it can
in the rest of the cap, and the answer says whether that proved anything.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING

from solver import Board, Position
from solver.alarm import Alarm
from solver.errors import SearchLimitError

from .. import Decision, Player
from ..play.review import Review, reviewed_moves, summarize
from .answer import Explored, MoveScore

if TYPE_CHECKING:
    from solver import Solver

EXACT_SHARE = 0.6  # of the cap, for the moves' exact scores; the rest for the best move found
LAST_SHARE = 0.95  # the same when the book gives the position's score: no best move to find
PLAYERS_KEPT = 4  # players (level, time) a worker keeps: each holds 20-40 MiB of tables
_UNKNOWN = 1000  # a child's score not found in time: outside every real score
# Loads the kernels before the first request: a winning move at once, after one short search.
_WARM = "112233"


def book_reach(book, child: Position, found) -> int | None:
    """The deepest ply the book holds below ``child`` (its entry ``found``), itself included.

    When the book holds every position from the child's ply to its last, that
    is the last ply; otherwise it is read along the best line.
    """
    if found is None:
        return None
    info = book.info
    if _complete_from(info, child.ply):
        return info.max_ply
    reach, entry = child.ply, found
    while entry.move_scores is not None and entry.best_moves:
        child = child.play(entry.best_moves[0])
        entry = None if child.is_game_over else book.get(child)
        if entry is None:
            break
        reach = child.ply
    return reach


@lru_cache(maxsize=256)
def _complete_from(info, ply: int) -> bool:
    """Whether the book holds every position from ``ply`` to its last ply (below its root)."""
    return all(p in info.plies_complete for p in range(ply, info.max_ply + 1))


def _children(position: Position) -> dict[int, Position]:
    """The children that need a score, by column: not a winning move, not the board's last cell.

    ``Position.move_scores`` asks for exactly these; the callback only notes them.
    """
    asked: dict[int, Position] = {}

    def note(child: Position) -> int:
        asked[int(child.moves[-1])] = child
        return 0

    position.move_scores(note)
    return asked


def _depths(
    book, position: Position, children: dict[int, Position], entries: list
) -> dict[int, int | None]:
    return {
        col: None if (reach := book_reach(book, child, entry)) is None else reach - position.ply
        for (col, child), entry in zip(children.items(), entries, strict=True)
    }


def from_book(book, position: Position, entry, started: float) -> Explored:
    """The answer for a book position that holds its moves' scores (``entry.move_scores``)."""
    info, ply, board = book.info, position.ply, position.board
    if ply < info.max_ply and _complete_from(info, ply + 1):
        # Every child of a book position is in it then, and all below them: no lookups.
        # Only a winning move scores win_score(ply); a game that ends has nothing below.
        depths = {
            col: info.max_ply - ply
            for col, score in enumerate(entry.move_scores, 1)
            if score is not None and score != board.win_score(ply) and ply + 1 < board.cells
        }
    else:
        children = _children(position)
        depths = _depths(book, position, children, book.get_many(list(children.values())))
    # A book entry's move score is None exactly where the column is full.
    columns = tuple(
        MoveScore(col, score, None if score is None else "book", score is None, depths.get(col))
        for col, score in enumerate(entry.move_scores, start=1)
    )
    return Explored(
        position,
        entry.score,
        entry.best_moves,
        columns,
        "book",
        True,
        True,
        None,
        time.perf_counter() - started,
    )


class SharedTable:
    """Solvers for the worker threads, one each, that share one transposition table
    (``Solver.fork``): what one worker proves, the others find."""

    def __init__(self, board: Board = Board()):
        self._lock = threading.Lock()
        self._board = board
        self._first: Solver | None = None

    def solver(self) -> Solver:
        with self._lock:
            if self._first is None:
                from solver import Solver  # numba: loaded by the first worker, not at start

                self._first = Solver(board=self._board)
            return self._first.fork()


class Explorer:
    """One worker thread's searches: its solver, and players by (level, time)."""

    def __init__(self, book, cap: float, solver: Solver):
        self.book, self.cap, self.solver = book, cap, solver
        self._alarm = Alarm()
        self._players: OrderedDict[tuple[str, float], Player] = OrderedDict()
        warm = Position.from_moves(_WARM, solver.board)
        self.solver.solve(warm)
        for seconds in (self.cap, self._rest):  # the players the page asks for
            self.player("perfect", seconds).choose(warm)

    @property
    def _rest(self) -> float:
        return self.cap * (1 - EXACT_SHARE)

    def player(self, level: str, seconds: float) -> Player:
        """A player of ``level`` thinking ``seconds`` past the book; kept for the next request."""
        key = (level, seconds)
        player = self._players.pop(key, None) or Player(self.book, time_budget=seconds, level=level)
        self._players[key] = player
        while len(self._players) > PLAYERS_KEPT:
            self._players.popitem(last=False)
        return player

    def move(self, position: Position, level: str, seconds: float) -> Decision:
        return self.player(level, seconds).choose(position)

    def explore(self, position: Position) -> Explored:
        started = time.perf_counter()
        entry = self.book.get(position)
        if entry is not None and entry.move_scores is not None:
            return from_book(self.book, position, entry, started)
        columns = self._columns(position, entry, started)
        used_book = entry is not None or any(c.source == "book" for c in columns)
        searched = any(c.source == "solver" for c in columns)
        source = ("book+solver" if searched else "book") if used_book else "solver"
        best_found, proven = None, True
        score: int | None
        if all(c.source is not None for c in columns if not c.full):
            score = max(c.score for c in columns if c.score is not None)
            best_moves = tuple(c.column for c in columns if c.score == score)
        elif entry is not None:  # the book's last ply: the position's score, not its moves'
            score, best_moves = entry.score, entry.best_moves
        else:  # the player may still prove its move best, and the score with it
            best_found = self.player("perfect", self._rest).choose(position)
            proven = best_found.proven and best_found.score is not None
            score, best_moves = best_found.score if proven else None, (best_found.column,)
        return Explored(
            position,
            score,
            best_moves,
            columns,
            source,
            entry is not None,
            proven,
            best_found,
            time.perf_counter() - started,
        )

    def review(self, position: Position, seconds: float) -> tuple[Review, bool]:
        """The review of ``position``'s game, as far as it gets within ``seconds``: the moves
        reviewed in time, and whether they are all of them."""
        done: list = []
        deadline = time.perf_counter() + seconds
        moves = reviewed_moves(position, self.book, self.solver)
        # The alarm's thread stops the kernel (it releases the GIL) at the deadline.
        self._alarm.set(deadline, lambda: self.solver.set_node_limit(1))
        try:
            while len(done) < position.ply and time.perf_counter() < deadline:
                done.append(next(moves))
        except SearchLimitError:
            pass  # (the moves reviewed so far are kept)
        finally:
            self._alarm.cancel()
            self.solver.set_node_limit(None)
        return summarize(position, done), len(done) == position.ply

    def _columns(self, position: Position, entry, started: float) -> tuple[MoveScore, ...]:
        """Every column's score: from the book's entries, else solved, centre first, in time."""
        children = _children(position)
        entries = self.book.get_many(list(children.values()))
        # Each child's own score (the mover's move scores minus it), by key.
        known = {
            child.key: found.score
            for child, found in zip(children.values(), entries, strict=True)
            if found is not None
        }
        low = -position.board.cells
        if entry is not None:  # the book's last ply: its score, and which moves reach it
            for col in entry.best_moves:
                if col in children:
                    known[children[col].key] = -entry.score
            low = 1 - entry.score  # any other move scores less: its child more than -score
        sources = {child.key: "book" for child in children.values() if child.key in known}
        # With the position's score known there is no best move to look for after.
        deadline = started + self.cap * (LAST_SHARE if entry is not None else EXACT_SHARE)
        for col in (c + 1 for c in position.board.column_order):  # the likely best first
            child = children.get(col)
            if child is None or child.key in known:
                continue
            score = self._solve_by(child, low, deadline)
            if score is None:
                break
            known[child.key], sources[child.key] = score, "solver"
        scores = position.move_scores(lambda child: known.get(child.key, _UNKNOWN))
        depths = _depths(self.book, position, children, entries)
        return tuple(
            MoveScore(
                col,
                None if s == -_UNKNOWN else s,
                _source(col, s, children, sources),
                not position.can_play(col),
                depths.get(col),
            )
            for col, s in enumerate(scores, start=1)
        )

    def _solve_by(self, child: Position, low: int, deadline: float) -> int | None:
        """The child's exact score, known to be at least ``low``; ``None`` if the deadline
        comes first."""
        if time.perf_counter() >= deadline:
            return None
        # The alarm's thread stops the kernel (it releases the GIL) at the deadline.
        self._alarm.set(deadline, lambda: self.solver.set_node_limit(1))
        try:
            return self.solver.solve_window(child, low, child.board.cells)
        except SearchLimitError:
            return None
        finally:
            self._alarm.cancel()
            self.solver.set_node_limit(None)


def _source(col: int, score: int | None, children: dict, sources: dict) -> str | None:
    if score is None or score == -_UNKNOWN:
        return None
    child = children.get(col)
    return "solver" if child is None else sources[child.key]

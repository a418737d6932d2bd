"""What the explorer shows of a position: every move's score, from the book or solved within a time cap.

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
from typing import TYPE_CHECKING, NamedTuple

import orjson

from solver import Board, Position
from solver.alarm import Alarm
from solver.errors import SearchLimitError

from .. import Decision, Player
from ..play.analysis import describe_score
from ..play.review import Review, reviewed_moves, summarize

if TYPE_CHECKING:
    from solver import Solver

EXACT_SHARE = 0.6  # of the cap, for the moves' exact scores; the rest for the best move found
LAST_SHARE = 0.95  # the same when the book gives the position's score: no best move to find
PLAYERS_KEPT = 4  # players (level, time) a worker keeps: each holds 20-40 MiB of tables
_UNKNOWN = 1000  # a child's score not found in time: outside every real score
# Loads the kernels before the first request: a winning move at once, after one short search.
_WARM = "112233"


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

"""The explorer's web app: one page, its JSON API, and Pons' ``/solve``.

    GET /                       the page (static files from this package only)
    GET /api/info               the book, the levels, the time cap
    GET /api/position?moves=    a position's score and every move's
    GET /api/move?moves=&level=&time=   the AI's move and how it found it
    GET /solve?pos=             {"pos": ..., "score": [7 scores, 100 for a full column]}
    GET /api/review?pos=        a game's review: each move's mark, each player's accuracy

Book positions are answered on the event loop, most of them by the hot path
in front of the routes (``fastpath``); searches go to the bounded
pool (``pool.SolvePool``), which answers 503 when full.  Bad input is a 400
``{"error": ..., "param": ...}``; nothing a request sends reaches a
traceback or the file system.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from solver import STANDARD, Board, Position
from solver.errors import ArgumentError, IllegalMoveError, is_whole
from solver.palette import score_colours

from ..limits import MAX_SERVE_WORKERS
from ..play.game import describe_decision
from ..play.levels import DEFAULT_LEVEL, LEVELS, LevelError, get_level
from ..play.player import check_time_budget
from .answer import Explored, dumps, finished_json
from .explore import Explorer, SharedTable, from_book
from .fastpath import BookFastPath, pons_scores
from .pool import LockedBook, PoolFullError, SolvePool

log = logging.getLogger("c4book.web")

STATIC = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
PONS_FULL_COLUMN = 100  # Pons' /solve marks a full column so
SOLVED_KEPT = 10_000  # searched answers remembered (a few hundred bytes each)
REVIEW_CAPS = 5  # a review may take five caps: each position past the book is a search
# The page loads nothing from elsewhere, and nothing may frame it.
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


class JSON(JSONResponse):
    """A JSON answer, rendered as the hot path renders its own."""

    def render(self, content) -> bytes:
        return dumps(content)


class BadInputError(ValueError):
    """A request's parameter that cannot be used; ``param`` names it."""

    def __init__(self, param: str, message: str):
        super().__init__(f"{param}: {message}")
        self.param = param


def _static_files() -> dict[str, bytes]:
    """The page's files, read once from this package: requests never name a path."""
    folder = resources.files(__package__) / "static"
    return {name: (folder / name).read_bytes() for name in STATIC}


def _position(request: Request, param: str, board: Board = STANDARD) -> Position:
    text = request.query_params.get(param, "")
    if len(text) > board.cells:  # before replaying it: a long string costs time to reject
        raise BadInputError(param, f"{len(text)} moves: a game has at most {board.cells}")
    try:
        return Position.from_moves(text, board)
    except IllegalMoveError as error:
        raise BadInputError(param, str(error)) from None


def _unfinished(request: Request, param: str, board: Board = STANDARD) -> Position:
    position = _position(request, param, board)
    if position.is_game_over:
        raise BadInputError(param, f"the game is over after {position.moves!r}: no move to play")
    return position


def _level(request: Request) -> str:
    name = request.query_params.get("level", DEFAULT_LEVEL)
    try:
        return get_level(name).name
    except LevelError as error:
        raise BadInputError("level", str(error)) from None


def _seconds(request: Request, cap: float) -> float:
    text = request.query_params.get("time")
    if text is None:
        return cap
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= cap):
        raise BadInputError(
            "time",
            f"{text[:50]!r} is not a number of seconds above 0 and at "
            f"most this server's cap of {cap:g} s",
        )
    return seconds


def create_app(
    book,
    cap: float = 1.0,
    workers: int = 2,
    waiting: int | None = None,
    cors: str | None = None,
    on_start: Callable[[], None] | None = None,
) -> Starlette:
    """The app, over an open ``book`` (or a ``NoBook``: every position searched), shared
    by every request.

    ``cap``: seconds a search past the book may take.  ``workers`` threads
    search at once, ``waiting`` more requests (default: as many) may wait for
    one; past that, 503.  ``cors``: the one origin allowed to call the API
    from a browser (default: none).
    """
    check_time_budget(cap, "cap")
    if not is_whole(workers) or not 1 <= workers <= MAX_SERVE_WORKERS:
        raise ArgumentError(
            f"workers must be a whole number from 1 to {MAX_SERVE_WORKERS}, got {workers!r}"
        )
    shared = LockedBook(book)
    table = SharedTable(book.board)
    pool = SolvePool(
        lambda: Explorer(shared, cap, table.solver()),
        workers,
        workers if waiting is None else waiting,
    )
    files = _static_files()
    info = {
        "levels": [
            {"name": level.name, "about": level.about, "elo": level.elo, "rated": level.rated}
            for level in LEVELS.values()
        ],
        "default_level": DEFAULT_LEVEL,
        "time": cap,
        "board": {"width": book.board.width, "height": book.board.height},
        # Each score's colour, written once (solver.palette) for this page and the notebook's SVG.
        "colours": {str(score): colour for score, colour in score_colours(book.board).items()},
        # None with no book (``NoBook``, a file of none): the page says so.
        "book": None
        if book.db is None
        else {
            "root": book.info.root,
            "max_ply": book.info.max_ply,
            "plies_complete": list(book.info.plies_complete),
        },
    }

    solved: OrderedDict[str, Explored] = OrderedDict()  # searched answers, most recent last

    async def explored(position: Position) -> Explored:
        started = time.perf_counter()
        entry = shared.get(position)
        if entry is not None and entry.move_scores is not None:
            return from_book(shared, position, entry, started)  # no search: answered here
        if position.moves in solved:
            solved.move_to_end(position.moves)
            return solved[position.moves]
        result = await pool.run(Explorer.explore, position)
        if result.complete:
            solved[position.moves] = result  # (an unproven answer may be bettered next time)
            if len(solved) > SOLVED_KEPT:
                solved.popitem(last=False)
        return result

    async def page(request: Request) -> Response:
        return Response(files["index.html"], media_type=STATIC["index.html"], headers=HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in files:
            raise HTTPException(404, f"no such file: {name[:80]!r}")
        return Response(files[name], media_type=STATIC[name], headers=HEADERS)

    async def api_info(request: Request) -> Response:
        return JSON({**info, "workers": pool.workers, "busy": pool.busy})

    async def api_position(request: Request) -> Response:
        position = _position(request, "moves", book.board)
        if position.is_game_over:
            return JSON(finished_json(position))
        return Response((await explored(position)).rendered(), media_type=JSON.media_type)

    async def api_move(request: Request) -> Response:
        position = _unfinished(request, "moves", book.board)
        level, seconds = _level(request), _seconds(request, cap)
        decision = await pool.run(Explorer.move, position, level, seconds)
        return JSON(
            {
                "moves": position.moves,
                "level": level,
                "time": seconds,
                **decision.to_json(),
                "how": describe_decision(decision),
                "after": position.moves + str(decision.column),
            }
        )

    async def pons_solve(request: Request) -> Response:
        if book.board is not STANDARD:
            raise BadInputError(
                "pos",
                f"Pons' /solve answers 7x6 positions, and this server "
                f"plays {book.board}: ask /api/position?moves= instead",
            )
        position = _unfinished(request, "pos")
        result = await explored(position)
        scores = pons_scores(result.columns, PONS_FULL_COLUMN)
        answer: dict[str, object] = {"pos": position.moves, "score": scores}
        if any(score is None for score in scores):  # the cap ran out: said, not hidden
            answer["proven"] = False
        return JSON(answer)

    async def api_review(request: Request) -> Response:
        position = _position(request, "pos", book.board)
        return JSON(await pool.run(review_json, position, cap * REVIEW_CAPS))

    @asynccontextmanager
    async def lifespan(app):
        pool.start()
        if on_start is not None:
            on_start()
        try:
            yield
        finally:
            pool.close()

    routes = [
        Route("/", page),
        Route("/static/{name}", static),
        Route("/api/info", api_info),
        Route("/api/position", api_position),
        Route("/api/move", api_move),
        Route("/solve", pons_solve),
        Route("/api/review", api_review),
    ]
    # The hot path first: it passes on any request with an Origin, for CORS to judge.
    middleware = [Middleware(BookFastPath, book=shared, full_column=PONS_FULL_COLUMN)]
    if cors is not None:
        middleware.append(Middleware(CORSMiddleware, allow_origins=[cors], allow_methods=["GET"]))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={
            BadInputError: _bad_input,  # type: ignore[dict-item]  # Starlette types a handler's error as any Exception
            PoolFullError: _full,  # type: ignore[dict-item]  # Starlette types a handler's error as any Exception
            HTTPException: _http_error,  # type: ignore[dict-item]  # Starlette types a handler's error as any Exception
            Exception: _internal,
        },
    )
    app.state.pool = pool
    return app


def review_json(explorer: Explorer, position: Position, seconds: float) -> dict:
    """``/api/review``'s answer, on a worker: ``Review.to_json`` and ``complete``, whether
    every move was reviewed within ``seconds`` (the moves past that are left out)."""
    review, complete = explorer.review(position, seconds)
    return {**review.to_json(), "complete": complete}


async def _bad_input(request: Request, error: BadInputError) -> Response:
    return JSON({"error": str(error), "param": error.param}, status_code=400)


async def _full(request: Request, error: PoolFullError) -> Response:
    return JSON({"error": str(error)}, status_code=503, headers={"Retry-After": "1"})


async def _http_error(request: Request, error: HTTPException) -> Response:
    detail = (
        error.detail
        if error.status_code != 404 or error.detail != "Not Found"
        else f"no such page: {request.url.path[:80]!r}"
    )
    return JSON({"error": detail}, status_code=error.status_code, headers=error.headers)


async def _internal(request: Request, error: Exception) -> Response:
    # A bug of ours: logged in full here, one line to the client.
    log.error("error answering %s", request.url.path, exc_info=error)
    return JSON({"error": f"internal error: {type(error).__name__}"}, status_code=500)

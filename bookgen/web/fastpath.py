"""The hot path: a book position's scores answered in front of Starlette, as plain ASGI.

Most requests the explorer gets are ``GET /api/position`` or ``GET /solve``
of a position the book holds with its moves' scores.  Starlette's request,
routing, middleware and response objects cost more CPU than the answer
itself, and on a busy server that CPU is every other client's wait.  So such
a request, and only such, is answered here, with the answer the Starlette
route would send (a test holds them equal, but for the time taken).  Everything else goes
on to the app unchanged: any other path or parameter, a position the book
must be helped with, bad input (the app names it), and any request with an
``Origin`` header (the app's CORS rules apply to it).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from time import perf_counter

from solver import STANDARD, Position
from solver.errors import IllegalMoveError

from .answer import dumps
from .explore import from_book

# The one parameter each path takes, as a query string the hot path accepts (Position
# refuses a column or a length beyond the board's; the app then names it).
QUERIES = {
    "/api/position": re.compile(rb"moves=([1-9]{0,60})"),
    "/solve": re.compile(rb"pos=([1-7]{0,42})"),
}
_HEADERS = [(b"content-type", b"application/json")]


def pons_scores(columns, full: int) -> list:
    """Pons' seven scores: ``full`` for a full column."""
    return [full if c.full else c.score for c in columns]


class BookFastPath:
    """ASGI: answers the book's positions itself and passes every other request to ``app``.

    ``book`` is the shared (locked) book; ``full_column`` Pons' mark for a full column.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], book, full_column: int):
        self.app, self.book, self.full_column = app, book, full_column

    async def __call__(self, scope, receive, send) -> None:
        body = self._answer(scope) if scope["type"] == "http" else None
        if body is None:
            await self.app(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(body)).encode()), *_HEADERS],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _answer(self, scope) -> bytes | None:
        """The answer's bytes, or ``None``: the app answers this request."""
        query = QUERIES.get(scope["path"])
        if query is None or scope["method"] != "GET":
            return None
        found = query.fullmatch(scope["query_string"])
        if found is None or any(name == b"origin" for name, _ in scope["headers"]):
            return None
        board = self.book.board
        if scope["path"] == "/solve" and board is not STANDARD:
            return None  # the app refuses it: Pons' /solve is of 7x6
        started = perf_counter()
        try:
            position = Position.from_moves(found.group(1).decode(), board)
        except IllegalMoveError:
            return None  # the app says what is wrong with it
        if position.is_game_over:
            return None
        entry = self.book.get(position)
        if entry is None or entry.move_scores is None:
            return None
        explored = from_book(self.book, position, entry, started)
        if scope["path"] == "/solve":
            return dumps(
                {"pos": position.moves, "score": pons_scores(explored.columns, self.full_column)}
            )
        return explored.rendered()

"""What one client may take of the server: a request's head is bounded in bytes and in time.

uvicorn's httptools protocol reads a request's URL and headers with no bound on
their size (httptools joins a long header's pieces by copying: one client's
300 MB header held the event loop, and so every other client, for 28 s, and
grew the server by 0.6 GB) or on the time they take (``timeout_keep_alive``
runs only between requests and a byte stops it: a client that never finishes
its request, or sends a byte now and then, is held for ever).  uvicorn has no
setting for either (https://github.com/Kludex/uvicorn/issues/157).  This
protocol adds them, with the limits ``guarded`` gives it (``server.py`` sets them):

- A request's head (request line and headers) may take ``head_bytes``.  The
  parser is fed no byte past that: the client gets 414 (the URL is most of it)
  or 431, as JSON, and the connection is closed.
- A request must arrive whole within ``idle`` seconds of the connection's
  opening or of its own first byte, and a client must start its next request
  within ``idle`` seconds of an answer (uvicorn's keep-alive, set to the same).
  Past that the connection is closed, with a 408 if part of a head came.
  The app's own time (a search) is not counted.
- At most ``waiting_at_most`` connections wait on their clients (opened, or a
  request under way); past that the one waiting longest is closed.
- A refused connection is closed after ``linger_bytes`` more or ``linger_seconds``.
- A client that reads none of its answers while the server waits to write
  them (the transport's buffer full) is dropped after ``idle`` seconds.

uvicorn's 400 for a request it cannot parse is JSON here too, as every answer is.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import ClassVar, cast

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, RequestResponseCycle

from .answer import dumps
from .coalesce import GatheringHttpToolsProtocol, GatheringTransport


class GuardedProtocol(GatheringHttpToolsProtocol):
    """uvicorn's httptools protocol (writes gathered) with a bound on each request's head."""

    head_bytes: ClassVar[int]  # a request's URL and headers, at most
    idle: ClassVar[float]  # seconds a connection may wait on its client
    linger_bytes: ClassVar[int]  # of a refused request, read and dropped at most
    linger_seconds: ClassVar[float]  # before a refused connection is closed, at most
    waiting_at_most: ClassVar[int]  # connections waiting on their clients, at most
    # Those connections (each with its deadline), the one waiting longest first.
    waiting: ClassVar[OrderedDict[GuardedProtocol, None]]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.timeout_keep_alive = self.idle  # type: ignore[assignment]  # uvicorn types it int; call_later takes any number
        self._head_seen = 0  # bytes of the head being read (not counted inside a body)
        self._in_head = False  # a request begun, its headers not all in
        self._in_body = False  # its headers in, its body not all in
        self._deadline: asyncio.TimerHandle | None = None
        self._refused: asyncio.TimerHandle | None = None  # closes a refused connection
        self._stalled: asyncio.TimerHandle | None = None  # drops a client that reads nothing
        self._dropped = 0  # bytes read and dropped since

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()  # the first request is owed from now

    def connection_lost(self, exc: Exception | None) -> None:
        self._unwatch()
        for timer in (self._refused, self._stalled):
            if timer is not None:
                timer.cancel()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        # The client reads none of what it asked for (a pipeline of requests, unread):
        # without a deadline its answer's task waited for ever, and held a clean stop too.
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.idle, self.transport.abort)
        super().pause_writing()

    def resume_writing(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().resume_writing()

    def data_received(self, data: bytes) -> None:
        if self._refused is not None:
            self._dropped += len(data)
            if self._dropped > self.linger_bytes:
                self.transport.close()
            return
        if self._in_body or self._head_seen + len(data) <= self.head_bytes:
            if not self._in_body:  # (a head, or what comes before one)
                self._head_seen += len(data)
            super().data_received(data)  # most often a whole request
        else:
            self._feed_to_limit(data)
        if self._deadline is None and self._owed() and not self._ended():
            self._watch()  # a request under way, or an answer sent and more coming

    def _feed_to_limit(self, data: bytes) -> None:
        """Feed ``data`` to the parser, a head no further than the limit (then refused)."""
        while data and not self._ended():
            if self._in_body:  # a body: uvicorn's flow control bounds what it keeps
                piece, data = data, b""
            else:
                room = self.head_bytes - self._head_seen
                if room <= 0:
                    self._refuse_head()
                    return
                piece, data = data[:room], data[room:]
                self._head_seen += len(piece)
            super().data_received(piece)

    # Parser callbacks: where a request's head and body start and end.

    def on_message_begin(self) -> None:
        self._in_head = True
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        # Before uvicorn's: it may start the app, which must see a request past its head.
        self._in_head, self._in_body, self._head_seen = False, True, 0
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_body = False
        self._unwatch()  # all in: what follows is the app's time, then keep-alive's
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        self._close_with(400, {"error": f"not a request this server can read: {msg}"})

    # The limits.

    def _ended(self) -> bool:
        """Whether the connection takes no more requests: refused, or closing."""
        return self._refused is not None or self.transport.is_closing()

    def _owed(self) -> bool:
        """Whether the connection waits on its client: a request under way, or none at all."""
        return self._in_head or self._in_body or self._answered()

    def _answered(self) -> bool:
        """No answer is being made on this connection."""
        # (uvicorn types the cycle as there from the start: it is from the first request)
        cycle = cast("RequestResponseCycle | None", self.cycle)
        return cycle is None or cycle.response_complete

    def _watch(self) -> None:
        self._unwatch()
        self._deadline = self.loop.call_later(self.idle, self._late)
        self.waiting[self] = None
        if len(self.waiting) > self.waiting_at_most:
            # Room for this one, and a file descriptor for the next client: slow clients
            # come in thousands, a real one finishes its request in milliseconds.
            self.waiting.popitem(last=False)[0]._evict()

    def _unwatch(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
            del self.waiting[self]

    def _evict(self) -> None:
        """Close the connection: it has waited longest and room is needed (it is off the list)."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.transport.close()

    def _late(self) -> None:
        self._deadline = None
        del self.waiting[self]
        if self._ended():
            return
        if self._in_head and self._answered():
            self._close_with(
                408, {"error": f"the request did not arrive whole within {self.idle:g} s"}
            )
        else:  # nothing begun (an idle connection), or a body: closed as keep-alive closes
            self.transport.close()

    def _refuse_head(self) -> None:
        url = self.url if self._in_head else b""  # (uvicorn sets it as a request begins)
        limit = f"{self.head_bytes:,} bytes"
        if 2 * len(url) > self.head_bytes:  # the URL is the most of it
            error = (
                f"url: {len(url):,} bytes and more; a request's URL and headers may take {limit}"
            )
            self._close_with(414, {"error": error, "param": "url"})
        else:
            error = f"headers: the request's URL and headers take over {limit}, the most read"
            self._close_with(431, {"error": error, "param": "headers"})

    def _close_with(self, status: int, answer: dict) -> None:
        """Answer ``status`` with ``answer`` as JSON (unless an answer is under way), and close."""
        self._unwatch()
        if not self._answered():  # ours would cut into it: the client sees the connection end
            self.transport.close()
            return
        body = dumps(answer)
        head = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head.append(
            b"content-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n" % len(body)
        )
        gathered = cast(GatheringTransport, self.transport)
        gathered.write(b"".join(head) + body)
        gathered.flush()  # before the end of stream, which the real transport sends
        if self.transport.can_write_eof():
            self.transport.write_eof()
        # Closed with the client's bytes unread, the socket would send a reset, which can
        # destroy the answer before the client reads it (a client still sending its long
        # URL did not see it): what it sends is read and dropped first, up to a bound in
        # bytes and in time (reading costs the server CPU).
        self._refused = self.loop.call_later(self.linger_seconds, self.transport.close)


def guarded(
    head_bytes: int,
    idle: float,
    linger_bytes: int,
    linger_seconds: float,
    waiting_at_most: int,
) -> type[GuardedProtocol]:
    """The protocol with these limits (uvicorn makes one a connection from a class), for
    one server: it counts that server's connections."""
    limits = {
        "head_bytes": head_bytes,
        "idle": idle,
        "linger_bytes": linger_bytes,
        "linger_seconds": linger_seconds,
        "waiting_at_most": max(1, waiting_at_most),
        "waiting": OrderedDict(),
    }
    return cast(type[GuardedProtocol], type("GuardedProtocol", (GuardedProtocol,), limits))

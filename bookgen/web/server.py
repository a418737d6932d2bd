"""``serve``: the explorer's app on a socket, with uvicorn, until Ctrl-C."""

from __future__ import annotations

import math
import os
import socket
import sys
from typing import IO, TYPE_CHECKING

from solver import STANDARD, Board
from solver.errors import C4Error

from .. import Book
from ..book.read.nobook import NoBook
from ..play.player import check_time_budget
from .app import create_app

if TYPE_CHECKING:
    import asyncio
    from typing import Literal

WILDCARDS = ("0.0.0.0", "::", "")

# What one client may take of the server: guard.py holds every request to these (uvicorn's
# h11 parser, used only without httptools, has the byte limit and the keep-alive).  The
# help of --idle-timeout names both.
# A request's URL and headers, in bytes: browsers send 1-2 KiB (more with other localhost
# sites' cookies), a position's URL under 100 bytes, and httptools parses no URL past
# 64 KiB.  A slow client holds at most this much of the server's memory.
HEAD_BYTES = 32 * 1024
# Seconds a connection may wait on its client, for a whole request or for the next one
# (--idle-timeout): a head takes milliseconds even on a slow link, and a browser opens a new
# connection at once when its idle one was closed.  Slow clients hold at most the rate
# they connect at times this many connections.
IDLE_SECONDS = 10.0
# A refused request's connection (a 400, 408, 414 or 431) is closed once its client has sent
# LINGER_BYTES more or after LINGER_SECONDS, whichever comes first; what it sends meanwhile
# is read and dropped.  Closed with bytes unread, the socket would send a reset, which can
# destroy the error before the client reads it: a client still sending a URL of 1 MB reads
# its 414.  One that goes on sending costs the server a millisecond of reading.
LINGER_BYTES = 1 << 20
LINGER_SECONDS = 1.0
# Connections waiting on their clients (connected, or a request under way) at most: past
# that, the one waiting longest is closed.  Slow clients hold at most this many sockets and
# this many heads (32 MiB), and a real client, whose request takes milliseconds, still gets
# in: without it they held every file descriptor, and others were refused until the idle
# limit.  At most half the process's file descriptors (ulimit -n), for the others.
WAITING_AT_MOST = 1000


class ListenError(C4Error, OSError):
    """The server cannot listen where it was asked to."""


def default_workers() -> int:
    """One search thread per core this process may use, at most 4 (each holds ~200 MiB)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def _descriptors() -> int:
    """The files this process may open (its soft ``ulimit -n``; unbounded: as if 2**20)."""
    try:
        import resource
    except ImportError:  # not on Unix
        return 1 << 20
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


def listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off only on sockets that say TCP, and with
    # it on every answer in two writes waited 40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sock


def serve(
    db: str | None = "book.db",
    host: str = "127.0.0.1",
    port: int = 8000,
    cap: float = 1.0,
    cors: str | None = None,
    workers: int | None = None,
    out: IO[str] = sys.stdout,
    idle: float | None = None,
    board: Board | None = None,
) -> int:
    """Serve the explorer over the book ``db`` until interrupted; 0 when stopped.

    ``db`` ``None``: no book, every position searched, on ``board`` (7x6 by default; any
    board, past 64 bits too); with a book, ``board`` must be the book's.  ``idle``:
    seconds a connection may wait on its client (default ``IDLE_SECONDS``; ``guard.py``).
    """
    import uvicorn  # only here: the app itself needs no server to be tested

    idle = IDLE_SECONDS if idle is None else check_time_budget(idle, "idle")
    book = NoBook(board or STANDARD) if db is None else Book.open(db, board=board)
    try:
        sock = listen(host, port)
        address = f"http://{'[' + host + ']' if ':' in host else host}:{sock.getsockname()[1]}/"

        size = "" if book.board is STANDARD else f", {book.board}"
        served = (
            f"no book{size}; searches every position"
            if book.db is None
            else f"book {book.db}{size}, to ply {book.info.max_ply}; searches past it"
        )

        def ready() -> None:
            out.write(f"c4book serve: {address} ({served} up to {cap:g} s; Ctrl-C stops)\n")
            if host in WILDCARDS:
                out.write(
                    "c4book serve: listening on every network interface: anyone who can "
                    "reach this machine can use the explorer and its solver\n"
                )
            out.flush()

        app = create_app(book, cap, workers or default_workers(), cors=cors, on_start=ready)
        http: type[asyncio.Protocol] | Literal["auto"]
        try:
            from .guard import guarded
        except ImportError:  # no httptools: uvicorn's own choice (h11: no deadline on a head)
            http = "auto"
            sys.stderr.write(
                "c4book serve: httptools is not installed, so a request's head has no "
                "deadline and a slow client can hold a connection: pip install httptools\n"
            )
        else:
            http = guarded(
                HEAD_BYTES,
                idle,
                LINGER_BYTES,
                LINGER_SECONDS,
                min(WAITING_AT_MOST, _descriptors() // 2),
            )
        # No proxy headers: nothing here uses the client's address, so none is trusted.
        # No websockets: the explorer has none.
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="on",
            proxy_headers=False,
            http=http,
            ws="none",
            h11_max_incomplete_event_size=HEAD_BYTES,
            timeout_keep_alive=math.ceil(idle),  # (whole seconds to uvicorn; guard.py's exact)
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        book.close()
    return 0

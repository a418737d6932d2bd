"""``serve``: the explorer's app on a socket, with uvicorn, until Ctrl-C."""

from __future__ import annotations

import os
import socket
import sys
from typing import IO, TYPE_CHECKING

from solver import STANDARD
from solver.errors import C4Error

from .. import Book
from .app import create_app

if TYPE_CHECKING:
    import asyncio
    from typing import Literal

WILDCARDS = ("0.0.0.0", "::", "")


class ListenError(C4Error, OSError):
    """The server cannot listen where it was asked to."""


def default_workers() -> int:
    """One search thread per core this process may use, at most 4 (each holds ~200 MiB)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


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
    db: str = "book.db",
    host: str = "127.0.0.1",
    port: int = 8000,
    cap: float = 1.0,
    cors: str | None = None,
    workers: int | None = None,
    out: IO[str] = sys.stdout,
) -> int:
    """Serve the explorer over the book ``db`` until interrupted; 0 when stopped."""
    import uvicorn  # only here: the app itself needs no server to be tested

    book = Book.open(db)
    try:
        sock = listen(host, port)
        address = f"http://{'[' + host + ']' if ':' in host else host}:{sock.getsockname()[1]}/"

        board = "" if book.board is STANDARD else f", {book.board}"

        def ready() -> None:
            out.write(
                f"c4book serve: {address} (book {db}{board}, to ply {book.info.max_ply}; "
                f"searches past it up to {cap:g} s; Ctrl-C stops)\n"
            )
            if host in WILDCARDS:
                out.write(
                    "c4book serve: listening on every network interface: anyone who can "
                    "reach this machine can use the explorer and its solver\n"
                )
            out.flush()

        app = create_app(book, cap, workers or default_workers(), cors=cors, on_start=ready)
        http: type[asyncio.Protocol] | Literal["auto"]
        try:
            from .coalesce import GatheringHttpToolsProtocol
        except ImportError:  # no httptools: uvicorn's own choice
            http = "auto"
        else:
            http = GatheringHttpToolsProtocol
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
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        book.close()
    return 0

"""One system call an answer: uvicorn's HTTP protocol, with its writes gathered.

uvicorn writes an answer's status line and headers, then its body, each with
its own ``transport.write``: two system calls, two packets, and two wake-ups
of the client.  On a busy server those calls were a third of a book answer's
CPU.  Here the protocol's transport keeps what it is given and writes it in
one call: when the answer is complete (before anything else the connection
does, such as the client's end of stream closing it), when 64 KiB are kept
(so that flow control still sees a long answer), or at the event loop's next
turn (a partial answer: a 100 Continue, a stream).  Closing writes what is
kept first; everything else goes to the real transport.
"""

from __future__ import annotations

import asyncio
from typing import cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

KEPT_AT_MOST = 1 << 16  # bytes kept before they are written anyway: uvicorn's high-water mark


class GatheringTransport:
    """A transport whose writes within one turn of the loop leave as one."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._kept: list[bytes] = []
        self._size = 0  # bytes kept

    def write(self, data: bytes) -> None:
        if not self._kept:
            self._loop.call_soon(self.flush)
        self._kept.append(bytes(data))  # a copy, as the real transport would keep
        self._size += len(data)
        if self._size >= KEPT_AT_MOST:
            self.flush()

    def writelines(self, lines) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        """Write what is kept, in one call (nothing once the connection is closing)."""
        if self._kept:
            data = b"".join(self._kept)
            self._kept.clear()
            self._size = 0
            if not self._transport.is_closing():
                self._transport.write(data)

    def is_closing(self) -> bool:  # (asked on every read: faster than through __getattr__)
        return self._transport.is_closing()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + self._size

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._kept.clear()
        self._size = 0
        self._transport.abort()

    def __getattr__(self, name: str):
        return getattr(self._transport, name)


class GatheringHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol over a ``GatheringTransport``."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # A transport by duck typing: what it does not define goes to the real one.
        super().connection_made(cast(asyncio.Transport, GatheringTransport(transport, self.loop)))

    def on_response_complete(self) -> None:
        # The answer is whole: out now, before the loop handles what came after it (a
        # client's end of stream closes the transport, and what is kept would be lost).
        cast(GatheringTransport, self.transport).flush()
        super().on_response_complete()

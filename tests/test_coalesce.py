"""``bookgen.web.coalesce``: an answer's writes leave in one call, in order, and closing
sends what was kept; and a real ``c4book serve`` answers over keep-alive connections."""

import asyncio
import json
import re
import socket
from collections.abc import Iterator

import pytest
from conftest import PLY10, c4book_server

from bookgen import Book
from bookgen.web.coalesce import KEPT_AT_MOST, GatheringTransport


async def _pair():
    """A real asyncio transport on one end of a socket pair, and the other end."""
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
    return GatheringTransport(transport, loop), theirs


def _received(sock: socket.socket) -> bytes:
    try:
        return sock.recv(1 << 16)
    except BlockingIOError:
        return b"(nothing)"


def test_writes_in_one_turn_of_the_loop_leave_together():
    async def main():
        gathered, theirs = await _pair()
        gathered.write(b"HTTP/1.1 200 OK\r\n\r\n")
        gathered.writelines([b"{", b"}"])
        assert gathered.get_write_buffer_size() == 21
        assert _received(theirs) == b"(nothing)"  # kept until the loop's next turn
        await asyncio.sleep(0.05)
        assert _received(theirs) == b"HTTP/1.1 200 OK\r\n\r\n{}"
        assert gathered.get_write_buffer_size() == 0
        gathered.write(b"next")
        await asyncio.sleep(0.05)
        assert _received(theirs) == b"next"
        gathered.close()
        theirs.close()

    asyncio.run(main())


def test_a_long_answer_is_written_as_it_grows():
    async def main():
        gathered, theirs = await _pair()
        gathered.write(b"x" * (KEPT_AT_MOST - 1))
        assert gathered.get_write_buffer_size() == KEPT_AT_MOST - 1  # kept
        gathered.write(b"y")  # reaches the bound: written now, not at the loop's next turn
        assert gathered.get_write_buffer_size() < KEPT_AT_MOST
        await asyncio.sleep(0.05)
        got = b""
        while len(got) < KEPT_AT_MOST:
            got += theirs.recv(1 << 20)
        assert got == b"x" * (KEPT_AT_MOST - 1) + b"y"
        gathered.close()
        theirs.close()

    asyncio.run(main())


def test_closing_sends_what_was_kept_and_abort_drops_it():
    async def main():
        gathered, theirs = await _pair()
        gathered.write(b"last words")
        gathered.close()
        assert gathered.is_closing()  # the real transport's, through the wrapper
        await asyncio.sleep(0.05)
        assert _received(theirs) == b"last words"
        assert _received(theirs) == b""  # and then the end of the stream
        theirs.close()

        gathered, theirs = await _pair()
        gathered.write(b"never sent")
        gathered.abort()
        await asyncio.sleep(0.05)
        assert _received(theirs) == b""
        theirs.close()

    asyncio.run(main())


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """A real ``c4book serve`` of the ply-10 book on a free port: its port."""
    with c4book_server(PLY10) as address:
        yield int(address.rsplit(":", 1)[1].strip("/"))


def _exchange(sock: socket.socket, path: str) -> tuple[bytes, bytes]:
    """One request on a kept-alive connection: the answer's head and body."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(1 << 16)
    head, body = data.split(b"\r\n\r\n", 1)
    sized = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
    assert sized is not None, head
    length = int(sized.group(1))
    while len(body) < length:
        body += sock.recv(1 << 16)
    assert len(body) == length  # nothing of the next answer, nothing missing
    return head, body


def test_a_real_server_answers_one_request_after_another_on_a_connection(server):
    lines = ["", "4453", "44", "3", "4453", "7654321"]
    with (
        Book.open(str(PLY10)) as book,
        socket.create_connection(("127.0.0.1", server), timeout=30) as sock,
    ):
        for moves in lines:
            head, body = _exchange(sock, f"/api/position?moves={moves}")
            assert head.startswith(b"HTTP/1.1 200 ")
            answer = json.loads(body)
            entry = book.get(moves)
            assert (
                answer["moves"],
                answer["score"],
                answer["best_moves"],
                answer["move_scores"],
            ) == (moves, entry.score, list(entry.best_moves), list(entry.move_scores))
        head, body = _exchange(sock, "/solve?pos=4453")
        assert json.loads(body) == {"pos": "4453", "score": list(book.get("4453").move_scores)}
        head, body = _exchange(sock, "/api/position?moves=4444444")  # the app's 400, too
        assert head.startswith(b"HTTP/1.1 400 ") and b"column 4 is full" in body


def test_a_client_that_ends_its_stream_after_asking_still_gets_the_answer(server):
    # The client's end of stream closes the connection once the answer is sent: the
    # answer must leave before, not at the loop's next turn.
    with (
        Book.open(str(PLY10)) as book,
        socket.create_connection(("127.0.0.1", server), timeout=30) as sock,
    ):
        sock.sendall(b"GET /api/position?moves=4453 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(1 << 16):
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 200 ")
        assert json.loads(body)["move_scores"] == list(book.get("4453").move_scores)

"""``c4book serve``'s app through Starlette's test client: answers equal the Book's and the
Solver's, Pons' /solve format, every bad input a 400, 503 when the pool is full, the time cap."""

import json
import random
import re
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest
from conftest import SHIPPED, running
from starlette.testclient import TestClient

from bookgen.web import create_app
from solver import Position, Solver
from solver.errors import ArgumentError
from solver.position import random_position

# Past the book (ply 11), and slow to solve: 13 and 5 million nodes for every move's score,
# 5.6 and 4.5 s on a loaded 2-core machine.
HARD = "13577531135"
HARD_TOO = "17711771226"
PAST_BOOK = ["612134611346", "427134334771", "347463241525"]  # ply 12: quick to solve


@pytest.fixture(scope="module")
def book(ply10_book):
    """The book to ply 10: positions past it and at its last ply stay so as book.db grows."""
    return ply10_book


@pytest.fixture(scope="module")
def client(book):
    """A server with a generous cap, for answers that must be exact."""
    with TestClient(create_app(book, cap=20.0, workers=2)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def short(book):
    """A server with a cap far too short for HARD_TOO."""
    with TestClient(create_app(book, cap=0.1, workers=1)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def single(book):
    """A server with one worker and no waiting line."""
    app = create_app(book, cap=2.0, workers=1, waiting=0)
    with TestClient(app) as test_client:
        yield test_client, app.state.pool


@pytest.fixture(scope="module")
def solver():
    return Solver(table_log2=22)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"cap": 1e308}, "cap must be a number of seconds above 0 and at most 86400"),
        ({"cap": float("nan")}, "cap must be"),
        ({"cap": "1"}, "cap must be"),
        ({"workers": 10**6}, "workers must be a whole number from 1 to 32, got 1000000"),
        ({"workers": 0}, "workers must be"),
    ],
)
def test_an_app_asked_for_too_much_is_refused_before_it_starts(book, kwargs, words):
    """A cap of 1e308 s was accepted, then every /api/move answered 500; a million workers
    grew the server to 24 GB."""
    with pytest.raises(ArgumentError, match=words):
        create_app(book, **{"cap": 1.0, "workers": 1, **kwargs})


def mirror(moves: str) -> str:
    return "".join(str(8 - int(c)) for c in moves)


def book_lines(count: int, seed: int) -> list[str]:
    """Random unfinished lines of plies 0-9: book positions that hold every move's score."""
    rng = random.Random(seed)
    return [random_position(rng, rng.randint(0, 9)).moves for _ in range(count)]


def get(client, url: str, status: int = 200) -> dict:
    response = client.get(url)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    return response.json()


@pytest.mark.parametrize("moves", [*book_lines(12, seed=29), "", "4453", "444444"])
def test_a_book_position_is_the_book_entry_and_its_mirror_image_is_mirrored(client, book, moves):
    entry = book.get(moves)
    answer = get(client, f"/api/position?moves={moves}")
    assert (answer["moves"], answer["ply"], answer["score"]) == (moves, len(moves), entry.score)
    assert answer["best_moves"] == list(entry.best_moves)
    assert answer["move_scores"] == list(entry.move_scores)
    assert (answer["source"], answer["in_book"], answer["proven"]) == ("book", True, True)
    assert [c["source"] for c in answer["columns"]] == [
        None if s is None else "book" for s in entry.move_scores
    ]
    mirrored = get(client, f"/api/position?moves={mirror(moves)}")
    assert mirrored["move_scores"] == answer["move_scores"][::-1]
    assert mirrored["best_moves"] == sorted(8 - c for c in answer["best_moves"])


def test_the_info_and_every_position_say_the_board(client):
    assert get(client, "/api/info")["board"] == {"width": 7, "height": 6}
    for moves in ("", "4453", "612134611346", "1212121"):  # book, past it, a finished game
        answer = get(client, f"/api/position?moves={moves}")
        assert answer["board"] == {"width": 7, "height": 6}
        assert len(answer["columns"]) == len(answer["move_scores"]) == 7


def test_an_answer_changed_by_its_caller_changes_no_other(book):
    from bookgen.web.explore import from_book

    position = Position.from_moves("4453")
    first = from_book(book, position, book.get(position), 0.0).to_json()
    first["columns"][0]["score"] = 999
    again = from_book(book, position, book.get(position), 0.0).to_json()
    assert again["columns"][0]["score"] == book.get("4453").move_scores[0]


def test_the_rendered_answer_is_the_answer_as_json(book):
    import json

    from bookgen.web.explore import from_book

    for moves in ("", "4453", "44444", "1234567"):
        position = Position.from_moves(moves)
        explored = from_book(book, position, book.get(position), 0.0)
        assert json.loads(explored.rendered()) == explored.to_json()


def test_scores_are_put_in_words_for_the_player_to_move(client):
    answer = get(client, "/api/position?moves=4453")
    # -2: the second player wins with the 20th stone, 18 moves after its 2 on the board.
    assert (answer["score"], answer["score_words"]) == (-2, "loss in 18")
    assert answer["score_detail"] == "second player wins with the 20th stone"
    assert answer["to_move"] == "first"
    assert [c["words"] for c in answer["columns"]] == [
        "loss in 15",
        "loss in 15",
        "loss in 18",
        "loss in 17",
        "loss in 16",
        "loss in 18",
        "loss in 18",
    ]
    win_now = get(client, "/api/position?moves=112233")["columns"][3]  # a row of three: 4 wins
    assert (win_now["score"], win_now["words"], win_now["best"]) == (18, "win in 1", True)


def test_the_book_depth_of_each_move_is_what_the_book_holds_below_it(client, book):
    assert book.info.max_ply == 10
    columns = get(client, "/api/position?moves=4453")["columns"]
    assert [c["book_depth"] for c in columns] == [6] * 7  # plies 5 to 10
    columns = get(client, "/api/position?moves=112233")["columns"]
    assert columns[3]["book_depth"] is None  # a winning move: no position after it
    assert columns[0]["book_depth"] == 4
    ply10 = "4365632413"
    assert book.get(ply10).move_scores is None  # the book's last ply
    answer = get(client, f"/api/position?moves={ply10}")
    assert [c["book_depth"] for c in answer["columns"]] == [None] * 7


@pytest.mark.parametrize("moves", [*PAST_BOOK, "4365632413"])
def test_past_the_book_every_move_is_solved_as_the_solver_solves_it(client, book, solver, moves):
    expected = solver.analyze(Position.from_moves(moves))
    for asked, scores in ((moves, expected), (mirror(moves), expected[::-1])):
        answer = get(client, f"/api/position?moves={asked}")
        assert answer["move_scores"] == scores
        assert answer["score"] == max(s for s in scores if s is not None)
        assert answer["proven"] and answer["complete"] and answer["best_found"] is None
        assert answer["in_book"] == (book.get(asked) is not None)
        assert answer["source"] == ("book+solver" if answer["in_book"] else "solver")


def test_solve_answers_in_pons_format_with_100_for_a_full_column(client, book, solver):
    assert get(client, "/solve?pos=4453") == {
        "pos": "4453",
        "score": list(book.get("4453").move_scores),
    }
    assert get(client, "/solve?pos=444444") == {
        "pos": "444444",
        "score": [100 if s is None else s for s in book.get("444444").move_scores],
    }
    assert get(client, "/solve?pos=444444")["score"][3] == 100
    past = "444444333333"  # ply 12, columns 3 and 4 full
    expected = [100 if s is None else s for s in solver.analyze(Position.from_moves(past))]
    assert expected[2] == expected[3] == 100
    assert get(client, f"/solve?pos={past}") == {"pos": past, "score": expected}
    assert get(client, "/solve")["score"] == list(book.get("").move_scores)


def test_the_ai_plays_the_books_move_and_says_how(client, book):
    answer = get(client, "/api/move?moves=4453")
    assert answer["column"] in book.get("4453").best_moves
    assert (answer["source"], answer["proven"], answer["score"]) == ("book", True, -2)
    assert (answer["level"], answer["after"]) == ("perfect", "4453" + str(answer["column"]))
    weak = get(client, "/api/move?moves=4453&level=beginner&time=0.5")
    assert (weak["level"], weak["source"], weak["time"]) == ("beginner", "level", 0.5)
    assert (answer["how"], weak["how"]) == ("book", "looked 2 plies ahead")  # as the game says
    assert Position.from_moves("4453").can_play(weak["column"])


def test_a_finished_game_is_shown_but_has_no_move(client):
    answer = get(client, "/api/position?moves=1212121")
    assert (answer["game_over"], answer["winner"]) == (True, "first")
    assert all(c["full"] for c in answer["columns"])
    assert "over" in get(client, "/api/move?moves=1212121", 400)["error"]
    assert get(client, "/solve?pos=1212121", 400)["param"] == "pos"


# Each bad input: the URL | the parameter its error names | what the error says.
BAD = [
    tuple(part.strip() for part in line.split(" | "))
    for line in """
/api/position?moves=44x | moves | illegal move 'x' at position 3
/api/position?moves=4%EF%BC%94 | moves | columns are digits 1-7
/api/position?moves=4444444 | moves | column 4 is full at move 7
/api/position?moves=12121212 | moves | comes after the game was won
/api/position?moves=1234567123456712345671234567123456712345671234567 | moves | 49 moves: a game has at most 42
/api/move?moves=4444444 | moves | column 4 is full
/api/move?moves=1212121 | moves | the game is over
/api/move?moves=4453&level=grandmaster | level | unknown level 'grandmaster'
/api/move?moves=4453&level= | level | unknown level ''
/api/move?moves=4453&time=abc | time | 'abc' is not a number of seconds
/api/move?moves=4453&time=0 | time | '0'
/api/move?moves=4453&time=-1 | time | '-1'
/api/move?moves=4453&time=nan | time | 'nan'
/api/move?moves=4453&time=inf | time | 'inf'
/api/move?moves=4453&time=21 | time | at most this server's cap of 20 s
/solve?pos=8 | pos | illegal move '8'
/solve?pos=1212121 | pos | the game is over
""".strip().splitlines()
]  # 4%EF%BC%94: a full-width 4


@pytest.mark.parametrize("url, param, says", BAD)
def test_bad_input_is_a_400_naming_it_and_the_server_goes_on(client, url, param, says):
    answer = get(client, url, 400)
    assert answer["param"] == param
    assert answer["error"].startswith(f"{param}: ") and says in answer["error"]
    assert get(client, "/api/position?moves=4453")["score"] == -2


def test_unknown_pages_and_methods_are_json_errors_and_files_come_from_the_package(client):
    assert "no such page" in get(client, "/etc/passwd", 404)["error"]
    for url in (
        "/static/../../book.db",
        "/static/app.py",
        "/static/%2e%2e%2fapp.py",
        "/static/..%2F..%2Fpyproject.toml",
    ):
        assert client.get(url).status_code == 404
    assert client.post("/api/position?moves=4").status_code == 405
    page = client.get("/?pos=4453")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/style.css").status_code == 200


def test_no_cors_unless_an_origin_is_given(client, book):
    headers = {"Origin": "http://elsewhere.example"}
    assert "access-control-allow-origin" not in client.get("/solve?pos=4", headers=headers).headers
    with TestClient(create_app(book, cap=1.0, workers=1, cors="http://localhost:3000")) as open_to:
        allowed = open_to.get("/solve?pos=4", headers={"Origin": "http://localhost:3000"})
        assert allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
        other = open_to.get("/solve?pos=4", headers=headers)
        assert "access-control-allow-origin" not in other.headers


def test_past_the_book_the_cap_holds_and_the_answer_says_it_is_not_proven(short):
    started = time.perf_counter()
    answer = get(short, f"/api/position?moves={HARD_TOO}")
    took = time.perf_counter() - started
    # Seconds of search in 0.1 s: some moves unsolved, and the player's move not proven.
    assert (answer["proven"], answer["complete"], answer["score"]) == (False, False, None)
    assert None in answer["move_scores"] and not answer["in_book"]
    found = answer["best_found"]
    assert Position.from_moves(HARD_TOO).can_play(found["column"]) and not found["proven"]
    assert answer["best_moves"] == [found["column"]]
    assert answer["seconds"] < 0.1 + 0.25 and took < 0.1 + 1.0  # (a loaded machine: slack)
    pons = get(short, f"/solve?pos={HARD_TOO}")
    assert pons["proven"] is False and None in pons["score"]
    move = get(short, f"/api/move?moves={HARD_TOO}&time=0.05")
    assert move["time"] == 0.05 and move["seconds"] < 0.05 + 0.25
    assert Position.from_moves(HARD_TOO).can_play(move["column"])


def test_at_the_books_last_ply_the_score_is_the_books_even_when_the_cap_runs_out(short, book):
    ply10 = "4367467525"  # its moves take seconds to solve
    entry = book.get(ply10)
    answer = get(short, f"/api/position?moves={ply10}")
    assert (answer["proven"], answer["complete"], answer["in_book"]) == (True, False, True)
    assert (answer["score"], answer["best_moves"]) == (entry.score, list(entry.best_moves))
    assert answer["best_found"] is None and None in answer["move_scores"]
    for col in entry.best_moves:  # a best move scores the position's score: no search
        assert answer["columns"][col - 1]["score"] == entry.score


def test_a_full_pool_answers_503_at_once_while_the_book_still_answers(single):
    client, pool = single
    slow = {}
    thread = threading.Thread(
        target=lambda: slow.update(answer=client.get(f"/api/position?moves={HARD}"))
    )
    thread.start()
    try:
        deadline = time.monotonic() + 5
        while pool.busy < 1 and time.monotonic() < deadline:
            time.sleep(0.002)
        assert pool.busy == 1
        started = time.perf_counter()
        full = client.get(f"/api/position?moves={PAST_BOOK[0]}")
        assert full.status_code == 503 and time.perf_counter() - started < 0.25
        assert "busy" in full.json()["error"] and full.headers["retry-after"] == "1"
        assert client.get(f"/api/move?moves={HARD}").status_code == 503
        assert get(client, "/api/position?moves=4453")["source"] == "book"  # no search needed
    finally:
        thread.join(10)
    assert slow["answer"].status_code == 200 and pool.busy == 0
    assert get(client, f"/api/position?moves={PAST_BOOK[2]}")["proven"] is True


# -- a book of another board -------------------------------------------------------------


@pytest.fixture(scope="module")
def six(six_by_five):
    """A server of the 6x5 book (every position to ply 6), and the book."""
    from bookgen import Book

    with (
        Book.open(six_by_five) as opened,
        TestClient(create_app(opened, cap=5.0, workers=1)) as test_client,
    ):
        yield test_client, opened


def test_a_book_of_another_board_answers_on_its_board(six):
    client, book = six
    assert get(client, "/api/info")["board"] == {"width": 6, "height": 5}
    answer = get(client, "/api/position?moves=34")
    assert answer["board"] == {"width": 6, "height": 5}
    assert [c["column"] for c in answer["columns"]] == [1, 2, 3, 4, 5, 6]
    assert answer["move_scores"] == list(book.get("34").move_scores)
    assert (answer["source"], answer["score"]) == ("book", book.get("34").score)
    assert answer["columns"][0]["detail"] == "second player wins with the 15th stone"
    past = get(client, "/api/position?moves=1234561")  # ply 7, past the book: solved
    assert past["move_scores"] == Solver(board="6x5", table_log2=20).analyze(
        Position.from_moves("1234561", board="6x5")
    )
    assert past["source"] == "solver" and past["proven"] and len(past["columns"]) == 6
    over = get(client, "/api/position?moves=1212121")
    assert over["game_over"] and over["board"] == {"width": 6, "height": 5}
    assert len(over["columns"]) == 6
    move = get(client, "/api/move?moves=34")
    assert move["column"] in book.get("34").best_moves and move["source"] == "book"


@pytest.mark.parametrize(
    "url, says",
    [
        ("/api/position?moves=347", "illegal move '7' at position 3"),
        ("/api/position?moves=" + "1" * 31, "31 moves: a game has at most 30"),
        ("/api/move?moves=7", "illegal move '7' at position 1"),
    ],
)
def test_a_column_or_a_length_beyond_the_books_board_is_a_400(six, url, says):
    client, _ = six
    answer = get(client, url, 400)
    assert answer["param"] == "moves"
    assert answer["error"].startswith("moves: ") and says in answer["error"]


@pytest.mark.parametrize("url", ["/solve?pos=34", "/solve"])
def test_pons_solve_refuses_a_book_of_another_board(six, url):
    client, _ = six
    answer = get(client, url, 400)
    assert answer["param"] == "pos"
    assert "Pons' /solve answers 7x6 positions" in answer["error"] and "6x5" in answer["error"]


# -- no book: 7x6, and a board past 64 bits (issue 52) -----------------------------------

# Late 8x8 positions, quick to solve: every move's score differs, and two full columns.
LATE_8X8 = "32528887428177185426111174714884"
FULL_8X8 = "7722722731877186526226166314626331377818"


def test_with_no_book_every_position_is_searched(solver):
    from bookgen.book.read.nobook import NoBook

    with TestClient(create_app(NoBook(), cap=20.0, workers=1)) as client:
        info = get(client, "/api/info")
        assert info["book"] is None and info["board"] == {"width": 7, "height": 6}
        answer = get(client, f"/api/position?moves={PAST_BOOK[0]}")
        assert answer["move_scores"] == solver.analyze(PAST_BOOK[0])
        assert (answer["source"], answer["in_book"], answer["proven"]) == ("solver", False, True)
        assert {c["book_depth"] for c in answer["columns"]} == {None}
        pons = get(client, f"/solve?pos={PAST_BOOK[0]}")  # Pons' /solve: 7x6, searched
        assert pons["score"] == answer["move_scores"] and "proven" not in pons


@pytest.fixture(scope="module")
def wide():
    """A real ``c4book serve --no-book --board 8x8``: its address."""
    from conftest import c4book_server

    options = ("--no-book", "--board", "8x8", "--workers", "1", "--time", "20")
    with c4book_server(None, *options) as address:
        yield address


def fetch(url: str) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_a_board_past_64_bits_is_served_with_no_book(wide):
    status, info = fetch(wide + "api/info")
    assert status == 200 and info["book"] is None
    assert info["board"] == {"width": 8, "height": 8}
    assert set(info["colours"]) == {str(s) for s in range(-32, 33)}  # 8x8's scores
    board8 = Solver(board="8x8", table_log2=20)
    for moves in (LATE_8X8, FULL_8X8):
        status, answer = fetch(wide + f"api/position?moves={moves}")
        exact = board8.analyze(Position.from_moves(moves, board="8x8"))
        assert status == 200 and answer["move_scores"] == exact
        assert answer["board"] == {"width": 8, "height": 8} and len(answer["columns"]) == 8
        assert (answer["source"], answer["proven"], answer["complete"]) == ("solver", True, True)
        best = max(s for s in exact if s is not None)
        assert answer["score"] == best
        assert answer["best_moves"] == [c for c, s in enumerate(exact, 1) if s == best]
    assert [c["full"] for c in answer["columns"]] == [s is None for s in exact]
    status, move = fetch(wide + f"api/move?moves={LATE_8X8}")
    assert status == 200 and move["column"] in (3, 5, 7)  # the late position's best moves
    assert (move["source"], move["proven"], move["score"]) == ("search", True, 3)
    status, move = fetch(wide + "api/move?moves=45&time=0.5")  # the anytime search, no book
    assert status == 200 and move["after"] == f"45{move['column']}"


@pytest.mark.parametrize(
    "query, param, says",
    [
        ("api/position?moves=49", "moves", "illegal move '9' at position 2 of '49'"),
        ("api/position?moves=" + "1" * 65, "moves", "65 moves: a game has at most 64"),
        ("api/move?moves=4x", "moves", "'4x'"),
        ("solve?pos=4", "pos", "Pons' /solve answers 7x6 positions, and this server plays 8x8"),
    ],
)
def test_bad_input_on_a_board_past_64_bits_is_a_400_naming_it(wide, query, param, says):
    status, answer = fetch(wide + query)
    assert status == 400 and answer["param"] == param
    assert says in answer["error"], answer["error"]


# -- a real server against clients that send too much or too slowly (issue 48) ---------

IDLE = 1.0  # the servers' --idle-timeout here: seconds a connection may wait on its client
FILES = 256  # the crowded server's ulimit -n: it lets half of them wait on their clients


@contextmanager
def real_server(*options: str, files: int | None = None):
    """A real ``c4book serve`` of the ply-10 book with one worker: (pid, port).  ``files``:
    its ``ulimit -n``."""
    import resource

    from conftest import PLY10, c4book_server_process

    def limit() -> None:  # in the server's process, before it starts
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    with c4book_server_process(PLY10, "--workers", "1", *options, preexec_fn=limit) as (
        process,
        address,
    ):
        yield process.pid, int(address.rsplit(":", 1)[1].strip("/"))


@pytest.fixture(scope="module")
def real():
    """A server that waits ``IDLE`` seconds on a client."""
    with real_server("--idle-timeout", f"{IDLE:g}") as server:
        yield server


def rss_mb(pid: int) -> float:
    """The process's resident memory, in MB (``/proc``)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def settled_rss(pid: int, within: float = 20.0) -> float:
    """The resident memory once it stops growing (the workers' tables fill in after the
    start): two readings 0.5 s apart within 2 MB of each other."""
    last, deadline = rss_mb(pid), time.monotonic() + within
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = rss_mb(pid)
        if abs(now - last) < 2:
            return now
        last = now
    raise AssertionError(f"the server's memory did not settle within {within} s")


def read_answer(reader) -> tuple[int, dict, bytes]:
    """One answer off ``reader`` (a socket's ``makefile("rb")``): (status, headers, body)."""
    status = reader.readline()
    assert status.startswith(b"HTTP/1.1 "), f"no answer: {status[:200]!r}"
    headers = {}
    while (line := reader.readline()) not in (b"\r\n", b""):
        name, value = line.decode("latin-1").rstrip("\r\n").split(": ", 1)
        headers[name.lower()] = value
    body = reader.read(int(headers["content-length"]))
    return int(status.split()[1]), headers, body


def ask(port: int, head: bytes, timeout: float = 10.0) -> tuple[int, dict, bytes]:
    """Send ``head`` on a new connection; its answer."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head)
        return read_answer(sock.makefile("rb"))


def request(path: str, *headers: str) -> bytes:
    return "\r\n".join([f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *headers, "", ""]).encode()


def json_error(answer: tuple[int, dict, bytes], status: int, param: str | None) -> str:
    """The error of a JSON answer of ``status`` naming ``param``; its text."""
    import json

    got, headers, body = answer
    assert (got, headers["content-type"]) == (status, "application/json"), answer
    error = json.loads(body)
    assert error.get("param") == param, error
    return error["error"]


def test_a_huge_header_is_cut_off_at_once_and_the_server_goes_on_answering(real) -> None:
    """Issue 48: one client's 300 MB header stalled every other request for 12-28 s and
    grew the server by 0.7 GB; four stalled them for 33 s."""
    import socket

    pid, port = real
    before = settled_rss(pid)
    sent: dict[int, int] = {}
    answers: dict[int, tuple] = {}
    peak = [before]
    waits: list[float] = []
    done = threading.Event()

    def attack(number: int) -> None:
        megabyte = b"a" * (1 << 20)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /api/position?moves=4453 HTTP/1.1\r\nHost: x\r\nX-Big: ")
            sent[number] = 0
            try:
                for _ in range(64):  # 64 MB, if nothing stops it
                    sock.sendall(megabyte)
                    sent[number] += 1
            except OSError:
                pass  # cut off: the answer is waiting to be read
            answers[number] = read_answer(sock.makefile("rb"))

    def probe() -> None:  # another client's book request, over and over, and the memory
        while not done.is_set():
            started = time.perf_counter()
            ask(port, request("/api/position?moves=4453", "Connection: close"))
            waits.append(time.perf_counter() - started)
            peak[0] = max(peak[0], rss_mb(pid))
            time.sleep(0.01)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    attackers = [threading.Thread(target=attack, args=(n,), daemon=True) for n in range(4)]
    started = time.perf_counter()
    try:
        for thread in attackers:
            thread.start()
        for thread in attackers:
            thread.join(30)
        took = time.perf_counter() - started
        time.sleep(0.3)  # the probe goes on a moment after
    finally:
        done.set()
        prober.join(30)
    assert took < 5, f"the attackers took {took:.1f} s"  # (unguarded: minutes)
    for number in range(4):
        assert sent[number] < 64, sent  # cut off (the socket buffers take a few MB)
        says = json_error(answers[number], 431, "headers")
        assert "over 32,768 bytes" in says
    assert len(waits) >= 5 and max(waits) < 1.0, waits  # (unguarded: 12-28 s)
    assert peak[0] - before < 64, (before, peak[0])  # MB (unguarded: +700)


def test_clients_that_do_not_finish_a_request_are_dropped_after_the_idle_limit(real) -> None:
    """Issue 48: 1,100 half-open connections were held for as long as they stayed (40 s
    measured): one that sends nothing, part of a head, a byte now and then (slowloris), or
    a body, or nothing after an answer, is closed ``--idle-timeout`` after it started."""
    import socket

    _, port = real
    head = request("/api/position?moves=4453")
    kinds = {
        "nothing": b"",
        "half a head": head[:30],
        "a byte now and then": head[:1],
        "a body, slowly": head.replace(b"\r\n\r\n", b"\r\nContent-Length: 100\r\n\r\n") + b"x",
        "nothing after an answer": head,
    }
    sockets = {kind: socket.create_connection(("127.0.0.1", port), timeout=10) for kind in kinds}
    opened = time.monotonic()
    ended: dict[str, tuple[float, bytes]] = {}
    try:
        for kind, data in kinds.items():
            sockets[kind].sendall(data)
        for kind in ("nothing after an answer", "a body, slowly"):  # (the app reads no body)
            assert read_answer(sockets[kind].makefile("rb"))[0] == 200
        for sock in sockets.values():
            sock.setblocking(False)
        trickled = 1
        while len(ended) < len(kinds) and time.monotonic() - opened < IDLE + 5:
            time.sleep(0.05)
            for kind, sock in sockets.items():
                if kind in ended:
                    continue
                try:
                    data = sock.recv(1 << 16)
                except BlockingIOError:
                    if kind == "a byte now and then" and trickled < len(head) - 1:
                        sock.send(head[trickled : trickled + 1])  # every 50 ms: never idle
                        trickled += 1
                    continue
                except ConnectionResetError:
                    data = b"(reset)"
                ended[kind] = (time.monotonic() - opened, data)
        # Meanwhile a client that asks is answered at once.
        assert ask(port, request("/api/position?moves=4453", "Connection: close"))[0] == 200
    finally:
        for sock in sockets.values():
            sock.close()
    assert set(ended) == set(kinds), f"still open after {IDLE + 5} s: {set(kinds) - set(ended)}"
    for kind, (after, _) in ended.items():
        assert IDLE * 0.9 < after < IDLE + 1.5, (kind, after)  # (a loaded machine: slack)
    for kind in ("half a head", "a byte now and then"):  # a head begun: told why
        answer = ended[kind][1]
        assert answer.startswith(b"HTTP/1.1 408 ") and b"application/json" in answer, answer
        assert b"did not arrive whole within 1 s" in answer
    for kind in ("nothing", "nothing after an answer", "a body, slowly"):
        assert ended[kind][1] == b"", (kind, ended[kind])  # closed, as keep-alive closes


def test_a_client_that_reads_none_of_its_answers_is_dropped_after_the_idle_limit(real):
    """One that asked for 500 answers and read none held the connection, and a clean stop
    of the server, for ever (its answers' task waited to write)."""
    import os
    import socket

    pid, port = real

    def files() -> int:
        return len(os.listdir(f"/proc/{pid}/fd"))

    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # (before it connects)
        sock.settimeout(10)
        sock.connect(("127.0.0.1", port))
        sock.sendall(request("/api/info"))
        assert read_answer(sock.makefile("rb"))[0] == 200  # connected: one of these files
        held = files()
        sock.sendall(request("/static/app.js") * 500)  # 8 MB of answers, none read
        opened = time.monotonic()
        while files() >= held and time.monotonic() - opened < IDLE + 5:
            time.sleep(0.05)
        took = time.monotonic() - opened
        assert files() < held, "the server still holds the connection"
    assert IDLE * 0.9 < took < IDLE + 1.5, took


def test_an_oversized_url_or_head_is_a_json_error_naming_it(real):
    _, port = real
    long_url = f"/api/position?moves={'4' * 100_000}"
    says = json_error(ask(port, request(long_url)), 414, "url")
    assert says.startswith("url: ") and "may take 32,768 bytes" in says
    # Under the limit the app judges it, as always: a 400 naming the parameter.
    says = json_error(ask(port, request(f"/api/position?moves={'4' * 20_000}")), 400, "moves")
    assert "20000 moves: a game has at most 42" in says
    cookies = [f"Cookie: c{n}={'v' * 1000}" for n in range(40)]
    says = json_error(ask(port, request("/api/position?moves=4453", *cookies)), 431, "headers")
    assert says.startswith("headers: ") and "over 32,768 bytes" in says
    says = json_error(ask(port, b"GET /\x01 HTTP/1.1\r\n\r\n"), 400, None)  # no HTTP at all
    assert "not a request this server can read" in says
    # A head just under the limit is answered, and so is every request of a long pipeline:
    # the limit is of each head, not of what one read brings.
    status, _, body = ask(port, request("/api/position?moves=4453", *cookies[:30]))
    assert status == 200 and b'"score":-2' in body
    pipeline = request("/api/position?moves=44") * 600  # 40 KB in one send
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(pipeline)
        reader = sock.makefile("rb")
        assert [read_answer(reader)[0] for _ in range(600)] == [200] * 600


def test_the_idle_limit_is_checked_and_the_help_names_the_servers_limits(capsys):
    from bookgen.cli import main
    from bookgen.web.server import HEAD_BYTES, IDLE_SECONDS, serve

    with pytest.raises(ArgumentError, match="idle must be a number of seconds above 0"):
        serve("unused.db", idle=0)
    with pytest.raises(SystemExit):
        main(["serve", "--idle-timeout", "-1"])
    assert "'-1' is not" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert f"(default: {IDLE_SECONDS:g})" in shown
    assert f"may take {HEAD_BYTES // 1024} KiB" in shown


def test_past_the_waiting_limit_the_longest_waiting_client_is_dropped_and_others_get_in() -> None:
    """Slow clients held every file descriptor: past ``ulimit -n`` every other client was
    refused until the idle limit.  Past its limit of waiting connections (half its files)
    the server drops the one waiting longest, so that a real client still gets in."""
    import socket

    from bookgen.web.server import WAITING_AT_MOST

    waiting = min(WAITING_AT_MOST, FILES // 2)
    dropped = FILES + 64 - waiting  # more slow clients than the server has files
    with real_server("--idle-timeout", "60", files=FILES) as (_, port):
        slow = []
        try:
            for _ in range(waiting + dropped):
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                sock.sendall(b"GET /api/position?moves=4453 HTTP/1.1\r\n")  # and no more
                slow.append(sock)
            started = time.perf_counter()
            status, _, body = ask(port, request("/api/position?moves=4453"))
            assert status == 200 and b'"score":-2' in body
            assert time.perf_counter() - started < 2  # not 60 s
            closed: list[int] = []
            deadline = time.monotonic() + 10
            while len(closed) < dropped and time.monotonic() < deadline:
                time.sleep(0.05)
                closed = [n for n, sock in enumerate(slow) if ended(sock)]
        finally:
            for sock in slow:
                sock.close()
    # The first ones to come, dropped at once (of 60 s); the last ones still waiting.
    assert dropped <= len(closed) <= dropped + 16 and max(closed) < dropped + 16, closed


def ended(sock) -> bool:
    """Whether the server closed ``sock`` (a socket that has sent and read nothing back)."""
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


# -- /api/review ----------------------------------------------------------------------


def test_a_review_is_reviews_answer_past_the_book_too(client, book):
    from bookgen import review

    for moves in ("12121342", "1212121", "4453", "", PAST_BOOK[0]):
        answer = get(client, f"/api/review?pos={moves}")
        assert answer == {**review(moves, book).to_json(), "complete": True}
    finished = get(client, "/api/review?pos=1212121")
    assert (finished["finished"], finished["winner"]) == (True, "first")
    assert [m["symbol"] for m in finished["played"]] == ["??", "", "", "?!", "", "??", ""]


@pytest.mark.parametrize(
    "moves, says",
    [
        ("4453x", "illegal move 'x' at position 5 of '4453x'"),
        ("4444444", "column 4 is full at move 7"),
        ("12121213", "comes after the game was won"),
        ("1" * 43, "43 moves: a game has at most 42"),
    ],
)
def test_a_bad_game_to_review_is_a_400_naming_it(client, moves, says):
    answer = get(client, f"/api/review?pos={moves}", 400)
    assert answer["param"] == "pos" and says in answer["error"]


def test_a_review_past_the_cap_keeps_the_moves_reviewed_in_time(short, client):
    game = HARD_TOO + "1"  # its 11th position's moves take seconds to solve
    started = time.perf_counter()
    answer = get(short, f"/api/review?pos={game}")
    took = time.perf_counter() - started
    assert answer["complete"] is False and 10 <= len(answer["played"]) < len(game)
    assert took < 5 * 0.1 + 2.0  # five caps (a loaded machine: slack)
    whole = get(client, f"/api/review?pos={game}")
    assert whole["complete"] and answer["played"] == whole["played"][: len(answer["played"])]
    reviewed = answer["summary"]["first"]["moves"] + answer["summary"]["second"]["moves"]
    assert reviewed == len(answer["played"])


def test_without_httptools_the_server_says_what_it_lacks_and_still_answers(tmp_path):
    """uvicorn's h11 parser has no deadline on a request's head: the server says so at start,
    naming the cure, and serves."""
    import select
    import urllib.request

    blocked = (
        "import sys; sys.modules['httptools'] = None; "  # as if it were not installed
        "from bookgen.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    errors = tmp_path / "stderr"
    with (
        open(errors, "w") as stream,
        running(
            [sys.executable, "-c", blocked, "serve", "--db", str(SHIPPED), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=stream,
        ) as process,
    ):
        assert process.stdout is not None  # (a PIPE)
        ready, _, _ = select.select([process.stdout], [], [], 60)
        line = process.stdout.readline() if ready else ""
        address = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert address, (line, errors.read_text())
        with urllib.request.urlopen(address.group(0) + "api/position?moves=4453") as answer:
            assert json.loads(answer.read())["score"] == -2
    assert errors.read_text().startswith(
        "c4book serve: httptools is not installed, so a request's head has no deadline"
    )

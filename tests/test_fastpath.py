"""The explorer's hot path: it answers the book's positions with the bytes the app's routes
send, and passes every other request on to them."""

import random

import orjson
import pytest
from starlette.testclient import TestClient

from bookgen.web import create_app
from bookgen.web.fastpath import BookFastPath
from solver.position import random_position

ROUTED = {"Origin": "http://localhost"}  # an Origin header: the hot path passes it on


class Counted:
    """The app behind the hot path, counting the requests that reach it."""

    def __init__(self, app):
        self.app, self.calls = app, 0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.calls += 1
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def served(ply10_book):
    app = create_app(ply10_book, cap=20.0, workers=1)  # "past the book" stays so
    with TestClient(app) as client:
        hot = app.middleware_stack.app  # behind Starlette's error handler, before the rest
        assert isinstance(hot, BookFastPath)
        hot.app = counted = Counted(hot.app)
        yield client, counted


def answer(client, url: str, headers=None) -> dict:
    response = client.get(url, headers=headers or {})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert int(response.headers["content-length"]) == len(response.content)
    found = orjson.loads(response.content)
    found.pop("seconds", None)  # how long it took: the one field that may differ
    return found


def lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [random_position(rng, rng.randint(0, 9)).moves for _ in range(count)]


@pytest.mark.parametrize("moves", [*lines(10, seed=3), "", "4453", "6543"])
def test_a_book_position_is_answered_as_the_route_answers_it(served, moves):
    client, counted = served
    for url in (f"/api/position?moves={moves}", f"/solve?pos={moves}"):
        before = counted.calls
        hot = answer(client, url)
        assert counted.calls == before, f"{url} reached the routes"
        routed = answer(client, url, ROUTED)
        assert counted.calls == before + 1
        assert hot == routed


@pytest.mark.parametrize(
    "url",
    [
        "/api/position?moves=4453&extra=1",  # another parameter
        "/api/position?moves=12345678",  # not a column
        "/api/position?moves=1111111",  # a full column: the app names it
        "/api/position?moves=1212121",  # the game is over
        "/api/position?moves=612134611346",  # past the book: searched
        "/solve?moves=4453",  # the wrong parameter's name
        "/api/info",
    ],
)
def test_anything_else_goes_on_to_the_routes(served, url):
    client, counted = served
    before = counted.calls
    response = client.get(url)
    assert counted.calls == before + 1
    assert response.headers["content-type"] == "application/json"


def test_the_page_is_not_the_hot_paths(served):
    client, counted = served
    before = counted.calls
    assert client.get("/").status_code == 200
    assert client.head("/api/position?moves=4453").status_code == 200
    assert counted.calls == before + 2


def test_a_book_of_another_board_is_answered_on_its_board_and_solve_left_to_the_routes(six_by_five):
    from bookgen import Book

    with Book.open(six_by_five) as book:
        app = create_app(book, cap=5.0, workers=1)
        with TestClient(app) as client:
            hot = app.middleware_stack.app
            hot.app = counted = Counted(hot.app)
            for moves in ("", "34", "16616"):
                url = f"/api/position?moves={moves}"
                before = counted.calls
                found = answer(client, url)
                assert counted.calls == before, f"{url} reached the routes"
                assert len(found["columns"]) == 6 and found == answer(client, url, ROUTED)
            before = counted.calls
            assert client.get("/solve?pos=34").status_code == 400  # Pons' /solve is 7x6
            assert client.get("/api/position?moves=37").status_code == 400
            assert counted.calls == before + 2

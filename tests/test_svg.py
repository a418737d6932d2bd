"""``solver.svg``: boards as SVG, as a notebook shows a ``Position`` or a ``BookEntry``."""

import xml.etree.ElementTree as ET

import pytest

from solver import Position
from solver.svg import FIRST, HOLE, SECOND, board_svg

NS = "{http://www.w3.org/2000/svg}"


def discs(svg: str) -> dict[str, int]:
    """The circles of each fill colour in a parsed SVG."""
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    found: dict[str, int] = {}
    for circle in root.iter(f"{NS}circle"):
        fill = circle.get("fill", "")
        found[fill] = found.get(fill, 0) + 1
    return found


def labels(svg: str) -> dict[int, str]:
    """Column -> the text under it, for the columns that have one."""
    root = ET.fromstring(svg)
    return {int(g.get("data-col", "")): "".join(g.itertext()) for g in root.iter(f"{NS}g")}


@pytest.mark.parametrize(
    "moves, board",
    [("", "7x6"), ("4453", "7x6"), ("44444433", "7x6"), ("1112223", "6x5"), ("3434", "4x4")],
)
def test_a_disc_for_each_stone(moves, board):
    position = Position.from_moves(moves, board)
    text = str(position)
    svg = board_svg(position)
    assert discs(svg) == {
        colour: n
        for colour, n in (
            (FIRST, text.count("x")),
            (SECOND, text.count("o")),
            (HOLE, text.count(".")),
        )
        if n
    }
    width, height = (int(side) for side in board.split("x"))
    root = ET.fromstring(svg)
    assert root.get("viewBox") == f"0 0 {width * 100} {height * 100 + 50}"
    assert labels(svg) == {}
    assert position._repr_svg_() == svg and position._repr_html_() == f"<div>{svg}</div>"


def test_the_last_stone_is_ringed():
    root = ET.fromstring(board_svg(Position.from_moves("4453")))
    ringed = [c for c in root.iter(f"{NS}circle") if c.get("stroke-width") == "6"]
    assert len(ringed) == 1 and ringed[0].get("fill") == SECOND
    assert (ringed[0].get("cx"), ringed[0].get("cy")) == ("250", "550")  # column 3, bottom


def test_a_book_entry_shows_each_move_score(ply10_book):
    entry = ply10_book.get("4453")
    svg = entry._repr_svg_()
    assert discs(svg)[FIRST] == 2 and discs(svg)[SECOND] == 2
    star = "\u2605"
    assert labels(svg) == {
        col: (star if col in entry.best_moves else "") + (f"{score:+d}" if score else "0")
        for col, score in enumerate(entry.move_scores, start=1)
    }
    assert entry._repr_html_() == f"<div>{svg}</div>"
    width = ET.fromstring(svg).get("width")
    assert ET.fromstring(board_svg(entry.position, size=200)).get("width") == "200" != width


def test_full_columns_and_the_last_ply(ply10_book):
    full = ply10_book.get("4444441")  # column 4 full
    assert 4 not in labels(full._repr_svg_()) and len(labels(full._repr_svg_())) == 6
    last = next(ply10_book.entries(ply=10))  # the book's deepest ply: no move scores
    assert last.move_scores is None
    assert labels(last._repr_svg_()) == dict.fromkeys(last.best_moves, "★")


def test_any_board(six_by_five):
    from bookgen import Book

    with Book.open(six_by_five) as book:
        entry = book.get("3434")
        svg = entry._repr_svg_()
        assert sum(discs(svg).values()) == 30 and len(labels(svg)) == 6

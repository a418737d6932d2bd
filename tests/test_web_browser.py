"""The explorer page in a real headless Chromium, against a real ``c4book serve``.

Needs Debian's ``chromium`` at /usr/bin/chromium (``apt-get install chromium``; .ci/run
installs it) and the ``playwright`` Python package, which drives that browser: no
browser download.
"""

import sys
from pathlib import Path

import pytest
from conftest import c4book_server, wait_until

from bookgen import Book
from bookgen.play.levels import LEVELS
from solver import Position, Solver
from solver.palette import score_colour
from solver.svg import FIRST, SECOND

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from bench_web import ARGS  # the browser's flags, as the benchmark launches it

CHROMIUM = Path("/usr/bin/chromium")
SHIPPED = Path(__file__).resolve().parent.parent / "book.db"
WAIT_MS = 20_000  # for one answer on a loaded machine; a book answer takes milliseconds

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium "
        "(apt-get install chromium chromium-driver)",
    ),
    pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level"),
]


@pytest.fixture(scope="module")
def server():
    """``c4book serve`` on a free port: its address."""
    with c4book_server(SHIPPED, "--time", "1", "--workers", "2") as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def book():
    with Book.open(str(SHIPPED)) as opened:
        yield opened


def shown(page, moves: str) -> None:
    """Wait until the page shows the position after ``moves`` with its scores."""
    page.wait_for_selector(f"body[data-ready='1'][data-pos='{moves}']", timeout=WAIT_MS)


def rgb(colour: str) -> str:
    """``#rrggbb`` as a browser's computed style writes it."""
    return "rgb({}, {}, {})".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))


def scores(page) -> list[int | None]:
    values = page.eval_on_selector_all(
        "#scores .score", "labels => labels.map(l => l.dataset.score)"
    )
    return [int(v) if v else None for v in values]


def stone(page, col: int, row: int) -> str:
    return page.get_attribute(f"#cell-{col}-{row}", "class") or ""


def test_the_page_walks_the_book_and_plays_the_ai(server, browser, book, tmp_path):
    page = browser.new_page(viewport={"width": 1000, "height": 760})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(server + "?pos=4453")
    shown(page, "4453")
    assert scores(page) == list(book.get("4453").move_scores)
    labels = page.inner_text("#scores")
    assert labels.count("loss in 18") == 3  # the three best moves, each marked
    assert page.locator("#scores .score.best").count() == 3
    assert page.locator("#moves tbody tr").count() == 7
    assert page.inner_text("#moves tbody tr:first-child").split()[:2] == ["\u2605", "3"]
    # The palette (solver/palette.py), the same as the notebook's: each score's colour.
    backgrounds = page.eval_on_selector_all(
        "#scores .score", "labels => labels.map(l => getComputedStyle(l).backgroundColor)"
    )
    assert backgrounds == [rgb(score_colour(s)) for s in book.get("4453").move_scores]

    page.click("#board rect.col[data-col='1']")
    shown(page, "44531")
    assert page.url.endswith("?pos=44531")
    assert stone(page, 1, 1) == "x last" and stone(page, 3, 1) == "o"
    assert scores(page) == list(book.get("44531").move_scores)

    page.click("#back")
    shown(page, "4453")
    assert page.url.endswith("?pos=4453") and stone(page, 1, 1) == ""
    assert scores(page) == list(book.get("4453").move_scores)
    page.keyboard.press("r")  # the line is kept: forward again (redo)
    shown(page, "44531")
    page.go_back()  # and the browser's own back button
    shown(page, "4453")

    page.click("#first")
    shown(page, "")
    page.click("#start")  # you first, level perfect
    page.click("#board rect.col[data-col='4']")
    # (a selector, not a script: the page's Content-Security-Policy forbids eval)
    page.wait_for_selector(
        "body[data-ready='1'][data-pos^='4']:not([data-pos='4'])", timeout=WAIT_MS
    )
    reply = page.evaluate("document.body.dataset.pos")[1]
    assert int(reply) in book.get("4").best_moves
    assert page.url.endswith(f"?pos=4{reply}")
    assert f"AI played {reply} (book" in page.inner_text("#game")
    assert "Your move" in page.inner_text("#game")
    page.screenshot(path=str(tmp_path / "explorer.png"), full_page=True)

    page.click("#start")  # stop, and a new game from the empty board with the AI first
    page.click("#first")
    shown(page, "")
    page.select_option("#first-move", "ai")
    # The level menu rates each level (levels.py, measured by scripts/rate_levels.py).
    menu = page.locator("#level option")
    assert menu.all_inner_texts() == [level.rated for level in LEVELS.values()]
    assert "beginner (Elo " in menu.all_inner_texts()[0]
    page.select_option("#level", "beginner")
    page.click("#start")
    page.wait_for_selector("body[data-ready='1']:not([data-pos=''])", timeout=WAIT_MS)
    assert len(page.evaluate("document.body.dataset.pos")) == 1
    assert (tmp_path / "explorer.png").stat().st_size > 10_000
    assert errors == []


def test_the_page_draws_and_plays_the_books_board(six_by_five, browser, tmp_path):
    """A 6x5 book: the page takes its size from /api/info, for the board, the scores, the
    URL and the keys."""
    with (
        Book.open(six_by_five) as six,
        c4book_server(six_by_five, "--time", "1", "--workers", "1") as address,
    ):
        page = browser.new_page(viewport={"width": 1000, "height": 760})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        page.goto(address + "?pos=34")
        shown(page, "34")
        assert page.get_attribute("#board", "viewBox") == "0 0 600 500"
        assert page.locator("#board circle").count() == 6 * 5
        assert page.locator("#cell-6-5").count() == 1 and page.locator("#cell-7-1").count() == 0
        assert page.locator("#board rect.col").count() == 6
        assert page.inner_text("#numbers").split() == ["1", "2", "3", "4", "5", "6"]
        assert page.locator("#scores .score").count() == 6
        assert scores(page) == list(six.get("34").move_scores)
        assert page.locator("#moves tbody tr").count() == 6
        assert stone(page, 3, 1) == "x" and stone(page, 4, 1) == "o last"
        assert "6x5 board" in page.inner_text("#summary")
        assert "16 minus the winner's stones" in page.inner_text("#explorer")

        page.click("#board rect.col[data-col='6']")
        shown(page, "346")
        assert page.url.endswith("?pos=346") and stone(page, 6, 1) == "x last"
        assert scores(page) == list(six.get("346").move_scores)
        page.keyboard.press("7")  # no column 7: nothing happens
        page.keyboard.press("1")
        shown(page, "3461")
        assert page.inner_text("#key-last") == "6"  # the keys' help line: 1-6
        assert page.url.endswith("?pos=3461") and stone(page, 1, 1) == "o last"
        page.mouse.move(0, 0)  # (no column lit up by the pointer in the picture)
        page.screenshot(path=str(tmp_path / "explorer-6x5.png"), full_page=True)

        page.goto(address + "?pos=347")  # a column of 7x6, not of this board
        shown(page, "")
        assert "digits 1-6, at most 30" in page.inner_text("#status")
        assert (tmp_path / "explorer-6x5.png").stat().st_size > 10_000
        assert errors == []


def solved(address: str, moves: str) -> bool:
    """Whether the server answers every move's score of ``moves`` (a complete answer is kept)."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{address}api/position?moves={moves}", timeout=60) as answer:
        return json.load(answer)["complete"]


def test_the_page_plays_a_board_past_64_bits_with_no_book(browser, tmp_path):
    """``serve --no-book --board 8x8`` (issue 52): the page draws 8x8 from /api/info, says
    there is no book, and shows and plays the solver's scores."""
    late = "32528887428177185426111174714884"  # quick to solve, every move's score known
    solver = Solver(board="8x8", table_log2=20)
    # Two workers: the line's review (five caps of search from the empty board) takes one,
    # and holds the server's stop as long: a short cap (the late positions take 50 ms).
    options = ("--no-book", "--board", "8x8", "--time", "1", "--workers", "2")
    with c4book_server(None, *options) as address:
        for moves in (late, late + "8"):  # solved, and kept, before the page asks: no race
            wait_until(lambda moves=moves: solved(address, moves), f"{moves} solved", 60)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        page.goto(address + f"?pos={late}")
        shown(page, late)
        assert page.get_attribute("#board", "viewBox") == "0 0 800 800"
        assert page.locator("#board circle").count() == 8 * 8
        assert page.locator("#board rect.col").count() == 8
        assert scores(page) == solver.analyze(Position.from_moves(late, board="8x8"))
        summary = page.inner_text("#summary")
        assert "No book, on an 8x8 board" in summary and "holds" not in summary
        assert "33 minus the winner's stones" in page.inner_text("#explorer")

        page.click("#board rect.col[data-col='8']")
        shown(page, late + "8")
        assert page.url.endswith(f"?pos={late}8") and stone(page, 8, 8) == "x last"
        after = solver.analyze(Position.from_moves(late + "8", board="8x8"))
        assert scores(page) == after
        page.screenshot(path=str(tmp_path / "explorer-8x8.png"), full_page=True)
        assert (tmp_path / "explorer-8x8.png").stat().st_size > 10_000
        assert errors == []


def test_a_notebook_draws_book_entries_as_svg(browser, book, tmp_path):
    """What a notebook shows of a ``Position`` and a ``BookEntry`` (their ``_repr_html_``):
    each board drawn, discs and scores where they belong; no server."""
    entry, position = book.get("4453"), Position.from_moves("44444", board="6x5")
    page = browser.new_page(viewport={"width": 800, "height": 700})
    page.set_content(
        f"<html><body><p>In [1]:</p>{entry._repr_html_()}"
        f"<p>In [2]:</p>{position._repr_html_()}</body></html>"
    )
    first, second = page.locator("svg").nth(0), page.locator("svg").nth(1)
    assert first.locator("circle").count() == 42 and second.locator("circle").count() == 30
    assert first.locator(f"circle[fill='{FIRST}']").count() == 2
    assert second.locator(f"circle[fill='{SECOND}']").count() == 2
    assert first.locator("g.score").count() == 7 and second.locator("g.score").count() == 0
    assert first.locator("g.score[data-col='3']").text_content().startswith("\u2605")
    box = first.bounding_box()
    assert (box["width"], box["height"]) == (7 * 44, pytest.approx(7 * 44 * 720 / 700, abs=1))
    page.screenshot(path=str(tmp_path / "notebook.png"), full_page=True)
    assert (tmp_path / "notebook.png").stat().st_size > 10_000


def test_the_line_shows_each_moves_mark_and_the_better_move(server, browser, book, tmp_path):
    from bookgen import review

    # x and o stack three each; x misses the win at once (7: 4, a mistake), o the block (8: 2).
    game = "12121342"
    expected = review(game, book).played
    page = browser.new_page(viewport={"width": 1000, "height": 760})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + f"?pos={game}")
    shown(page, game)
    page.wait_for_selector(f"body[data-reviewed='{game}']", timeout=WAIT_MS)
    buttons = page.eval_on_selector_all(
        "#line button",
        "all => all.map(b => [b.textContent, b.dataset.mark, b.getAttribute('aria-label')])",
    )
    # Each mark as a symbol beside the move and in words for a screen reader, not colour alone.
    assert buttons == [
        [
            f"{m.number}. {m.column}{m.symbol}",
            m.mark,
            f"move {m.number}, {m.column}: "
            + {"best": "best", "inaccuracy": "an inaccuracy"}.get(m.mark, f"a {m.mark}"),
        ]
        for m in expected
    ]
    assert [m.symbol for m in expected[-2:]] == ["?", "?"]
    assert page.inner_text("#review-move") == (
        "Move 8, yellow played 2: a mistake (?), a loss (-17). Better: 1, a draw (0)."
    )
    page.click("#line li:nth-child(7) button")  # the better move, on click
    shown(page, game[:7])
    assert page.inner_text("#review-move") == (
        "Move 7, red played 4: a mistake (?), a draw (0). Better: 1, a win (+18)."
    )
    summary = page.inner_text("#review-summary")
    first = review(game, book).first
    assert f"Red {first.accuracy:g}% of moves best" in summary
    page.click("#line li:nth-child(3) button")
    shown(page, game[:3])
    assert page.inner_text("#review-move").endswith(": best, a loss (-2).")
    page.screenshot(path=str(tmp_path / "review.png"), full_page=True)
    assert errors == []


def contrast(ink: str, paper: str) -> float:
    """WCAG's contrast ratio of two ``rgb(r, g, b)`` colours."""

    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in colour[colour.index("(") + 1 : -1].split(",")[:3]]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(ink), luminance(paper)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def buttons(page) -> list[dict]:
    """Each column's button above the board: its text, words for a screen reader, colours."""
    return page.eval_on_selector_all(
        "#scores .score",
        """all => all.map(b => ({text: b.innerText.split(/\\s+/).filter(Boolean),
            label: b.getAttribute('aria-label'), visible: getComputedStyle(b).visibility,
            ink: getComputedStyle(b).color, paper: getComputedStyle(b).backgroundColor,
            size: parseFloat(getComputedStyle(b.querySelector('b') || b).fontSize)}))""",
    )


def signed(score: int) -> str:
    return f"+{score}" if score > 0 else str(score)


def test_every_score_is_written_as_well_as_coloured(server, browser, book):
    """The columns' buttons, the table and a full column: each score in text, and the
    text readable on its colour (4.5:1, WCAG AA)."""
    page = browser.new_page(viewport={"width": 1000, "height": 760})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "?pos=4444443")  # column 4 full
    shown(page, "4444443")
    entry = book.get("4444443")
    for col, (label, score) in enumerate(zip(buttons(page), entry.move_scores, strict=True), 1):
        assert label["visible"] == "visible"
        if score is None:
            assert label["text"] == ["full"] and label["label"] == f"column {col}: full"
            continue
        assert label["text"][0] == signed(score)  # (the best's star is drawn by the CSS)
        assert len(label["text"]) >= 3  # "win in 9": the score in words too
        assert label["label"].startswith(f"column {col}: {signed(score)}, ")
        assert contrast(label["ink"], label["paper"]) >= 4.5, (col, label)
    assert page.get_attribute("#scores .score[data-col='4']", "aria-disabled") == "true"
    rows = page.eval_on_selector_all(
        "#moves tbody tr", "rows => rows.map(r => [r.dataset.col, r.cells[1].innerText.trim()])"
    )
    assert sorted(rows) == sorted(
        [str(col), signed(score)]
        for col, score in enumerate(entry.move_scores, 1)
        if score is not None
    )
    assert errors == []


def test_hints_keep_the_scores_on_the_board_in_a_game(server, browser, book):
    """Hints on: after every move of a game against the AI each column's score stays shown,
    larger than the old 0.95rem; the choice outlives a reload (localStorage). Undo takes
    back your move and the AI's reply."""
    page = browser.new_page(viewport={"width": 1000, "height": 760})
    errors, asked = [], []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: asked.append(request.url))
    page.goto(server)
    shown(page, "")
    assert page.get_attribute("#hints", "aria-pressed") == "false"
    page.click("#hints")
    assert page.get_attribute("#hints", "aria-pressed") == "true"
    page.click("#start")  # you first
    line = ""
    for col in "43":
        page.click(f"#board rect.col[data-col='{col}']")
        page.wait_for_selector(
            f"body[data-ready='1'][data-pos^='{line}{col}']:not([data-pos='{line}{col}'])",
            timeout=WAIT_MS,
        )
        line = page.evaluate("document.body.dataset.pos")
        assert len(line) % 2 == 0 and "Your move" in page.inner_text("#game")
        assert scores(page) == list(book.get(line).move_scores)
        for label, score in zip(buttons(page), book.get(line).move_scores, strict=True):
            assert label["visible"] == "visible" and signed(score) in "".join(label["text"])
            assert label["size"] >= 18  # 1.2rem: the old 0.95rem was 15.2 px
        assert page.is_visible("#moves tbody tr")  # the table too, with hints
        page.mouse.move(0, 0)  # not hover: still there with the pointer away
        assert all(label["visible"] == "visible" for label in buttons(page))
    assert "you" in page.inner_text("#turn").lower()

    page.keyboard.press("Backspace")  # undo: your move and the AI's reply
    shown(page, line[:-2])
    assert page.url.endswith(f"?pos={line[:-2]}")

    page.reload()  # the hints are remembered
    shown(page, line[:-2])
    assert page.get_attribute("#hints", "aria-pressed") == "true"
    page.click("#hints")  # off: a game hides the scores, the columns stay buttons
    page.click("#start")
    page.wait_for_selector("#scores .score.hidden", timeout=WAIT_MS)
    assert [label["text"] for label in buttons(page)] == [[str(c)] for c in range(1, 8)]
    assert not page.is_visible("#moves tbody tr")
    page.reload()
    shown(page, line[:-2])
    assert page.get_attribute("#hints", "aria-pressed") == "false"
    assert sum("/api/move" in url for url in asked) == 2  # the AI's two replies
    assert errors == []


def test_two_players_play_both_sides_with_no_ai(server, browser, book):
    """Two-player mode: the colours alternate, the scores are the side to move's, undo and
    redo walk the line, the URL holds line and mode, and the AI is never asked."""
    page = browser.new_page(viewport={"width": 1000, "height": 760})
    errors, asked = [], []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: asked.append(request.url))
    page.goto(server + "?pos=44")
    shown(page, "44")
    page.click("#two")
    assert page.get_attribute("#two", "aria-pressed") == "true"
    assert page.url.endswith("?pos=44&players=2")
    assert page.inner_text("#back").endswith("undo") and page.inner_text("#forward")[:4] == "redo"
    line = "44"
    for ply, col in enumerate("3352", start=2):
        mover = "red" if ply % 2 == 0 else "yellow"
        assert f"{mover} to move" in page.inner_text("#turn")
        page.click(f"#board rect.col[data-col='{col}']")
        line += col
        shown(page, line)
        row = line.count(col)
        assert stone(page, int(col), row) == ("x" if ply % 2 == 0 else "o") + " last"
        assert scores(page) == list(book.get(line).move_scores)  # the side to move's
        assert "/api/move" not in " ".join(asked)
    assert page.url.endswith(f"?pos={line}&players=2")
    assert "Your move" not in page.inner_text("#game")

    page.click("#back")  # undo, twice, and redo
    page.click("#back")
    shown(page, line[:-2])
    assert stone(page, 5, 1) == ""
    page.click("#forward")
    shown(page, line[:-1])
    assert stone(page, 5, 1) == "x last"
    page.click("#scores .score[data-col='6']")  # a new move: a new line
    shown(page, line[:-1] + "6")
    assert page.url.endswith(f"?pos={line[:-1]}6&players=2")

    shared = page.url  # the link opens the same line, in the same mode
    other = browser.new_page(viewport={"width": 1000, "height": 760})
    other.on("request", lambda request: asked.append(request.url))
    other.goto(shared)
    shown(other, line[:-1] + "6")
    assert other.get_attribute("#two", "aria-pressed") == "true"
    other.keyboard.press("1")
    shown(other, line[:-1] + "61")
    assert stone(other, 1, 1) == "x last"  # red again, after yellow's 6

    page.click("#start")  # a game against the AI leaves two-player mode
    assert page.get_attribute("#two", "aria-pressed") == "false"
    assert "players" not in page.url
    assert not any("/api/move" in url for url in asked)
    assert errors == []


def test_the_keys_play_the_board(server, browser, book):
    """1-7 play a column; the arrows move the column cursor (the focused, visibly outlined
    column button, lit on the board) and Enter or Space plays it; Backspace and u undo, r
    redoes; Home and End go to the line's ends. The keys are on the page."""
    page = browser.new_page(viewport={"width": 1000, "height": 760})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server)
    shown(page, "")
    keys = page.inner_text("#keys")
    assert "1\u20137 play that column" in keys and "Backspace or U undoes" in keys
    page.keyboard.press("3")
    shown(page, "3")
    assert stone(page, 3, 1) == "x last"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    focused = page.eval_on_selector(
        "#scores .score[data-col='5']",
        """b => [b === document.activeElement, b.matches(':focus-visible'),
                 getComputedStyle(b).outlineStyle, parseFloat(getComputedStyle(b).outlineWidth),
                 b.tabIndex]""",
    )
    assert focused == [True, True, "solid", 3, 0]
    assert "cursor" in (page.get_attribute("#board rect.col[data-col='5']", "class") or "")
    page.keyboard.press("Enter")
    shown(page, "35")
    assert stone(page, 5, 1) == "o last"
    for _ in range(6):  # the cursor stops at the board's edge
        page.keyboard.press("ArrowLeft")
    page.keyboard.press(" ")
    shown(page, "351")
    assert stone(page, 1, 1) == "x last"
    page.click("#status")  # the focus away from the columns: Enter plays the cursor's
    page.keyboard.press("Enter")
    shown(page, "3511")
    page.keyboard.press("Backspace")
    shown(page, "351")
    page.keyboard.press("u")
    shown(page, "35")
    page.keyboard.press("r")
    shown(page, "351")
    page.keyboard.press("Home")
    shown(page, "")
    page.keyboard.press("End")
    shown(page, "3511")
    page.focus("#level")  # in a menu the keys are the menu's
    page.keyboard.press("4")
    page.wait_for_timeout(300)
    assert page.evaluate("document.body.dataset.pos") == "3511"
    assert errors == []

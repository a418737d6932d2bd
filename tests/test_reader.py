"""``Book``: the read-only reader, against the real small book built by the Ray driver.

Every lookup test runs twice: on the book as built (each ply sealed into one
segment, read into memory at open) and on the same book with every ply kept
as rows (as an upgrade from version 2 leaves it before packing; looked up
through SQL).  Expected scores come from ``Solver`` directly, never from the
book itself.
"""

import os
import random
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    SMALL_PLY,
    SMALL_ROOT,
    WIDE_PLY,
    WIDE_ROOT,
    book_keys,
    damage_middle_page,
    reseal_wide,
    run_sql,
)

from bookgen import (
    Book,
    BookEntry,
    BookError,
    BookInfo,
    BookNotFoundError,
    CorruptBookError,
    IncompatibleBookError,
    NotABookError,
    SchemaMismatchError,
)
from bookgen.book.format.names import SCHEMA_VERSION
from bookgen.book.read import reader
from bookgen.book.read.reader import BookClosedError
from solver import Board, BoardSizeError, C4Error, IllegalMoveError, Position, Solver
from solver.errors import ArgumentTypeError
from solver.packed import moves_of_key, moves_of_keys

COUNTS = {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}


def stored_moves(path: str, plies=COUNTS) -> list[str]:
    """Stored positions at ``plies`` as move strings (from the root where it can), in key
    order."""
    keys = sorted(k for ply in plies for k in book_keys(path, ply))
    return moves_of_keys(np.array(keys, dtype=np.uint64), SMALL_ROOT)


def mirrored(moves: str) -> str:
    return "".join(str(8 - int(c)) for c in moves)


def expected_entry(solver: Solver, moves: str, frontier: bool) -> tuple:
    """(score, wdl, best_moves, move_scores) of ``moves`` by direct search."""
    position = Position.from_moves(moves)
    scores = solver.analyze(position)
    score = solver.solve(position)
    assert score == max(s for s in scores if s is not None)
    best = tuple(c for c, s in enumerate(scores, 1) if s == score)
    return score, (score > 0) - (score < 0), best, None if frontier else tuple(scores)


def snapshot(path: str) -> tuple:
    stat = os.stat(path)
    return (
        Path(path).read_bytes(),
        stat.st_mtime_ns,
        stat.st_size,
        sorted(os.listdir(os.path.dirname(path))),
    )


@pytest.fixture(scope="module", params=["sealed", "sealed, Python walk", "rows"])
def book(small_book_path, request):
    """The small book, sealed and as rows: every lookup test runs on both.  The tests'
    process has numba loaded, so the sealed book walks moves with compiled kernels; the
    Python walk is the one a process without numba takes."""
    path = (
        request.getfixturevalue("small_rows_book_path")
        if request.param == "rows"
        else small_book_path
    )
    with Book.open(path) as opened, pytest.MonkeyPatch.context() as patch:
        assert reader._kernels() is not None
        if request.param == "sealed, Python walk":
            patch.setattr(reader, "_kernels", lambda: None)
        yield opened


# -- lookups -------------------------------------------------------------------


def test_open_is_a_context_manager_that_closes(small_book_path):
    with Book.open(small_book_path) as opened:
        assert isinstance(opened, Book)
        assert opened.get(SMALL_ROOT) is not None
    for lookup in (
        lambda: opened.get(SMALL_ROOT),
        lambda: opened.get_many([SMALL_ROOT] * 100),
        lambda: SMALL_ROOT in opened,
        lambda: len(opened),
    ):  # closed on leaving
        with pytest.raises(BookClosedError, match=f"the book {small_book_path!r} is closed"):
            lookup()
    assert issubclass(BookClosedError, BookError) and issubclass(BookClosedError, ValueError)


def test_root_entry_has_known_scores(book, solver):
    entry = book.get(SMALL_ROOT)
    assert entry == BookEntry(
        moves="44444433",
        ply=8,
        score=16,
        wdl=1,
        best_moves=(2, 5),
        move_scores=(0, 16, 2, None, 16, 0, 2),
    )
    assert (entry.score, entry.wdl, entry.best_moves, entry.move_scores) == expected_entry(
        solver, SMALL_ROOT, frontier=False
    )


@pytest.mark.parametrize(
    "moves",
    ["4444443" + tail for tail in ("31", "32", "33", "35", "36", "37", "311", "357")],
)
def test_derived_entries_equal_a_direct_solve(book, solver, moves):
    entry = book.get(moves)
    assert entry is not None and entry.moves == moves and entry.ply == len(moves)
    assert (entry.score, entry.wdl, entry.best_moves, entry.move_scores) == expected_entry(
        solver, moves, frontier=False
    )
    assert len(entry.move_scores) == 7 and entry.move_scores[3] is None  # column 4 is full


@pytest.mark.parametrize(
    "moves", ["444444331112", "444444331111", "444444557776", "444444331222", "444444557655"]
)
def test_frontier_entries_have_a_score_and_no_move_scores(book, solver, moves):
    entry = book.get(moves)
    assert entry is not None and entry.ply == SMALL_PLY == len(moves)
    assert entry.move_scores is None
    assert (entry.score, entry.wdl, entry.best_moves, entry.move_scores) == expected_entry(
        solver, moves, frontier=True
    )


def test_frontier_known_scores(book):
    assert book.get("444444331112") == BookEntry(
        moves="444444331112", ply=12, score=-2, wdl=-1, best_moves=(2,), move_scores=None
    )
    # stored as 444444331233 with best moves 1 2 5 6; asked as its mirror image
    assert book.get("444444557655") == BookEntry(
        moves="444444557655", ply=12, score=-2, wdl=-1, best_moves=(2, 3, 6, 7), move_scores=None
    )


def test_mirror_image_is_found_and_mirrored_back(book, solver, small_book_path):
    # 444444337 is stored only as its mirror image 444444551.
    assert "444444337" not in stored_moves(small_book_path)
    assert "444444551" in stored_moves(small_book_path)
    stored = book.get("444444551")
    mirror = book.get("444444337")
    assert stored.best_moves == (3, 6)
    assert stored.move_scores == (-15, -15, -2, None, -15, -2, -15)
    assert mirror == BookEntry(
        moves="444444337",
        ply=9,
        score=-2,
        wdl=-1,
        best_moves=(2, 5),
        move_scores=(-15, -2, -15, None, -2, -15, -15),
    )
    assert mirror.best_moves == tuple(sorted(8 - c for c in stored.best_moves))
    assert mirror.move_scores == stored.move_scores[::-1]
    assert (mirror.score, mirror.wdl, mirror.best_moves, mirror.move_scores) == expected_entry(
        solver, "444444337", frontier=False
    )


def test_every_entry_and_its_mirror_agree(book, small_book_path):
    for moves in stored_moves(small_book_path):
        entry, mirror = book.get(moves), book.get(mirrored(moves))
        assert mirror.moves == mirrored(moves) and entry.moves == moves
        assert (mirror.ply, mirror.score, mirror.wdl) == (entry.ply, entry.score, entry.wdl)
        assert mirror.best_moves == tuple(sorted(8 - c for c in entry.best_moves)), moves
        if entry.move_scores is None:
            assert mirror.move_scores is None
        else:
            assert mirror.move_scores == entry.move_scores[::-1], moves


def test_lookup_by_position_equals_lookup_by_string(book):
    for moves in ["44444433", "444444337", "444444331112", "444444557776"]:
        assert book.get(Position.from_moves(moves)) == book.get(moves)
    assert book.get(Position.from_moves("444444337").mirror()) == book.get("444444551")


def test_a_transposition_is_found_under_its_own_moves(book):
    entry = book.get("44443344")  # the root, reached in another order
    assert entry.moves == "44443344" and entry.score == 16 and entry.best_moves == (2, 5)


@pytest.mark.parametrize(
    "moves", ["", "4453", "4444443", "4444443311111", "444444331112" + "1", "44444433552"]
)  # the last one is a won game
def test_positions_outside_the_book_are_none(book, moves):
    assert book.get(moves) is None
    assert moves not in book
    assert Position.from_moves(moves) not in book


def test_contains(book):
    for moves in ["44444433", "444444337", "444444551", "444444331112", "44443344"]:
        assert moves in book
        assert Position.from_moves(moves) in book


@pytest.mark.parametrize(
    "bad, message",
    [("4489", "illegal move '8'"), ("44444444", "column 4 is full"), (4453, "got 4453")],
)
def test_bad_lookups_name_the_input(book, bad, message):
    with pytest.raises(IllegalMoveError, match=message) as info:
        book.get(bad)
    assert isinstance(info.value, ValueError)


def test_best_move_is_the_first_best_move_in_the_order_preferred(book, small_book_path):
    """``best_move`` reads a parent's children in order until one is best: it must give
    the first of ``get``'s best moves in that order, either way round."""
    centre_first = tuple(col + 1 for col in book.board.column_order)
    rng = random.Random(7)
    for moves in stored_moves(small_book_path):
        for asked in (moves, mirrored(moves)):
            entry = book.get(asked)
            order = rng.sample(range(1, 8), 7)
            for prefer, rank in ((None, centre_first), (order, order)):
                wanted = (min(entry.best_moves, key=rank.index), entry.score)
                assert book.best_move(asked, prefer) == wanted, (asked, prefer)
                assert book.best_move(Position.from_moves(asked), prefer) == wanted
    assert book.best_move("4") is None  # (above the book's root)
    for bad in ([4, 4], [4.0, 3, 5, 2, 6, 1, 7], [True, 2, 3, 4, 5, 6, 7], 5, "4352617"):
        with pytest.raises(ValueError, match=r"prefer=.*: give every column 1-7 once"):
            book.best_move("44444433", bad)
    numpy_order = [np.int64(c) for c in centre_first]
    assert book.best_move("44444433", numpy_order) == book.best_move("44444433")
    assert type(book.best_move("44444433", numpy_order).column) is int
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        book.best_move("44444444")


def test_len_counts_and_info(book):
    assert len(book) == 753 == sum(COUNTS.values())
    assert book.count_by_ply() == COUNTS
    counts = book.score_counts()
    assert {ply: sum(c.values()) for ply, c in counts.items()} == COUNTS
    assert counts[8] == {1: 1}
    assert book.info == BookInfo(
        width=7,
        height=6,
        root="44444433",
        plies_complete=(8, 9, 10, 11, 12),
        schema_version=SCHEMA_VERSION,
        max_ply=12,
    )


def test_best_moves_agree_with_move_scores_on_derived_entries(book, small_book_path):
    derived = stored_moves(small_book_path, range(8, SMALL_PLY))
    assert len(derived) == 1 + 6 + 36 + 136
    for moves in derived:
        for asked in (moves, mirrored(moves)):
            entry = book.get(asked)
            position = Position.from_moves(asked)
            assert len(entry.move_scores) == 7
            assert [s is None for s in entry.move_scores] == [
                not position.can_play(c) for c in range(1, 8)
            ], asked
            assert entry.score == max(s for s in entry.move_scores if s is not None)
            assert entry.best_moves == tuple(
                c for c, s in enumerate(entry.move_scores, 1) if s == entry.score
            ), asked
            assert entry.wdl == (entry.score > 0) - (entry.score < 0)


def test_a_random_sample_of_frontier_entries_equals_direct_solves(book, solver, small_book_path):
    frontier = stored_moves(small_book_path, [SMALL_PLY])
    assert len(frontier) == 574
    for moves in random.Random(12).sample(frontier, 8):
        asked = mirrored(moves)
        entry = book.get(asked)
        assert (entry.score, entry.wdl, entry.best_moves, entry.move_scores) == expected_entry(
            solver, asked, frontier=True
        ), asked


def test_entries_of_canonical_keys(book, small_book_path, solver):
    # What the player asks of a position's parents: canonical keys in, the book's scores
    # and best-move bits out, in the canonical orientation, sorted, misses left out.
    stored = {key: ply for ply in COUNTS for key in book_keys(small_book_path, ply)}
    asked = [*sorted(stored, reverse=True), Position.from_moves("4453").canonical_key, 0]
    keys, scores, best = book.entries_of_keys(asked + asked[:5])
    assert keys == sorted(stored)
    for key, score, bits in zip(keys, scores, best, strict=True):
        entry = book.get(moves_of_key(key))  # the key's own orientation
        assert entry.ply == stored[key] and score == entry.score
        assert bits == sum(1 << (c - 1) for c in entry.best_moves), key
    for key in keys[::97]:
        position = Position.from_moves(moves_of_key(key))
        score = solver.solve(position)
        assert scores[keys.index(key)] == score
        assert best[keys.index(key)] == sum(
            1 << (c - 1) for c in position.legal_moves() if solver.is_best_move(position, c, score)
        )
    assert book.entries_of_keys([]) == ([], [], [])


# -- opening errors ------------------------------------------------------------


def test_missing_file(tmp_path):
    path = str(tmp_path / "nowhere.db")
    with pytest.raises(BookNotFoundError, match="no book at") as info:
        Book.open(path)
    assert repr(path) in str(info.value)
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, BookError)
    assert not os.path.exists(path)


def test_text_file_is_not_a_book(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a book\n")
    with pytest.raises(NotABookError, match="not a SQLite file") as info:
        Book.open(str(path))
    assert repr(str(path)) in str(info.value) and isinstance(info.value, ValueError)
    assert path.read_text() == "not a book\n"


def test_empty_file_and_directory_are_not_books(tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(NotABookError, match="empty file"):
        Book.open(str(empty))
    assert empty.read_bytes() == b""
    with pytest.raises(NotABookError, match="is a directory"):
        Book.open(str(tmp_path))


def test_sqlite_file_without_book_tables(tmp_path):
    path = str(tmp_path / "other.db")
    run_sql(
        path,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
        "INSERT INTO notes VALUES (1, 'hello')",
    )
    before = Path(path).read_bytes()
    with pytest.raises(NotABookError, match="no book tables") as info:
        Book.open(path)
    assert repr(path) in str(info.value)
    assert Path(path).read_bytes() == before


def test_book_tables_without_the_format_mark(small_book_copy):
    run_sql(small_book_copy, "DELETE FROM meta WHERE name = 'format'", stamped=True)
    with pytest.raises(NotABookError, match="not a c4book book") as info:
        Book.open(small_book_copy)
    assert repr(small_book_copy) in str(info.value)


def test_garbage_in_the_middle_is_corrupt(small_book_copy):
    damage_middle_page(small_book_copy, b"\xde\xad\xbe\xef")  # a damaged blob: test_segment
    with pytest.raises(CorruptBookError, match="damaged") as info:
        Book.open(small_book_copy)
    assert repr(small_book_copy) in str(info.value) and isinstance(info.value, ValueError)


def test_a_book_for_another_board_size(small_book_copy):
    run_sql(small_book_copy, "UPDATE meta SET value = '8' WHERE name = 'width'", stamped=True)
    with pytest.raises(IncompatibleBookError, match=r"8x6 board, not 7x6") as info:
        Book.open(small_book_copy, board="7x6")
    assert repr(small_book_copy) in str(info.value)
    assert isinstance(info.value, BoardSizeError)
    # A height changed in the file changes its root's key, or makes it no position at all.
    run_sql(
        small_book_copy,
        "UPDATE meta SET value = '7' WHERE name = 'width'",
        "UPDATE meta SET value = '5' WHERE name = 'height'",
        stamped=True,
    )
    with pytest.raises(
        CorruptBookError,
        match=r"root '44444433' and root key '\d+' do not agree "
        r"on its 7x5 board",
    ):
        Book.open(small_book_copy)


def test_an_unknown_schema_version(small_book_copy):
    run_sql(
        small_book_copy, "UPDATE meta SET value = '99' WHERE name = 'schema_version'", stamped=True
    )
    with pytest.raises(SchemaMismatchError, match="schema version '99'") as info:
        Book.open(small_book_copy)
    assert repr(small_book_copy) in str(info.value)
    assert f"reads version {SCHEMA_VERSION}" in str(info.value)


def test_a_version_1_book_names_the_upgrade_command(small_book_copy):
    run_sql(
        small_book_copy,
        "UPDATE meta SET value = '1' WHERE name = 'schema_version'",
        "DELETE FROM meta WHERE name = 'meta_checksum'",
    )  # as version 1 wrote it: none
    with pytest.raises(SchemaMismatchError, match="c4book upgrade --db") as info:
        Book.open(small_book_copy)
    assert str(info.value) == (
        f"{small_book_copy!r} has book schema version 1; this c4book "
        f"reads version {SCHEMA_VERSION}: convert it in place with 'c4book upgrade "
        f"--db {small_book_copy}'"
    )


# -- opening writes nothing ----------------------------------------------------


def test_reading_never_modifies_the_file(small_book_copy):
    os.utime(small_book_copy, ns=(1_000_000_000, 1_000_000_000))  # an mtime a write would change
    before = snapshot(small_book_copy)
    with Book.open(small_book_copy) as opened:
        assert len(opened) == 753
        assert opened.info.root == SMALL_ROOT
        assert opened.get("444444337").score == -2
        assert "4453" not in opened
        opened.count_by_ply()
        opened.score_counts()
        assert snapshot(small_book_copy) == before  # while open: no -wal/-shm beside it
    assert snapshot(small_book_copy) == before
    with closing(sqlite3.connect(f"file:{small_book_copy}?mode=ro", uri=True)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


@pytest.mark.parametrize("name", ["my#book.db", "what?.db", "a%41.db"])
def test_a_path_with_uri_characters_opens_and_writes_nothing(small_book_path, tmp_path, name):
    folder = tmp_path / "books"
    folder.mkdir()
    path = str(folder / name)
    shutil.copy(small_book_path, path)
    with Book.open(path) as opened:
        assert len(opened) == 753
    assert os.listdir(folder) == [name]


def test_url_form_opens_too(small_book_path):
    with Book.open(f"sqlite:///{small_book_path}") as opened:
        assert len(opened) == 753 and opened.get(SMALL_ROOT).score == 16


# -- light import --------------------------------------------------------------


@pytest.mark.parametrize("compiled, loaded", [(False, "[]"), (True, "['numba']")])
def test_importing_and_reading_a_book_loads_numba_only_for_bulk_work(
    small_book_path, compiled, loaded
):
    # A fresh process.  Opening and looking up load no numba; bulk work loads it if
    # allowed (``compiled``).  Never Ray, nor the solver.
    code = (
        "import sys\n"
        "from bookgen.book.read import reader\n"
        f"with reader.Book.open(sys.argv[1], compiled={compiled}) as book:\n"
        "    assert book.get('444444337').score == -2\n"
        "    assert book.get_many(['444444337'] * 100)[99].score == -2\n"
        "    assert 'numba' not in sys.modules\n"
        "    assert book.get_many(['444444337'] * reader._BULK)[-1].score == -2\n"
        f"    assert (reader._kernels() is not None) is {compiled}\n"
        "print(sorted(m for m in ('numba', 'ray', 'solver.engine', 'solver._search')"
        " if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, small_book_path], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == loaded


def test_get_many_equals_get_one_by_one(book, small_book_path):
    stored = stored_moves(small_book_path)
    mirrors = [mirrored(m) for m in stored]
    misses = ["", "4453", "4444443312356"]  # above the root, off its subtree, past ply 12
    asked = stored + mirrors + misses
    many = book.get_many(asked)  # the numpy path
    assert many == [book.get(m) for m in asked]
    assert sum(e is None for e in many) == len(misses)
    assert book.get_many(asked[:5]) == many[:5]  # the short path
    positions = [Position.from_moves(m) for m in asked[:100]]
    assert book.get_many(positions) == many[:100]
    assert book.get_many([]) == []


def test_get_many_leaves_the_cycle_collector_as_it_found_it(book, small_book_path):
    import gc

    asked = stored_moves(small_book_path)[:200]
    assert gc.isenabled()
    book.get_many(asked)
    assert gc.isenabled()
    gc.disable()
    try:
        book.get_many(asked)
        assert not gc.isenabled()  # the caller's choice stands
    finally:
        gc.enable()


def test_get_many_returns_before_the_collector_walks_its_entries(book, small_book_path):
    """The entries made with the collector paused are walked at the caller's next
    allocations (or never, if dropped first), not inside the call."""
    import gc

    asked = stored_moves(small_book_path)[:2000]
    walked = []  # each walk's young entries

    def count(phase, _info):
        if phase == "start":
            walked.append(sum(type(o) is BookEntry for o in gc.get_objects(0)))

    gc.collect()
    gc.callbacks.append(count)
    try:
        got = book.get_many(asked)
        during = len(walked)  # (len makes no object: no walk starts here)
        gc.collect(0)
    finally:
        gc.callbacks.remove(count)
    assert all(got) and sum(walked[:during]) == 0 and walked[during] == len(asked)


@pytest.mark.parametrize(
    "bad, message",
    [
        ("4a", "illegal move 'a'"),
        ("44444444", "column 4 is full"),
        ("12121212", "comes after the game was won"),
        (4453, "got 4453"),
    ],
)
def test_get_many_names_a_bad_input(book, bad, message):
    for count in (2, 100):  # both paths
        with pytest.raises(ValueError, match=message):
            book.get_many([SMALL_ROOT] * (count - 1) + [bad])


@pytest.mark.parametrize("bad", [None, 4453, SMALL_ROOT, b"4453"])
def test_get_many_refuses_what_is_not_a_list_of_positions(book, bad):
    """A bare string would otherwise be read as positions of one move each."""
    with pytest.raises(ArgumentTypeError, match=f"moves_list must be a list .* got {bad!r}"):
        book.get_many(bad)
    assert book.get_many(iter([SMALL_ROOT])) == [book.get(SMALL_ROOT)]  # any iterable


def test_a_path_object_opens_a_book_and_a_number_is_named(small_book_path):
    with Book.open(Path(small_book_path)) as opened:
        assert opened.db == small_book_path and opened.get(SMALL_ROOT).score == 16
    for bad in (123, b"book.db"):
        with pytest.raises(ArgumentTypeError, match=f"db must be a book's path .* got {bad!r}"):
            Book.open(bad)
    assert issubclass(ArgumentTypeError, C4Error) and issubclass(ArgumentTypeError, TypeError)


# -- sealed and rows ------------------------------------------------------------


def test_sealed_plies_answer_exactly_as_rows(small_book_path, small_rows_book_path):
    stored = stored_moves(small_book_path)
    assert stored_moves(small_rows_book_path) == stored and len(stored) == 753
    asked = stored + [mirrored(m) for m in stored] + ["", "4453", "4444443312356"]
    with (
        Book.open(small_rows_book_path) as rows,
        Book.open(small_book_path) as sealed,
    ):
        assert [sealed.get(m) for m in asked] == [rows.get(m) for m in asked]
        assert sealed.get_many(asked) == rows.get_many(asked)
        assert len(sealed) == len(rows) == 753
        assert sealed.count_by_ply() == rows.count_by_ply() == COUNTS
        assert sealed.score_counts() == rows.score_counts()
        assert sealed.info == rows.info
        assert repr(sealed) == f"Book.open({small_book_path!r})"
        assert repr(rows) == f"Book.open({small_rows_book_path!r})"


def test_a_sealed_ply_deleted_behind_an_open_book_is_damage_never_an_answer(small_book_copy):
    with Book.open(small_book_copy) as opened:
        kept = opened.get("444444331112")  # its block read, and kept
        assert kept == BookEntry("444444331112", 12, -2, -1, (2,), None)
        run_sql(small_book_copy, f"DELETE FROM block_chunks WHERE id >= {SMALL_PLY << 32}")
        assert opened.get("444444331112") == kept  # from the cache
        with (
            Book.open(small_book_copy, cache_blocks=1) as again,  # its index is still there
            pytest.raises(CorruptBookError, match=f"ply {SMALL_PLY} is damaged: its block 0"),
        ):
            again.get("444444331112")
        run_sql(small_book_copy, f"DELETE FROM sealed_plies WHERE ply = {SMALL_PLY}")
        with pytest.raises(CorruptBookError, match=f"ply {SMALL_PLY} is damaged"):
            Book.open(small_book_copy)  # a ply deleted behind the meta's back is damage


# -- a book past 64 bits (issue 52) ---------------------------------------------------


@pytest.fixture(scope="module")
def wide_book(wide_book_path):
    with Book.open(wide_book_path) as opened:
        yield opened


@pytest.fixture(scope="module")
def wide_solver():
    return Solver(table_log2=20, board="8x8")


def test_a_book_past_64_bits_opens_with_its_board(wide_book, wide_plies):
    assert str(wide_book.board) == "8x8" and wide_book.info.root == WIDE_ROOT
    assert wide_book.info.plies_complete == tuple(sorted(wide_plies))
    assert wide_book.count_by_ply() == {ply: len(s.keys) for ply, s in wide_plies.items()}


def test_a_book_past_64_bits_answers_as_the_solver_does(wide_book, wide_plies, wide_solver):
    from solver.wide.packed import moves_of_keys as wide_moves_of_keys

    board = wide_book.board
    for ply, segment in wide_plies.items():
        moves = wide_moves_of_keys(segment.keys, WIDE_ROOT, board)
        for at, (text, score) in enumerate(zip(moves, segment.scores.tolist(), strict=True)):
            for asked in (board.mirror_moves(text), text):  # the book's orientation last
                entry = wide_book.get(asked)
                assert entry is not None and entry.score == score and entry.moves == asked
                first = min(entry.best_moves, key=(4, 5, 3, 6, 2, 7, 1, 8).index)
                assert wide_book.best_move(asked, (4, 5, 3, 6, 2, 7, 1, 8)) == (first, score)
            if ply == WIDE_PLY:  # best moves stored
                assert sum(1 << (c - 1) for c in entry.best_moves) == int(segment.best[at])
                assert entry.move_scores is None
            elif at % 3 == 0:  # the children's scores, read from the ply below
                analyzed = wide_solver.analyze(Position.from_moves(asked, board))
                assert list(entry.move_scores) == analyzed
                top = max(s for s in analyzed if s is not None)
                assert entry.best_moves == tuple(c + 1 for c, s in enumerate(analyzed) if s == top)


def test_a_book_past_64_bits_lists_and_looks_up_many(wide_book, wide_plies):
    listed = list(wide_book.entries())
    assert len(listed) == len(wide_book) == sum(len(s.keys) for s in wide_plies.values())
    assert [e.ply for e in listed] == sorted(e.ply for e in listed)
    again = wide_book.get_many([e.moves for e in listed])
    assert again == [wide_book.get(e.moves) for e in listed] == listed
    # Asked out of order (read in key order, answered in the order asked), with misses,
    # mirror images and Positions.
    shuffled = [e.moves for e in listed]
    random.Random(52).shuffle(shuffled)
    board = wide_book.board
    asked = [*shuffled, "1", *map(board.mirror_moves, shuffled[:20])]
    asked += [Position.from_moves(m, board) for m in shuffled[:20]]
    assert wide_book.get_many(asked) == [wide_book.get(m) for m in asked]
    with pytest.raises(IllegalMoveError):
        wide_book.get_many([*shuffled, WIDE_ROOT + "9"])
    last = [e for e in listed if e.ply == WIDE_PLY]
    assert len(
        wide_book.entries_of_keys(
            [Position.from_moves(e.moves, wide_book.board).canonical_key for e in last]
        )[0]
    ) == len(last)


def test_a_book_past_64_bits_misses_and_refuses_as_any_book(wide_book):
    assert wide_book.get("1") is None  # a position outside the book
    before = Position.from_moves(WIDE_ROOT[:-1], wide_book.board)
    other = next(c for c in before.legal_moves() if str(c) != WIDE_ROOT[-1])
    assert wide_book.get(WIDE_ROOT[:-1] + str(other)) is None  # another position of the root's ply
    with pytest.raises(IllegalMoveError):
        wide_book.get(WIDE_ROOT + "9")


def test_a_damaged_block_of_a_book_past_64_bits_is_never_answered_from(
    wide_book_path, wide_plies, tmp_path
):
    from bookgen.book.format.names import chunk_id
    from solver.wide.packed import moves_of_keys as wide_moves_of_keys

    db = tmp_path / "damaged.db"
    shutil.copy(wide_book_path, db)
    with closing(sqlite3.connect(db)) as conn:
        where = (chunk_id(WIDE_PLY, 0),)
        (data,) = conn.execute("SELECT data FROM block_chunks WHERE id = ?", where).fetchone()
        changed = bytearray(data)
        changed[-1] ^= 0x01
        conn.execute("UPDATE block_chunks SET data = ? WHERE id = ?", (bytes(changed), *where))
        conn.commit()
    parent, child = (
        wide_moves_of_keys(wide_plies[ply].keys[:1], WIDE_ROOT, Board.parse("8x8"))[0]
        for ply in (WIDE_PLY - 1, WIDE_PLY)
    )
    damaged = rf"ply {WIDE_PLY} is damaged: its block 0 fails its checksum"
    with Book.open(str(db)) as book:
        for asked in (child, parent):  # a parent's move scores read the ply below
            with pytest.raises(CorruptBookError, match=damaged):
                book.get(asked)


def test_a_book_past_64_bits_sealed_in_codec_version_1_reads_as_in_version_2(
    wide_book, wide_book_path, tmp_path
):
    from bookgen.book.format.database import make_engine
    from bookgen.book.format.sealed import codec_versions

    db = str(tmp_path / "version1.db")
    shutil.copy(wide_book_path, db)
    reseal_wide(db, 1)
    engine = make_engine(db)
    try:
        with engine.connect() as conn:
            assert set(codec_versions(conn).values()) == {1}
    finally:
        engine.dispose()
    with Book.open(db) as old:
        assert list(old.entries()) == list(wide_book.entries())

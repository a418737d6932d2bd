"""Shared fixtures: one real local Ray for the session, and real book files built by it."""

import logging
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from solver import Position

# The tests' random endgames are the scripts' (``scripts/_endgames.py``): one recipe.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from _endgames import endgame, hands_a_win  # noqa: F401 (hands_a_win: for the tests)

# -- the search kernels compiled ahead of the tests (``warm_kernels.py``) ----------------

_warmers: list[subprocess.Popen] = []  # the one started, if any


def pytest_collection_finish(session):
    """Start compiling the kernels that the collected tests will need in a niced process
    beside them: on a cold numba cache (a fresh clone, CI) minutes that the test process
    would otherwise wait for on one core while the other idles.  C4BOOK_TEST_WARM=0 leaves
    every compile to the first test that needs it."""
    if os.environ.get("C4BOOK_TEST_WARM") == "0" or session.config.option.collectonly:
        return
    from warm_kernels import JOBS

    modules = {item.path.stem for item in session.items}
    jobs = [name for name, (_, needed_by) in JOBS.items() if modules.intersection(needed_by)]
    if jobs:
        script = str(Path(__file__).resolve().parent / "warm_kernels.py")
        warmer = subprocess.Popen(
            [sys.executable, script, *jobs],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _warmers.append(warmer)


def pytest_unconfigure(config):
    for warmer in _warmers:  # still compiling after a short run: what it finished is cached
        if warmer.poll() is None:
            warmer.kill()
            warmer.wait()


DATA = Path(__file__).resolve().parent / "data"  # Pons' test sets, the bench files, ply10.db
SMALL_ROOT = "44444433"  # column 4 full: small subtrees that still take real search
SMALL_PLY = 12


def run_sql(path: str, *statements: str, stamped: bool = False) -> None:
    """Change a book file behind the project's back, as a damaged or foreign file would.

    ``stamped``: then give its rows and meta the checksums c4book would have written
    (``stamp``), as a book that is wrong, not damaged, would carry them."""
    with closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()
    if stamped:
        stamp(path)


def stamp(path: str) -> None:
    """Give a SQLite book's rows and meta the checksums c4book writes with them (rows only
    where the table has their column), over whatever they hold now."""
    from sqlalchemy import create_engine, text

    from bookgen.book.format.checksum import META_CHECKSUM, meta_checksum
    from bookgen.book.format.rows import stamp_rows

    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            meta: dict[str, str] = dict(conn.execute(text("SELECT name, value FROM meta")).all())
            columns = [c[1] for c in conn.exec_driver_sql("PRAGMA table_info(positions)")]
            if "checksum" in columns:
                width = meta.get("width", "7")
                stamp_rows(conn, path, int(width) if width.isdigit() else 7)
            conn.execute(
                text("INSERT OR REPLACE INTO meta (name, value) VALUES (:n, :v)"),
                {"n": META_CHECKSUM, "v": meta_checksum(meta)},
            )
    finally:
        engine.dispose()


def open_store(db: str):
    """A read-only ``BookStore`` of an existing book (a path or a URL), whatever its root
    and board."""
    from bookgen.book.format.database import make_engine, read_meta, sqlite_path
    from bookgen.book.format.errors import board_of_meta
    from bookgen.book.write.store import BookStore

    engine = make_engine(db, readonly=sqlite_path(db) is not None)
    try:
        meta = read_meta(engine, db)
    finally:
        engine.dispose()
    return BookStore(
        db, meta["root"], int(meta["root_key"]), readonly=True, board=board_of_meta(meta, db)
    )


def stored_plies(db: str) -> dict:
    """Each ply's ``Segment`` of every stored entry, packed and rows together, in key order
    (``BookStore.entries_at``); ``best`` is ``None`` where a sealed ply keeps no best moves."""
    store = open_store(db)
    try:
        return {ply: store.entries_at(ply) for ply in store.count_by_ply()}
    finally:
        store.close()


def entries(db: str) -> list[tuple]:
    """``(key, ply, score, best_moves)`` of every stored position, in key order, packed
    or rows alike; ``best_moves`` is the stored text ("25"), or ``None`` where the ply
    keeps no best moves (its children give them)."""
    from bookgen.book.format.scores import BEST_TEXT

    found: list[tuple] = []
    for ply, (keys, scores, best) in stored_plies(db).items():
        texts = [None] * len(keys) if best is None else [BEST_TEXT[b] for b in best.tolist()]
        found += zip(keys.tolist(), [ply] * len(keys), scores.tolist(), texts, strict=True)
    return sorted(found)


def book_keys(db: str, ply: int) -> list[int]:
    """The keys a book stores at ``ply``, packed or rows, in key order."""
    store = open_store(db)
    try:
        return store.entries_at(ply).keys.tolist()
    finally:
        store.close()


def book_moves(path: str, ply: int) -> list[str]:
    """A move string for each position a book stores at ``ply``, in key order.

    Books store keys, not moves: each string is the smallest that reaches the
    key from the book's root (or its mirror image).
    """
    from solver.packed import moves_of_key

    store = open_store(path)
    try:
        root, keys = store.meta()["root"], store.entries_at(ply).keys.tolist()
    finally:
        store.close()
    return [moves_of_key(k, root) for k in keys]


def segment_rows(path: str, ply: int) -> list[tuple[int, int, bytes]]:
    """``(id, count, data)`` of each stored segment of ``ply``, in id order."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(
            "SELECT id, count, data FROM segments WHERE ply = ? ORDER BY id", (ply,)
        ).fetchall()


def sealed_bytes(path: str) -> dict[int, bytes]:
    """Each sealed ply's stored bytes: its index, its keys dictionary and its chunks, joined."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        found = {
            ply: index + dictionary
            for ply, index, dictionary in conn.execute(
                'SELECT ply, "index", dictionary FROM sealed_plies'
            )
        }
        for row_id, data in conn.execute("SELECT id, data FROM block_chunks ORDER BY id"):
            found[row_id >> 32] += data
    return found


def free_pages(path: str) -> tuple[int, int]:
    """``(pages no row uses, page size)`` of a SQLite book."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return (
            conn.execute("PRAGMA freelist_count").fetchone()[0],
            conn.execute("PRAGMA page_size").fetchone()[0],
        )


def edit_ply(path: str, ply: int, edit) -> None:
    """Change a sealed ply's entries behind the project's back, as a wrong but undamaged
    book would have them: its blocks decoded, ``edit(Segment) -> Segment`` applied (numpy
    arrays; the result is put back in key order) and sealed again, checksums and all, in
    the codec's version 1 (version 2 refuses entries that the positions' stones
    contradict, ``format.implied``).  A ply not sealed yet starts empty."""
    import numpy as np

    from bookgen.book.format.database import make_engine
    from bookgen.book.format.sealed import read_sealed, sealed_plies
    from bookgen.book.format.segment import Segment
    from bookgen.book.write.sealed import write_sealed
    from solver.bitboard import STANDARD

    engine = make_engine(path)
    try:
        with engine.begin() as conn:
            sealed = sealed_plies(conn, STANDARD, path, ply).get(ply)
            before = (
                read_sealed(conn, sealed, STANDARD, path)
                if sealed is not None
                else Segment(np.empty(0, np.uint64), np.empty(0, np.int8), None)
            )
            keys, scores, best = edit(
                Segment(
                    before.keys.copy(),
                    before.scores.copy(),
                    None if before.best is None else before.best.copy(),
                )
            )
            order = np.argsort(np.asarray(keys, dtype=np.uint64), kind="stable")
            after = Segment(
                np.asarray(keys, dtype=np.uint64)[order],
                np.asarray(scores, dtype=np.int8)[order],
                None if best is None else np.asarray(best, dtype=np.uint8)[order],
            )
            write_sealed(conn, ply, after, STANDARD, version=1)
    finally:
        engine.dispose()


def unseal(path: str, version: int = 6) -> None:
    """Turn a book's sealed plies back into one row per position, as schema version 2 kept
    them: a derived ply (the next one complete) with its best moves and move scores, the
    deepest with its best moves and no move scores; no node counts (0).

    ``version`` 6: a book of this version whose plies are all still rows, each with its
    checksum (an upgrade from version 2 interrupted before it packed anything); 5 alike.
    ``version`` 4: the same without the tables of blocks, as version 4 kept it.
    ``version`` 3: without checksums too, as version 3 kept them.  ``version`` 2: the
    segments table goes too, as a book written by c4book before segments.
    """
    import json

    from bookgen.book.format.scores import BEST_TEXT
    from bookgen.builder.derive import derive

    plies = stored_plies(path)
    with closing(sqlite3.connect(path)) as conn:
        complete = set(
            json.loads(
                conn.execute("SELECT value FROM meta WHERE name = 'complete_plies'").fetchone()[0]
            )
        )
    rows: list[tuple] = []
    for ply, (keys, scores, stored_best) in plies.items():
        best, move_scores = stored_best, None
        if ply in complete and ply + 1 in complete:
            children = plies[ply + 1]
            derived = derive(keys, children.keys, children.scores)
            assert (derived.scores == scores).all() and (
                stored_best is None or (derived.best == stored_best).all()
            )
            best, move_scores = derived.best, derived.move_scores
        assert best is not None, f"ply {ply} keeps no best moves and is not derived"
        for i, (key, score, bits) in enumerate(
            zip(keys.tolist(), scores.tolist(), best.tolist(), strict=True)
        ):
            rows.append(
                (
                    key,
                    ply,
                    score,
                    (score > 0) - (score < 0),
                    BEST_TEXT[bits],
                    None if move_scores is None else move_scores[i].tobytes(),
                    0,
                )
            )
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("DELETE FROM positions")
        if version < 4:
            conn.execute("ALTER TABLE positions DROP COLUMN checksum")
            conn.execute("DELETE FROM meta WHERE name = 'meta_checksum'")
        else:  # each row's checksum written below
            rows = [(*row, 0) for row in rows]
        for table in ("sealed_plies", "block_chunks"):
            conn.execute(f"DELETE FROM {table}" if version >= 5 else f"DROP TABLE {table}")
        conn.executemany(f"INSERT INTO positions VALUES ({', '.join('?' * len(rows[0]))})", rows)
        if version == 2:
            conn.execute("DROP TABLE segments")
        else:
            conn.execute("DELETE FROM segments")
        conn.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(version),))
        conn.commit()
    if version >= 4:
        stamp(path)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("VACUUM")


@contextmanager
def c4book_server(db, *options: str):
    """A real ``c4book serve`` of ``db`` (``None``: no --db) on a free port of 127.0.0.1:
    its address."""
    with c4book_server_process(db, *options) as (_, address):
        yield address


@contextmanager
def c4book_server_process(db, *options: str, **popen):
    """``c4book_server``, with its process: (process, address); ``popen``: more of
    ``subprocess.Popen``'s arguments.  Stopped by its pid when the block ends, however
    it ends."""
    import re
    import select
    import tempfile

    book = [] if db is None else ["--db", str(db)]
    with tempfile.TemporaryFile("w+") as errors:  # a file: a pipe nobody reads could fill
        process = subprocess.Popen(
            [*c4book_command(), "serve", *book, "--port", "0", *options],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            **popen,
        )
        assert process.stdout is not None  # (stdout=PIPE)
        try:
            ready, _, _ = select.select([process.stdout], [], [], 60)
            line = process.stdout.readline() if ready else ""
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if not found:
                process.kill()
                process.wait()
                errors.seek(0)
                raise AssertionError(f"no address in {line!r}; stderr: {errors.read()[-2000:]}")
            yield process, found.group(0)
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def running(args: list[str], **popen):
    """``args`` started (text mode, ``popen``'s options) for the block, and killed after it
    if it still runs: a test that failed half-way leaves no process behind."""
    process = subprocess.Popen(args, text=True, **popen)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def c4book_command() -> list[str]:
    """The console script installed next to this Python, else the module."""
    script = Path(sys.executable).with_name("c4book")
    if script.exists():
        return [str(script)]
    found = shutil.which("c4book")
    return [found] if found else [sys.executable, "-m", "bookgen.cli"]


def c4book(*args: str, stdin: str | None = None, timeout: float = 300):
    """``c4book ARGS`` run to its end: its exit status, stdout and stderr as text."""
    return subprocess.run(
        [*c4book_command(), *args], input=stdin, capture_output=True, text=True, timeout=timeout
    )


def pons_lines(name: str, step: int, limit: int) -> list[tuple[str, int]]:
    """Every ``step``-th position of Pons' test set ``name`` (tests/data), ``limit`` of
    them: (moves, score)."""
    lines = [line.split() for line in (DATA / name).read_text().split("\n") if line.strip()]
    return [(moves, int(score)) for moves, score in lines[::step][:limit]]


def analyzed(solver, moves: str) -> tuple[int, list[int], list[int | None]]:
    """The score of ``moves``, its best columns and every column's score, from ``solver``."""
    scores = solver.analyze(Position.from_moves(moves))
    score = max(s for s in scores if s is not None)
    return score, [c for c, s in enumerate(scores, start=1) if s == score], scores


def small_build_args(db: str | Path, ply: int, *extra: str) -> list[str]:
    """``build`` of SMALL_ROOT to ``ply`` into ``db`` with a small table, for a command line."""
    options = ["--ply", str(ply), "--db", str(db), "--table-log2", "20"]
    return ["build", "--root", SMALL_ROOT, *options, *extra]


class Serving:
    """A ``serving`` process, what it printed first, and its stderr once it ended."""

    process: subprocess.Popen
    first_line = ""
    stderr = ""
    returncode: int | None = None


@contextmanager
def serving(code: str, env: dict):
    """Run ``code`` in a Python of its own for the block: it prints one line (an
    address), then waits for its stdin to close before cleaning up and exiting."""
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None  # (PIPEs)
    result = Serving()
    result.process = process
    try:
        result.first_line = process.stdout.readline().strip()
        assert result.first_line, process.stderr.read()
        yield result
    finally:
        _, result.stderr = process.communicate("", timeout=120)
        result.returncode = process.returncode


@pytest.fixture(scope="module")
def solver():
    """A small solver shared by one test module."""
    from solver import Solver

    return Solver(table_log2=20)


SHIPPED = Path(__file__).resolve().parent.parent / "book.db"  # the book the project ships
PLY10 = DATA / "ply10.db"  # the book to ply 10, fixed


# A book past 64 bits (issue 52): 8x8 from a root of 48 stones, 274 positions to ply 53.
WIDE_ROOT = "353365382355544863688312213488128611625187562225"
WIDE_PLY = 53


def best_bits(move_scores: list[int | None]) -> int:
    """The best-move bits (bit c: column c + 1) of a position's move scores."""
    top = max(s for s in move_scores if s is not None)
    return sum(1 << c for c, s in enumerate(move_scores) if s == top)


@pytest.fixture(scope="session")
def wide_plies() -> dict:
    """The plies of an 8x8 book from ``WIDE_ROOT`` to ``WIDE_PLY``, listed and solved:
    ``{ply: Segment}`` of ``(n, 2)`` keys, best moves at the last ply alone (a second)."""
    import numpy as np

    from bookgen.book.format.segment import Segment
    from bookgen.builder.listing import keys_by_ply
    from solver import Solver
    from solver.bitboard import Board
    from solver.wide.packed import positions_of_keys

    board = Board(8, 8)
    wide_solver = Solver(table_log2=20, board=board)
    plies = {}
    for ply, keys in keys_by_ply(Position.from_moves(WIDE_ROOT, board), WIDE_PLY).items():
        positions = positions_of_keys(keys, WIDE_ROOT, board)
        scores = np.array([wide_solver.solve(p) for p in positions], np.int8)
        best = None
        if ply == WIDE_PLY:
            best = np.array([best_bits(wide_solver.analyze(p)) for p in positions], np.uint8)
        plies[ply] = Segment(keys, scores, best)
    return plies


def write_wide_book(path: str, plies: dict) -> None:
    """The book of ``wide_plies`` at ``path`` as a build writes one: the last ply as rows,
    packed, then every ply sealed, deepest first."""
    from bookgen.book.format.rows import Rows
    from bookgen.book.write.store import BookStore
    from solver.bitboard import Board

    board = Board(8, 8)
    store = BookStore(
        path, WIDE_ROOT, Position.from_moves(WIDE_ROOT, board).canonical_key, board=board
    )
    try:
        last = plies[WIDE_PLY]
        store.insert_new(Rows(WIDE_PLY, last.keys, last.scores, last.best))
        store.pack_rows(WIDE_PLY)
        for ply in sorted(plies, reverse=True):
            store.seal(ply, store.entries_at(ply) if ply == WIDE_PLY else plies[ply])
        store.set_meta(ply=str(WIDE_PLY))  # the ply built to, as the driver records it
    finally:
        store.close()


def reseal_wide(path: str, version: int) -> None:
    """Every ply of the 8x8 book at ``path`` sealed again in codec ``version``: version 1 is
    how a build sealed plies past 64 bits before 2026-11-29."""
    from bookgen.book.write.sealed import write_sealed
    from bookgen.book.write.store import BookStore
    from solver.bitboard import Board

    board = Board(8, 8)
    root_key = Position.from_moves(WIDE_ROOT, board).canonical_key
    store = BookStore(path, WIDE_ROOT, root_key, board=board)
    try:
        with store.engine.begin() as conn:
            for ply in store.complete_plies():
                write_sealed(conn, ply, store.entries_at(ply), board, version=version)
    finally:
        store.close()


@pytest.fixture(scope="session")
def wide_book_path(wide_plies, tmp_path_factory) -> str:
    """The 8x8 book of ``wide_plies`` (``write_wide_book``), for the session: copy it to change it."""
    path = str(tmp_path_factory.mktemp("wide") / "wide.db")
    write_wide_book(path, wide_plies)
    return path


@pytest.fixture(scope="module")
def shipped_book():
    """The shipped book, open for one test module (skipped where there is none)."""
    from bookgen import Book

    if not SHIPPED.exists():
        pytest.skip("no book.db at the top level")
    with Book.open(str(SHIPPED)) as opened:
        yield opened


@pytest.fixture(scope="module")
def ply10_book():
    """The book to ply 10 (``tests/data/ply10.db``), open for one test module: a book whose
    extent does not change as the shipped one grows."""
    from bookgen import Book

    with Book.open(str(PLY10)) as opened:
        yield opened


@pytest.fixture(scope="module")
def book(small_book_path):
    """The small book, open for one test module."""
    from bookgen import Book

    with Book.open(small_book_path) as opened:
        yield opened


def wait_until(condition, what: str, timeout: float = 120, every: float = 0.05):
    """``condition()``'s first true value, asked every ``every`` seconds; an AssertionError
    naming ``what`` if none comes within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"{what}: not after {timeout} s")


def start_local_ray() -> None:
    """The tests' Ray: this machine's, two CPUs, quiet."""
    import ray

    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.WARNING,
        log_to_driver=False,
    )


def back_to_local_ray(cluster) -> None:
    """End a test's own Ray ``cluster`` and bring back the session's Ray for the next tests."""
    import ray

    ray.shutdown()
    cluster.shutdown()
    start_local_ray()


@pytest.fixture(scope="session")
def ray_session():
    import ray

    if not ray.is_initialized():
        start_local_ray()
    return ray


@pytest.fixture(scope="session")
def small_book_path(tmp_path_factory, ray_session) -> str:
    """A book from SMALL_ROOT to SMALL_PLY built by the real driver; treat as read-only."""
    from bookgen.builder.driver import build

    path = str(tmp_path_factory.mktemp("books") / "small.db")
    build(path, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=20)
    return path


@pytest.fixture(scope="session")
def six_by_five(tmp_path_factory, ray_session) -> str:
    """A 6x5 book of every position to ply 6 (3,935 searched), built by the real driver on
    local Ray; treat as read-only."""
    from bookgen.builder.driver import build

    path = str(tmp_path_factory.mktemp("six") / "six.db")
    summary = build(path, 6, "", board="6x5", progress=False, table_log2=20)
    assert summary.searched == 3935 and summary.exit_status == 0
    return path


@pytest.fixture(scope="session")
def small_rows_book_path(small_book_path, tmp_path_factory) -> str:
    """The small book with every ply kept as rows, one per position (``unseal``): the same
    book as an upgrade from version 2 leaves it before packing; treat as read-only."""
    path = str(tmp_path_factory.mktemp("books") / "small-rows.db")
    shutil.copy(small_book_path, path)
    unseal(path)
    return path


@pytest.fixture
def small_book_copy(small_book_path, tmp_path) -> str:
    """A private copy of the small book that a test may change."""
    path = str(tmp_path / "copy.db")
    shutil.copy(small_book_path, path)
    return path


# -- a brute force to compare the solver with ------------------------------------------


def damage_middle_page(path: str, pattern: bytes) -> None:
    """Overwrite the whole page in the middle of a SQLite file with ``pattern`` (a sealed
    book is a few pages: a few bytes there could fall in free space, which no check reads)."""
    size, page = os.path.getsize(path), 4096
    assert size % page == 0 and size // page >= 5
    with open(path, "r+b") as handle:
        handle.seek(size // 2 // page * page)
        handle.write(pattern * (page // len(pattern)))


def win_now(ply, cells=42):
    """Score of a player who wins with the stone they are about to play (written out, not
    taken from ``Board.win_score``)."""
    return (cells + 1 - ply) // 2


def scores_by_children(p, score_of) -> list[int | None]:
    """Each column's score for the player to move, by one ply of negamax written out:
    None where the column is full, a win where the stone wins, 0 where it fills the
    board, else minus ``score_of(child)``."""
    scores: list[int | None] = []
    for col in range(1, p.board.width + 1):
        if not p.can_play(col):
            scores.append(None)
        elif p.is_winning_move(col):
            scores.append(win_now(p.ply, p.board.cells))
        else:
            child = p.play(col)
            scores.append(0 if child.is_full else -score_of(child))
    return scores


_MINIMAX: dict[tuple[str, int], int] = {}


def minimax(p):
    """Exact score by plain full-width minimax, no alpha-beta and no heuristics.

    Results are remembered per position key: that only saves repeating the
    same subtree reached by another move order, it prunes nothing.
    """
    key = (str(p.board), p.key)
    if key not in _MINIMAX:
        moves = p.legal_moves()
        if any(p.is_winning_move(c) for c in moves):
            score = win_now(p.ply, p.board.width * p.board.height)
        elif p.is_full:
            score = 0
        else:
            score = max(-minimax(p.play(c)) for c in moves)
        _MINIMAX[key] = score
    return _MINIMAX[key]


def endgames_without_wins(count, seed, empty, board):
    """``count`` tense endgames ``empty`` cells before the end (``_endgames.endgame``):
    quick to find on big boards, where plain random play mostly ends early."""
    rng = random.Random(seed)
    return [endgame(board, empty, rng) for _ in range(count)]


class WideView:
    """A one-word board typed for the two-word kernels (``solver.wide``): the same
    positions through both kernel sets, to hold the wide ones to the one-word ones.
    Its ``is_wide`` sends a caller that dispatches on it (``listing``) to them too; its
    other facts (``key_bits``, ``cells``...) are the board's."""

    is_wide = True

    def __init__(self, board):
        self.board = board

    def __getattr__(self, name):
        if name.startswith("_"):  # numba's and Python's own questions: not the board's
            raise AttributeError(name)
        return getattr(self.board, name)

    @property
    def _numba_type_(self):
        from solver.wide._board_type import WideBoardType

        return WideBoardType(self.board.width, self.board.height)


def random_endgames(count, seed, min_empty=4, max_empty=12, board=None):
    """Unfinished positions from random play, stopped 4-12 cells before the end."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        p = Position(board)
        stop = p.board.cells - rng.randint(min_empty, max_empty)
        while p.ply < stop and not p.is_game_over:
            p = p.play(rng.choice(p.legal_moves()))
        if not p.is_game_over:
            found.append(p)
    return found

"""Shared fixtures: one real local Ray for the session, and real book files built by it."""

import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from solver import Position

SMALL_ROOT = "44444433"  # column 4 full: small subtrees that still take real search
SMALL_PLY = 12


def run_sql(path: str, *statements: str) -> None:
    """Change a book file behind the project's back, as a damaged or foreign file would."""
    with closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()


def book_moves(path: str, ply: int) -> list[str]:
    """A move string for each position a book stores at ``ply``, in key order.

    Books store keys, not moves: each string is the smallest that reaches the
    key from the book's root (or its mirror image).
    """
    from solver.packed import moves_of_key

    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        (root,) = conn.execute("SELECT value FROM meta WHERE name = 'root'").fetchone()
        keys = [k for (k,) in conn.execute(
            "SELECT key FROM positions WHERE ply = ? ORDER BY key", (ply,))]
    return [moves_of_key(k, root) for k in keys]


def c4book_command() -> list[str]:
    """The console script installed next to this Python, else the module."""
    script = Path(sys.executable).with_name("c4book")
    if script.exists():
        return [str(script)]
    found = shutil.which("c4book")
    return [found] if found else [sys.executable, "-m", "bookgen.cli"]


class Serving:
    """A ``serving`` process, what it printed first, and its stderr once it ended."""

    process: subprocess.Popen
    first_line = ""
    stderr = ""
    returncode = None


@contextmanager
def serving(code: str, env: dict):
    """Run ``code`` in a Python of its own for the block: it prints one line (an
    address), then waits for its stdin to close before cleaning up and exiting."""
    process = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
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


@pytest.fixture(scope="module")
def book(small_book_path):
    """The small book, open for one test module."""
    from bookgen import Book

    with Book.open(small_book_path) as opened:
        yield opened


@pytest.fixture(scope="session")
def ray_session():
    import ray

    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False,
                 logging_level="WARNING", log_to_driver=False)
    yield ray


@pytest.fixture(scope="session")
def small_book_path(tmp_path_factory, ray_session) -> str:
    """A book from SMALL_ROOT to SMALL_PLY built by the real driver; treat as read-only."""
    from bookgen.builder.driver import build

    path = str(tmp_path_factory.mktemp("books") / "small.db")
    build(path, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=20)
    return path


@pytest.fixture()
def small_book_copy(small_book_path, tmp_path) -> str:
    """A private copy of the small book that a test may change."""
    path = str(tmp_path / "copy.db")
    shutil.copy(small_book_path, path)
    return path


# -- a brute force to compare the solver with ------------------------------------------

def win_now(ply):
    """Score of a player who wins with the stone they are about to play."""
    return (43 - ply) // 2


_MINIMAX = {}


def minimax(p):
    """Exact score by plain full-width minimax, no alpha-beta and no heuristics.

    Results are remembered per position key: that only saves repeating the
    same subtree reached by another move order, it prunes nothing.
    """
    key = p.key
    if key not in _MINIMAX:
        moves = p.legal_moves()
        if any(p.is_winning_move(c) for c in moves):
            score = win_now(p.ply)
        elif p.is_full:
            score = 0
        else:
            score = max(-minimax(p.play(c)) for c in moves)
        _MINIMAX[key] = score
    return _MINIMAX[key]


def random_endgames(count, seed, min_empty=4, max_empty=12):
    """Unfinished positions from random play, stopped 4-12 cells before the end."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        stop = 42 - rng.randint(min_empty, max_empty)
        p = Position()
        while p.ply < stop and not p.is_game_over:
            p = p.play(rng.choice(p.legal_moves()))
        if not p.is_game_over:
            found.append(p)
    return found

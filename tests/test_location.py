"""``bookgen.book.format.location``: with no book named, ./book.db, else the book installed with c4book.

The last test builds a wheel of the project, installs it into a fresh virtual
environment and asks it for the best opening move from an empty directory:
the wheel must carry the book.
"""

import json
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from bookgen import Book
from bookgen.book.format.location import BOOK_NAME, find_book, installed_books

PROJECT = Path(__file__).resolve().parent.parent
SHIPPED = PROJECT / "book.db"


def test_a_named_book_is_used_as_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert find_book("elsewhere.db") == "elsewhere.db"
    assert find_book("postgresql://host/db") == "postgresql://host/db"


def test_the_book_in_this_directory_comes_first(small_book_path, tmp_path, monkeypatch):
    shutil.copy(small_book_path, tmp_path / BOOK_NAME)
    monkeypatch.chdir(tmp_path)
    assert find_book(None) == BOOK_NAME
    with Book.open() as book:
        assert book.info.root == "44444433"  # the small book here, not the installed one


@pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")
def test_else_the_installed_book(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert installed_books()[0] == SHIPPED  # a checkout, or an editable install of it
    assert Path(find_book(None)) == SHIPPED
    with Book.open() as book:
        assert book.info.root == "" and book.get("").best_moves == (4,)


@pytest.mark.slow  # 10 s: builds and installs a wheel
@pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")
def test_an_installed_wheel_answers_from_its_own_book_in_any_directory(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(PROJECT), "--no-deps", "-q", "-w", str(wheels)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("c4book-*.whl")
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=300)
    python = env / "bin" / "python"
    # The dependencies come from this environment (no download); c4book only from the wheel.
    own = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(own, "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    result = subprocess.run(
        [str(env / "bin" / "c4book"), "query", "", "--json"],
        cwd=empty,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert (answer["source"], answer["score"], answer["best_moves"]) == ("book", 1, [4])
    where = subprocess.run(
        [
            str(python),
            "-c",
            "from bookgen.book.format.location import find_book; print(find_book(None))",
        ],
        cwd=empty,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(env)) and where.endswith("share/c4book/book.db")
    Path(where).unlink()  # no book anywhere: the error names the one looked for here
    result = subprocess.run(
        [str(env / "bin" / "c4book"), "query", ""],
        cwd=empty,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "c4book query: error: no book at 'book.db'\n"


def test_a_path_object_is_a_path_and_anything_else_is_named(tmp_path):
    from bookgen.book.format.location import book_location
    from solver.errors import ArgumentTypeError, C4Error

    path = tmp_path / "b.db"
    assert book_location(path) == find_book(path) == str(path)
    assert book_location("sqlite:///b.db") == "sqlite:///b.db"
    for bad in (123, None, b"b.db", ["b.db"]):
        with pytest.raises(
            ArgumentTypeError,
            match=re.escape(f"db must be a book's path or a SQLAlchemy URL, got {bad!r}"),
        ) as raised:
            book_location(bad)
        assert isinstance(raised.value, C4Error) and isinstance(raised.value, TypeError)


def test_databases_in_memory_are_told_apart_from_files():
    from bookgen.book.format.location import in_memory

    for db in (
        "",
        ":memory:",
        "sqlite://",
        "sqlite:///",
        "sqlite:///:memory:",
        "sqlite+pysqlite://",
        "sqlite:///:memory:?cache=shared",
    ):
        assert in_memory(db), db
    for db in (
        "book.db",
        "./:memory:",
        "sqlite:///book.db",
        "sqlite:////tmp/b.db",
        "postgresql://host/db",
        "memory",
    ):
        assert not in_memory(db), db

"""The packages ship their types (PEP 561): ``py.typed`` goes into what is installed, and a
user's type checker, outside the repository, reads the public API's annotations."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "bookgen")


def built_packages(tmp_path: Path) -> Path:
    """The packages as setuptools installs them (its build_py step, from pyproject.toml),
    built from a copy so that nothing is written into the checkout."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", *PACKAGES):
        (source / name).symlink_to(ROOT / name)
    lib = tmp_path / "lib"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import setuptools; setuptools.setup()",
            "-q",
            "build_py",
            "--build-lib",
            str(lib),
        ],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return lib


def test_every_package_ships_py_typed(tmp_path):
    lib = built_packages(tmp_path)
    assert [(lib / name / "py.typed").is_file() for name in PACKAGES] == [True, True]


USER = """\
from bookgen import Book, Player, build
from solver import Position, Solver

reveal_type(Solver().solve)
reveal_type(Book.open)
reveal_type(Player.best_move)
reveal_type(build)
wrong: str = Solver().solve(Position.from_moves("4453"))
"""


@pytest.mark.slow
def test_a_users_type_checker_reads_the_public_api(tmp_path):
    """mypy on a user's script, with c4book as an installed package beside it (a ``.pth``
    entry, as site-packages has): the API's types are seen, and a misuse is reported."""
    pytest.importorskip("mypy")
    lib = built_packages(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    (site / "c4book.pth").write_text(f"{lib}\n")
    user = tmp_path / "user"
    user.mkdir()
    (user / "app.py").write_text(USER)
    run = textwrap.dedent(
        f"""
        import site, sys
        from mypy import api
        site.addsitedir({str(site)!r})
        out, err, status = api.run(["--no-incremental", "app.py"])
        sys.stdout.write(out + err)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", run], cwd=user, capture_output=True, text=True, timeout=600
    )
    said = done.stdout
    assert "def (position: solver.position.Position | str, weak: bool =) -> int" in said, said
    assert ") -> bookgen.book.read.reader.Book" in said, said
    assert "moves: str | solver.position.Position) -> int" in said, said
    assert ") -> bookgen.builder.report.BuildSummary" in said, said
    assert 'Incompatible types in assignment (expression has type "int"' in said, said

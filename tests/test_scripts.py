"""The benchmark scripts under ``scripts/`` still run: each imports what it needs and
explains itself with ``--help`` (a script that broke when a module it borrows from
changed is found here, not on the day a figure is wanted)."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parent.parent / "scripts").glob("*.py"))


def test_there_are_scripts():
    assert {"bench_anytime.py", "bench_book.py", "bench_pair.py", "bench_web.py"} <= \
        {s.name for s in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_each_script_explains_itself(script):
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                          text=True, timeout=120, cwd=script.parent.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:")

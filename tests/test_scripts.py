"""The benchmark scripts under ``scripts/`` still run: each imports what it needs and
explains itself with ``--help`` (a script that broke when a module it borrows from
changed is found here, not on the day a figure is wanted)."""

import subprocess
import sys
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parent.parent / "scripts"
SCRIPTS = sorted(p for p in FOLDER.glob("*.py") if not p.name.startswith("_"))  # _args.py: shared


def test_there_are_scripts():
    assert {"bench_anytime.py", "bench_book.py", "bench_pair.py", "bench_web.py"} <= {
        s.name for s in SCRIPTS
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_each_script_explains_itself(script):
    done = subprocess.run(
        [sys.executable, str(script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=script.parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:")


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(FOLDER / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=FOLDER.parent,
    )


def test_check_args_parses_and_runs_nothing():
    done = run("bench_driver.py", "--check-args", "build", "--root", "4444", "--ply", "14")
    assert done.returncode == 0, done.stderr
    assert "'mode': 'build'" in done.stdout and "'ply': 14" in done.stdout
    bad = run("bench_pair.py", "--check-args", "--baseline", "HEAD", "--limit", "0")
    assert bad.returncode == 2 and "argument --limit: '0' is not at least 1" in bad.stderr


@pytest.mark.slow  # 14 s: builds two small books and times them
def test_bench_book_alone_and_against_an_older_schema(tmp_path):
    from conftest import PLY10, unseal

    alone = run("bench_book.py", "--db", str(PLY10), "--lookups", "100", "--rounds", "1")
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.splitlines()[1].split() == ["this"]  # no baseline column
    old = tmp_path / "old.db"
    old.write_bytes(PLY10.read_bytes())
    unseal(str(old), version=2)
    refused = run("bench_book.py", "--db", str(old), "--lookups", "100", "--rounds", "1")
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("bench_book.py: this revision cannot read --db: ")
    assert "schema version 2" in refused.stderr and len(refused.stderr.splitlines()) == 1
    if subprocess.run(
        ["git", "-C", str(FOLDER.parent), "cat-file", "-e", "cabe95d^{commit}"], capture_output=True
    ).returncode:
        pytest.skip("no cabe95d in this clone's history (a shallow clone)")
    # cabe95d's own book is schema 2: its own reader says which plies it holds.
    paired = run(
        "bench_book.py",
        "--baseline",
        "cabe95d",
        "--db",
        str(PLY10),
        "--lookups",
        "100",
        "--rounds",
        "1",
    )
    assert paired.returncode == 0, paired.stderr
    lines = paired.stdout.splitlines()
    assert lines[1].split() == ["this", "baseline", "ratio"]
    assert lines[-1].startswith("file (bytes/position)")
    assert float(lines[-1].split()[-2]) > 20  # schema 2: a row of about 27 bytes a position


def test_bench_grow_samples_a_ply_whose_parents_keep_best_moves():
    from conftest import PLY10

    done = run(
        "bench_grow.py", "--db", str(PLY10), "--count", "5", "--at", "0.5", "--table-log2", "20"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"ply 11 frontier of {PLY10}")  # the ply it grows next
    exact = done.stdout.splitlines()[-1].split("|")[1]
    assert exact.strip().endswith("%")
    refused = run("bench_grow.py", "--db", str(PLY10), "--ply", "10", "--count", "5")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        f"{PLY10} keeps no best moves at ply 9 (only its deepest ply does): its bounds at "
        "ply 10 would never be exact; leave out --ply for the ply this book grows next, or "
        "give a book whose deepest ply is 9"
    )


def test_the_readme_picture_shows_its_caption_and_the_shipped_book():
    # Issue 54: the picture captioned "The explorer at 4453" showed 363563 and said "every
    # position to ply 10".  scripts/shoot_explorer.py writes what it shows into the PNG.
    import re

    sys.path.insert(0, str(FOLDER))
    from shoot_explorer import PICTURE, POSITION, text_of

    from bookgen import Book

    root = FOLDER.parent
    facts = text_of(PICTURE.read_bytes())
    again = "run python scripts/shoot_explorer.py to draw it again"
    assert facts.get("c4book position") == POSITION, again
    readme = (root / "README.md").read_text()
    assert f"![The explorer at {POSITION}](docs/explorer.png)" in readme
    assert f"![The explorer at {POSITION}:" in (root / "docs" / "web.md").read_text()
    with Book.open(root / "book.db", compiled=False) as book:
        depth = book.info.max_ply
    shown = re.search(r"every position to ply (\d+)", facts.get("c4book summary", ""))
    assert shown is not None and int(shown[1]) == depth, again


LOG = """\
book /tmp/w/part-03-of-64.db: root (empty board), up to ply 14, part 3/64
searched 144,122 frontier positions in 17 batches (0 already stored), derived 0
nodes 1,575,427,149; wall 237.3 s; core 368.3 s
stopped early by SIGTERM: every finished batch is saved; run the same command again to resume
book /tmp/w/part-03-of-64.db: root (empty board), up to ply 14, part 3/64
searched 403,466 frontier positions in 29 batches (144,122 already stored), derived 0
nodes 2,963,469,984; wall 531.8 s; core 986.2 s
2026-11-28T15:46:21Z part-03-of-64.db done
book /tmp/w/part-04-of-64.db: root (empty board), up to ply 14, part 4/64
searched 1,000 frontier positions in 1 batches (0 already stored), derived 0
nodes 9,000,000,000; wall 1000.0 s; core 1000.0 s
"""


def test_parts_costs_sums_a_part_s_runs_and_keeps_only_parts_done(tmp_path):
    (tmp_path / "part-03-of-64.db").write_bytes(b"")  # the parts' folder holds part 3
    log = tmp_path / "run.log"
    log.write_text(LOG)
    done = run("parts_costs.py", str(tmp_path), "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "costs.tsv").read_text().splitlines() == [
        "part\tparts\tpositions\tnodes\twall\tcore\tdone",
        "3\t64\t547588\t4538897133\t769.1\t1354.5\t2026-11-28T15:46:21Z",
    ]  # part 4 is not done: not recorded
    assert "| 3-3 | 547,588 | 4.5 | 0.38 | 0.21 | 404 | 3.35 |" in done.stdout

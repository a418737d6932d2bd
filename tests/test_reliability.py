"""Fault injection against real Ray and real SQLite: every failure ends in the clean book."""

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from conftest import SMALL_ROOT, back_to_local_ray, small_build_args, wait_until
from conftest import entries as stored_entries

from bookgen import Book, BookError
from bookgen.builder.driver import build

PLY = 13  # 1,762 frontier positions from SMALL_ROOT: long enough to hit mid-build
C4BOOK = str(Path(sys.executable).with_name("c4book"))


def entries(path: str) -> list[tuple]:
    """``(key, ply, score, best_moves)`` of every entry, and each ply's segment blobs: a book
    built through faults must be the clean one, byte for byte where it is packed."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        segments = conn.execute("SELECT ply, count, data FROM segments ORDER BY ply").fetchall()
    return [*stored_entries(path), *segments]


def frontier_rows(path: str) -> int:
    try:
        # closing(): an idle connection left open would keep the book in WAL mode.
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as conn:
            return conn.execute("SELECT count(*) FROM positions WHERE ply=?", (PLY,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def frontier_solved(path: str) -> int:
    """Frontier positions stored, as rows or sealed: a fast build may seal its rows into a
    segment between two looks, and rows alone would then never show progress."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as conn:
            sealed = conn.execute(
                "SELECT coalesce(sum(count), 0) FROM segments WHERE ply=?", (PLY,)
            ).fetchone()[0]
    except sqlite3.OperationalError:
        sealed = 0
    return frontier_rows(path) + sealed


def build_command(path: str) -> list[str]:
    """``c4book build`` of the small book into ``path``, as a process of its own."""
    return [C4BOOK, *small_build_args(path, PLY, "--workers", "2", "--no-progress")]


def wait_for_rows(
    path: str, at_least: int = 1, timeout: float = 120, count_rows=frontier_rows
) -> int:
    return wait_until(
        lambda: (count := count_rows(path)) >= at_least and count,
        f"{at_least} frontier positions in {path}",
        timeout,
    )


@pytest.fixture(scope="module")
def clean_book(tmp_path_factory, ray_session) -> str:
    path = str(tmp_path_factory.mktemp("clean") / "clean.db")
    build(path, PLY, SMALL_ROOT, progress=False, table_log2=20)
    return path


def build_during(fault, path: str, clean_book: str, join_timeout: float) -> None:
    """Build while ``fault`` runs in a thread; the book must end up complete and clean."""
    thread = threading.Thread(target=fault, daemon=True)
    thread.start()
    summary = build(path, PLY, SMALL_ROOT, progress=False, table_log2=20)
    thread.join(timeout=join_timeout)
    assert summary.searched == 1762 and not summary.interrupted
    assert entries(path) == entries(clean_book)


def parent_of(pid: int) -> int:
    """The parent process's id, from /proc (0 once the process is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


def descends_from_us(pid: int) -> bool:
    while pid > 1:
        pid = parent_of(pid)
        if pid == os.getpid():
            return True
    return False


def solving_workers() -> list[int]:
    """This test session's Ray workers in a batch (its raylet is our child): never another
    build's on the same machine."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "cmdline").read_bytes().startswith(
                    b"ray::solve_batch"
                ) and descends_from_us(int(proc.name)):
                    pids.append(int(proc.name))
            except OSError:
                pass
    return pids


MARK = "C4BOOK_TEST_BUILD"  # in one test build's environment, and so in its Ray processes'


def start_marked(args: list[str]) -> tuple[subprocess.Popen, str]:
    """``args`` as a process of its own, with a marker no other process on this machine has."""
    marker = os.urandom(8).hex()
    process = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, MARK: marker},
    )
    return process, marker


def ray_processes(marker: str, driver: subprocess.Popen) -> dict[int, str]:
    """``{pid: command}`` of the live processes that the build holding ``marker`` started
    (``driver``, left out): each inherits its environment, also once it outlives the
    driver; other builds' and other tests' Ray processes never do."""
    wanted = f"{MARK}={marker}".encode()
    found = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != driver.pid:
            try:
                if wanted in (proc / "environ").read_bytes().split(b"\0"):
                    found[int(proc.name)] = (
                        (proc / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
                    )
            except OSError:
                pass  # gone meanwhile, or a zombie
    return found


def lock_rows(path: str) -> int:
    """The build lock's rows in the book (0 while there is no book yet)."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as conn:
            return conn.execute(
                "SELECT count(*) FROM meta WHERE name LIKE 'build_lock%'"
            ).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def assert_stopped_cleanly(driver: subprocess.Popen, marker: str, path: str, signum: int) -> str:
    """The build stopped by ``signum`` exits 128 + it, with its report and how to resume,
    releases its lock, folds its log back, leaves a book that opens, and no Ray process
    of its own behind.  Its stderr."""
    _, err = driver.communicate(timeout=120)
    assert driver.returncode == 128 + signum, err
    assert (
        f"stopped early by {signal.Signals(signum).name}: every finished batch is saved; "
        "run the same command again to resume" in err
    )
    assert err.startswith("book ") and "Traceback" not in err and "received" not in err, err
    assert lock_rows(path) == 0
    assert not Path(path + "-wal").exists()
    with Book.open(path):
        pass
    try:
        # ray.shutdown stops its processes without waiting for them: give them seconds.
        wait_until(lambda: not ray_processes(marker, driver), "Ray processes left", 20)
    finally:
        for pid in ray_processes(marker, driver):  # never left for the next test
            os.kill(pid, signal.SIGKILL)
    return err


def test_worker_killed_mid_batch_is_retried(clean_book, tmp_path, ray_session):
    path = str(tmp_path / "killed.db")
    killed = []

    def killer():
        # From the start, not after the first rows: on a fast machine the
        # first rows can come with the last batches, leaving none to kill.
        while not killed:
            for pid in solving_workers():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                break
            time.sleep(0.05)

    build_during(killer, path, clean_book, join_timeout=5)
    assert killed, "no worker was caught mid-batch"


@pytest.mark.slow  # (about a minute in CI; the worker-killed and Ctrl-C tests stay in the default run)
def test_driver_killed_leaves_a_sound_book_and_resumes_without_resolving(clean_book, tmp_path):
    path = str(tmp_path / "driver.db")
    args = build_command(path)
    driver = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Kill at the first write: with today's solver the batches after the first
    # small ones are big enough that waiting for 100 rows could see the last.
    wait_for_rows(path, at_least=1)
    driver.send_signal(signal.SIGKILL)
    driver.wait(timeout=30)
    stored = frontier_rows(path)
    assert 1 <= stored < 1762

    with Book.open(path) as book:  # quick_check passes and the metadata reads back
        assert PLY not in book.info.plies_complete

    rerun = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert f"searched {1762 - stored:,} frontier positions" in rerun.stderr
    assert f"({stored:,} already stored)" in rerun.stderr
    assert entries(path) == entries(clean_book)


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(clean_book, tmp_path):
    path = str(tmp_path / "sigint.db")
    args = build_command(path)
    driver, marker = start_marked(args)
    wait_for_rows(path, at_least=1)
    driver.send_signal(signal.SIGINT)
    assert_stopped_cleanly(driver, marker, path, signal.SIGINT)  # 130, the log folded back

    rerun = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert entries(path) == entries(clean_book)


@pytest.mark.slow  # 27 s: SIGTERM's exit and summary stay in the default run (below)
def test_sigterm_after_a_resume_fails_the_run_and_counts_what_was_stored(clean_book, tmp_path):
    """A job runner's stop (SIGTERM) is not a finished build: exit 143, the summary, and
    the frontier positions found stored when the stopped run resumed."""
    path = str(tmp_path / "sigterm.db")
    args = build_command(path)
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_rows(path, at_least=1)
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=60)
    stored = frontier_rows(path)
    assert 1 <= stored < 1762
    second, marker = start_marked(args)
    wait_for_rows(path, at_least=stored + 1)
    second.send_signal(signal.SIGTERM)
    err = assert_stopped_cleanly(second, marker, path, signal.SIGTERM)
    assert f"({stored:,} already stored)" in err


# -- a build stopped by a signal, in each of its steps ----------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_while_listing_never_starts_ray(tmp_path, signum):
    """A new book from the empty board to ply 11: seconds of listing, which a SIGTERM
    cuts short before any Ray starts (a closed terminal's SIGHUP once killed it outright)."""
    path = str(tmp_path / "listing.db")
    driver, marker = start_marked(
        [C4BOOK, "build", "--ply", "11", "--db", path, "--no-progress", "--table-log2", "20"]
    )
    wait_until(lambda: lock_rows(path), "the build's lock")  # it lists next
    driver.send_signal(signum)
    started_ray = False
    while driver.poll() is None:
        started_ray |= bool(ray_processes(marker, driver))
        time.sleep(0.05)
    err = assert_stopped_cleanly(driver, marker, path, signum)
    assert not started_ray and "wall by phase: list" in err and ", start " not in err


# SIGINT's handler is the same as SIGTERM's, and Ctrl-C is tested whole above: slow.
@pytest.mark.parametrize(
    "signum",
    [
        pytest.param(signal.SIGTERM, id="SIGTERM"),
        pytest.param(signal.SIGINT, id="SIGINT", marks=pytest.mark.slow),
    ],
)
def test_a_stop_while_ray_starts_shuts_it_down(tmp_path, signum):
    """Ray's start once let SIGTERM exit at once (status 15, no report) and left Ray's
    agents running."""
    path = str(tmp_path / "starting.db")
    driver, marker = start_marked(build_command(path))
    wait_until(
        lambda: any("raylet" in c for c in ray_processes(marker, driver).values()), "Ray starting"
    )
    driver.send_signal(signum)
    err = assert_stopped_cleanly(driver, marker, path, signum)
    assert "searched 0 frontier positions" in err


# SIGINT's handler is the same as SIGTERM's, and Ctrl-C is tested whole above: slow.
@pytest.mark.parametrize(
    "signum",
    [
        pytest.param(signal.SIGTERM, id="SIGTERM"),
        pytest.param(signal.SIGINT, id="SIGINT", marks=pytest.mark.slow),
    ],
)
def test_a_stop_after_the_search_seals_and_derives_nothing_half(clean_book, tmp_path, signum):
    """After the frontier, Ray shut down, the driver seals and derives: a SIGTERM there once
    killed it outright (its lock row and -wal left).  A reader's write lock holds the driver
    at its first write after Ray (a few milliseconds of sealing, else) while the signal comes."""
    path = str(tmp_path / "sealing.db")
    args = build_command(path)
    driver, marker = start_marked(args)
    wait_for_rows(path, at_least=1762, count_rows=frontier_solved)
    reader = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        reader.execute("BEGIN IMMEDIATE")
        wait_until(lambda: not ray_processes(marker, driver), "Ray shut down", 30)
        assert driver.poll() is None  # waiting to write, past Ray
        driver.send_signal(signum)
        time.sleep(0.5)
    finally:
        reader.close()  # the lock and the connection go at once: an open one keeps the -wal
    err = assert_stopped_cleanly(driver, marker, path, signum)
    assert "searched 1,762 frontier positions" in err

    rerun = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert entries(path) == entries(clean_book)


def test_build_help_names_the_exit_statuses():
    shown = subprocess.run(
        [C4BOOK, "build", "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    assert "exits 130 (Ctrl-C), 143 (SIGTERM) or 129 (SIGHUP); a failure exits 1" in " ".join(
        shown.split()
    )


def test_a_reader_holding_a_lock_makes_the_build_wait(clean_book, tmp_path, ray_session):
    path = str(tmp_path / "locked.db")
    held = threading.Event()

    def hold_lock():
        wait_for_rows(path)
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN EXCLUSIVE")
        held.set()
        time.sleep(3)
        conn.execute("COMMIT")
        conn.close()

    build_during(hold_lock, path, clean_book, join_timeout=10)
    assert held.is_set()


def test_an_unwritable_path_is_a_clear_error(tmp_path):
    with pytest.raises(BookError, match="cannot write a book at"):
        build("/proc/c4book-test.db", 10, SMALL_ROOT, progress=False)
    with pytest.raises(BookError):
        build(str(tmp_path / "no" / "such" / "dir.db"), 10, SMALL_ROOT, progress=False)


def test_cli_reports_bad_input_in_one_line(tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a book\n")
    cases = [
        (["--root", "4x", "--ply", "10"], "illegal move 'x'"),
        (["--root", SMALL_ROOT, "--ply", "7"], "--ply 7 must be between"),
        (["--root", SMALL_ROOT, "--ply", "43"], "--ply 43 must be between"),
        (["--root", SMALL_ROOT, "--ply", "10", "--address", "no-port"], "malformed --address"),
        (["--root", SMALL_ROOT, "--ply", "10", "--db", str(text_file)], "not a SQLite file"),
    ]
    for extra, message in cases:
        db = [] if "--db" in extra else ["--db", str(tmp_path / "x.db")]
        result = subprocess.run(
            [C4BOOK, "build", *extra, *db], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 1, (extra, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("c4book build: error:"), result.stderr
        assert message in lines[0]
    assert not (tmp_path / "x.db").exists()
    assert text_file.read_text() == "not a book\n"


# tests/test_multihost.py kills whole hosts mid-build by default: this one-host twin is slow.
@pytest.mark.slow
def test_node_removed_mid_build_completes_on_the_rest(clean_book, tmp_path, ray_session):
    import ray
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        worker_node = cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
        path = str(tmp_path / "node.db")
        removed = threading.Event()

        def remove_node():
            wait_for_rows(path, at_least=100, count_rows=frontier_solved)
            cluster.remove_node(worker_node)
            removed.set()

        build_during(remove_node, path, clean_book, join_timeout=60)
        assert removed.is_set()
    finally:
        back_to_local_ray(cluster)

"""``bookgen.book.write.lock``: one writer (a build, a pack) at a time per book, and never a lock
outliving its holder.

Builds are real: a ``c4book build`` process, and the in-process driver on the
session's Ray.  Lock holders that get killed are real processes too.
"""

import json
import os
import signal
import socket
import sqlite3
import subprocess
import time
from contextlib import closing

import pytest
from conftest import SMALL_PLY, SMALL_ROOT, c4book_command, run_sql, serving

from bookgen.book.format.database import make_engine
from bookgen.book.write import lock as build_lock
from bookgen.book.write.lock import STALE_SECONDS, BuildLock, BuildLockedError, LockOwner, read_lock
from bookgen.builder.driver import build

HOLD_THE_LOCK = """
    import os, sys
    from bookgen.book.write.store import make_engine
    from bookgen.book.write.lock import BuildLock
    with BuildLock(make_engine(sys.argv[1]), sys.argv[1]):
        print(os.getpid(), flush=True)
        sys.stdin.read()
"""


def lock_row(path: str) -> dict | None:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as conn:
        row = conn.execute("SELECT value FROM meta WHERE name = 'build_lock'").fetchone()
    return None if row is None else json.loads(row[0])


def entries(path: str) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """Every stored entry as it is stored: rows, segments, and sealed plies (each ply's
    index row and its blocks' chunks)."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return (
            conn.execute("SELECT * FROM positions ORDER BY key").fetchall(),
            conn.execute("SELECT * FROM sealed_plies ORDER BY ply").fetchall(),
            conn.execute("SELECT * FROM segments ORDER BY id").fetchall()
            + conn.execute("SELECT * FROM block_chunks ORDER BY id").fetchall(),
        )


def holder(path: str):
    """A real process that holds the lock of ``path`` until its stdin closes."""
    return serving(HOLD_THE_LOCK.replace("sys.argv[1]", repr(path)), dict(os.environ))


def test_a_second_build_is_refused_at_once_naming_the_running_one(tmp_path):
    path = str(tmp_path / "busy.db")
    # Ply 14: long enough (about 15 s) that the first is still building when stopped.
    args = [
        *c4book_command(),
        "build",
        "--root",
        SMALL_ROOT,
        "--ply",
        "14",
        "--db",
        path,
        "--no-progress",
        "--table-log2",
        "18",
    ]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the lock is taken before Ray starts
            try:
                if lock_row(path):
                    break
            except sqlite3.Error:
                pass
            time.sleep(0.1)
        started = time.monotonic()
        second = subprocess.run(args, capture_output=True, text=True, timeout=60)
        seconds = time.monotonic() - started
    finally:
        first.send_signal(signal.SIGINT)  # Ctrl-C: the first stops cleanly, Ray included
        _, first_err = first.communicate(timeout=120)
    assert first.returncode in (0, 130), first_err
    assert second.returncode == 1 and "Traceback" not in second.stderr
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1, second.stderr
    assert "is being built by another c4book build" in lines[0]
    assert f"host {socket.gethostname()}, pid {first.pid}, since " in lines[0]
    assert seconds < 15  # refused at once: it never started Ray
    assert lock_row(path) is None  # the first let go as it stopped


def test_a_killed_holder_never_blocks_the_resume(small_book_copy, ray_session):
    with holder(small_book_copy) as held:
        with pytest.raises(BuildLockedError, match=f"pid {held.first_line}, since"):
            build(small_book_copy, SMALL_PLY, SMALL_ROOT, progress=False)
        held.process.send_signal(signal.SIGKILL)
        held.process.wait(timeout=30)
    assert lock_row(small_book_copy)["pid"] == int(held.first_line)  # left behind
    summary = build(small_book_copy, SMALL_PLY, SMALL_ROOT, progress=False)
    assert summary.already_stored == 574 and not summary.interrupted
    assert lock_row(small_book_copy) is None


def test_a_lock_from_another_host_counts_while_its_heartbeat_is_fresh(small_book_copy, ray_session):
    before = entries(small_book_copy)
    assert len(before[1]) == 5  # the small book: five sealed plies
    now = time.time()

    def write_lock(heartbeat: float) -> None:
        owner = LockOwner("build-node-7", 4242, now - 3600, heartbeat, None)
        run_sql(
            small_book_copy,
            "DELETE FROM meta WHERE name = 'build_lock'",
            f"INSERT INTO meta VALUES ('build_lock', '{owner.to_json()}')",
        )

    write_lock(heartbeat=now - 5)
    with pytest.raises(
        BuildLockedError, match=r"host build-node-7, pid 4242, since .*last heartbeat [5-9] s ago"
    ):
        build(small_book_copy, SMALL_PLY, SMALL_ROOT, progress=False)
    assert entries(small_book_copy) == before

    write_lock(heartbeat=now - STALE_SECONDS - 1)  # that driver died long ago
    summary = build(small_book_copy, SMALL_PLY, SMALL_ROOT, progress=False)
    assert summary.already_stored == 574
    assert lock_row(small_book_copy) is None


def test_the_heartbeat_moves_and_release_removes_the_row(small_book_copy, monkeypatch):
    monkeypatch.setattr(build_lock, "HEARTBEAT_SECONDS", 0.05)
    engine = make_engine(small_book_copy)
    try:
        with BuildLock(engine, small_book_copy) as lock:
            first = read_lock(engine)
            assert first == lock.owner and first.pid == os.getpid()
            time.sleep(0.5)
            later = read_lock(engine)
            assert later.since == first.since and later.heartbeat > first.heartbeat
        assert read_lock(engine) is None
    finally:
        engine.dispose()


def test_two_locks_in_one_book_cannot_both_be_held(small_book_copy):
    engine = make_engine(small_book_copy)
    try:
        with (
            BuildLock(engine, small_book_copy),
            pytest.raises(BuildLockedError, match=f"pid {os.getpid()}"),
        ):
            BuildLock(engine, small_book_copy).acquire()
        with BuildLock(engine, small_book_copy):  # free again once released
            pass
    finally:
        engine.dispose()


def test_a_pack_holding_the_book_is_named_and_a_reader_from_before_still_sees_a_lock(
    small_book_copy,
):
    engine = make_engine(small_book_copy)
    try:
        with BuildLock(engine, small_book_copy, "pack"):
            owner = read_lock(engine)
            assert owner.command == "pack" and owner.pid == os.getpid()
            with pytest.raises(
                BuildLockedError,
                match=f"is being written by c4book pack \\(host .*, pid {os.getpid()}, since",
            ):
                BuildLock(engine, small_book_copy).acquire()
            # The lock row has the keys a c4book from before the command row reads: to it,
            # a lock (it made a LockOwner of exactly these, and an unreadable row no lock).
            row = lock_row(small_book_copy)
            assert sorted(row) == ["heartbeat", "host", "pid", "process_start", "since"]
        assert read_lock(engine) is None
        with closing(sqlite3.connect(small_book_copy)) as conn:  # both rows gone
            assert (
                conn.execute("SELECT name FROM meta WHERE name LIKE 'build_lock%'").fetchall() == []
            )
    finally:
        engine.dispose()


def test_a_command_row_names_only_the_owner_it_was_written_for():
    owner = LockOwner("build-node-7", 4242, 1.0, 2.0, None, "pack")
    assert LockOwner.from_json(owner.to_json(), owner.command_json()) == owner
    assert LockOwner.from_json(owner.to_json()).command == "build"  # no command row
    later = LockOwner("build-node-7", 4242, 9.0, 9.0, None)  # a build that took it over
    assert LockOwner.from_json(later.to_json(), owner.command_json()).command == "build"
    assert LockOwner.from_json(owner.to_json(), "not json").command == "build"
    with_more = json.dumps({**json.loads(owner.to_json()), "added_later": 1})
    assert LockOwner.from_json(with_more) == LockOwner("build-node-7", 4242, 1.0, 2.0, None)


def test_a_recycled_pid_is_not_the_owner():
    me = LockOwner.me()
    assert me.is_alive()
    assert not LockOwner(me.host, me.pid, me.since, me.heartbeat, "1").is_alive()
    with subprocess.Popen(["true"]) as gone:
        gone.wait()
    assert not LockOwner(me.host, gone.pid, me.since, me.heartbeat, None).is_alive()

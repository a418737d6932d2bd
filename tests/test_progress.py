"""``bookgen.progress``: tqdm's bar on a terminal, plain lines anywhere else (a log, a
Ray job's log)."""

import io
import os

import pytest

from bookgen import progress
from bookgen.progress import progress_bar


def test_off_a_terminal_each_update_is_a_line(monkeypatch):
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)  # every update shown
    log = io.StringIO()
    with progress_bar(total=3, desc="ply 9 frontier", unit="pos", file=log) as bar:
        for _ in range(3):
            bar.update(1)
    text = log.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[0].startswith("ply 9 frontier:   0%|") and "| 0/3 " in lines[0]
    assert lines[-1].startswith("ply 9 frontier: 100%|##########| 3/3 ")
    assert all(line == line.rstrip() and line for line in lines)  # no padding, no blank line


def test_off_a_terminal_lines_come_at_most_every_log_seconds():
    log = io.StringIO()
    with progress_bar(range(1000), desc="plies", file=log) as bar:
        for _ in bar:
            pass
    assert len(log.getvalue().splitlines()) == 2  # the first and the last


def test_a_terminal_keeps_the_redrawn_bar():
    reader, writer = os.openpty()
    with (
        os.fdopen(writer, "w") as terminal,
        progress_bar(total=2, desc="export", file=terminal) as bar,
    ):
        bar.update(2)
    os.set_blocking(reader, False)
    shown = b""
    while chunk := _read(reader):
        shown += chunk
    os.close(reader)
    shown = shown.decode()
    assert "\r" in shown and "export: 100%" in shown


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # nothing more (EAGAIN), or the terminal closed (EIO)
        return b""


def test_disabled_says_nothing():
    log = io.StringIO()
    with progress_bar(total=2, desc="x", file=log, disable=True) as bar:
        bar.update(2)
    assert log.getvalue() == ""


def test_a_slow_wait_says_what_it_waits_for(monkeypatch):
    import time

    from bookgen.progress import notice_if_slow

    monkeypatch.setattr(progress, "NOTICE_SECONDS", 0.05)
    log = io.StringIO()
    with notice_if_slow("compiling", log):
        pass  # quick: nothing said
    time.sleep(0.2)
    assert log.getvalue() == ""
    with notice_if_slow("compiling", log):
        time.sleep(0.3)
    assert log.getvalue() == "compiling\n"
    with notice_if_slow("searching", log, seconds=0.5):  # a wait given its own time
        time.sleep(0.3)
    assert log.getvalue() == "compiling\n"


@pytest.mark.slow
def test_a_first_move_that_compiles_says_so(tmp_path):
    # Issue 54: `c4book move` waited 14-30 s in silence the first time.
    import subprocess

    from conftest import c4book_command

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}  # compiled afresh
    result = subprocess.run(
        [*c4book_command(), "move", "4453", "--no-book"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "searching (the first search after an install" in result.stderr, result.stderr
    assert result.stdout.startswith("3  (search, score -2, "), result.stdout

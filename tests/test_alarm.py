"""``solver.alarm``: one thread that rings at deadlines."""

import threading
import time

from solver.alarm import Alarm


def test_rings_at_the_deadline():
    alarm, rang = Alarm(), threading.Event()
    started = time.perf_counter()
    alarm.set(started + 0.05, rang.set)
    assert rang.wait(5)
    assert time.perf_counter() - started >= 0.05


def test_cancel_comes_first():
    alarm, rang = Alarm(), []
    alarm.set(time.perf_counter() + 0.05, lambda: rang.append(1))
    alarm.cancel()
    time.sleep(0.15)
    assert rang == []


def test_a_new_deadline_replaces_the_old_one():
    alarm, rang = Alarm(), []
    now = time.perf_counter()
    alarm.set(now + 0.05, lambda: rang.append("old"))
    alarm.set(now + 0.1, lambda: rang.append("new"))
    time.sleep(0.4)
    assert rang == ["new"]
    threads = [t for t in threading.enumerate() if t.name == "c4book-alarm"]
    assert len(threads) >= 1  # one long-lived thread per alarm, not one per deadline


def test_a_deadline_past_what_a_wait_takes_keeps_the_alarm_alive():
    alarm, rang = Alarm(), threading.Event()
    alarm.set(time.perf_counter() + 1e300, lambda: None)  # a wait of 1e300 s would raise
    time.sleep(0.05)
    alarm.set(time.perf_counter() + 0.01, rang.set)
    assert rang.wait(5)

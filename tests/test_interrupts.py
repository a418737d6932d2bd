"""``bookgen.builder.interrupts``: Ctrl-C and SIGTERM become a stop request, the second one stops at once."""

import os
import signal

import pytest

from bookgen.builder.interrupts import (
    WITH_HANGUP,
    Stopped,
    graceful_interrupts,
    signals_as_interrupts,
    stop_status,
)
from bookgen.builder.report import BuildSummary


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_first_signal_asks_the_second_interrupts(signum, status):
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with graceful_interrupts() as stop:
        assert not stop.is_set() and stop.signal is None
        os.kill(os.getpid(), signum)
        assert stop.is_set() and stop.signal == signum and stop.exit_status == status
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert {s: signal.getsignal(s) for s in before} == before  # put back as they were


def test_check_raises_only_once_a_stop_was_asked():
    with graceful_interrupts() as stop:
        stop.check()
        os.kill(os.getpid(), signal.SIGTERM)
        with pytest.raises(KeyboardInterrupt) as raised:
            stop.check()
    assert stop_status(raised.value) == ("interrupted by SIGTERM", 143)


def test_a_merge_s_stop_takes_sighup_too():
    before = signal.getsignal(signal.SIGHUP)
    with graceful_interrupts(WITH_HANGUP) as stop:
        os.kill(os.getpid(), signal.SIGHUP)
        assert stop.signal == signal.SIGHUP and stop.exit_status == 129
    assert signal.getsignal(signal.SIGHUP) == before


@pytest.mark.parametrize(
    "signum, said, status",
    [
        (signal.SIGTERM, "interrupted by SIGTERM", 143),
        (signal.SIGHUP, "interrupted by SIGHUP", 129),
        (signal.SIGINT, "interrupted", 130),  # Python's own KeyboardInterrupt
    ],
)
def test_signals_as_interrupts_raise_at_once_naming_the_signal(signum, said, status):
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    # Python's own SIGINT handler, even where the test runs in a background job, whose
    # shell started it with SIGINT ignored.
    sigint = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with signals_as_interrupts(), pytest.raises(KeyboardInterrupt) as raised:
            os.kill(os.getpid(), signum)  # its handler raises as this call returns
    finally:
        signal.signal(signal.SIGINT, sigint)
    assert isinstance(raised.value, Stopped) == (signum != signal.SIGINT)
    assert stop_status(raised.value) == (said, status)
    assert {s: signal.getsignal(s) for s in before} == before  # put back as they were


def test_arm_takes_the_handlers_back_from_whoever_replaced_them():
    with graceful_interrupts() as stop:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # as ray.init installs its own
        stop.arm()
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.signal == signal.SIGTERM


def test_the_report_names_the_signal_and_the_exit_status_follows_it():
    summary = BuildSummary(root="", ply=3, db="x.db")
    assert summary.exit_status == 0
    summary.interrupted, summary.stopped_by = True, signal.SIGTERM
    assert summary.exit_status == 143
    assert (
        "stopped early by SIGTERM: every finished batch is saved; run the same command "
        "again to resume"
    ) in summary.report()
    summary.stopped_by = None  # a KeyboardInterrupt that came through no handler
    assert summary.exit_status == 130 and "stopped early: every" in summary.report()


def test_a_stop_during_the_writers_drain_says_what_it_left_unwritten():
    summary = BuildSummary(root="", ply=3, db="x.db", interrupted=True, unwritten=20_000)
    assert (
        "stopped early: every finished batch is saved but the last 20,000 positions searched "
        "(stopped again while writing); run the same command again to resume"
    ) in summary.report()

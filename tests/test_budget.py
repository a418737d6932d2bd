"""``solver.budget``: the anytime search's time and node budget, in phases."""

import time

import numpy as np
import pytest

from solver import Position, Solver
from solver import _evaluate as ev
from solver.alarm import Alarm
from solver.budget import BudgetClock

HARD = Position.from_moves("4772351625")  # weak solve: about 108,000 nodes on a fresh table


@pytest.fixture
def solver():
    return Solver(table_log2=20)


def clock_for(solver, seconds=None, nodes=None):
    return BudgetClock(
        solver, np.zeros(ev.scratch_size(solver.board), dtype=np.uint64), Alarm(), seconds, nodes
    )


def test_a_phase_ends_at_its_share_of_the_nodes(solver):
    clock = clock_for(solver, nodes=10_000)
    assert clock.phase(0.3)
    assert clock.node_limit() == 3_000
    assert clock.node_limit(cap=500) == 500
    assert clock.solve(HARD, -1, 1) is None  # stopped at 3,000 nodes
    assert 3_000 <= clock.used <= 3_001
    assert not clock.phase(0.3)  # already spent
    assert clock.stopped
    assert clock.phase(0.5) and clock.node_limit() == 5_000 - clock.used


def test_a_search_within_its_cap_gives_the_exact_answer(solver):
    clock = clock_for(solver, nodes=1_000_000)
    assert clock.phase(1.0)
    easy = HARD.play(4)  # a win for its player to move, in about 21,000 nodes
    assert clock.solve(easy, -1, 1, cap=100_000) == 1
    assert 0 < clock.used < 100_000
    assert clock.solve(HARD, -1, 1, cap=1_000) is None


def test_no_phase_means_no_node_limit(solver):
    clock = clock_for(solver, nodes=1_000)
    assert clock.phase(None)
    assert clock.node_limit() is None
    assert clock.solve(HARD, -1, 1) == 1  # the full weak solve, past the budget
    assert clock.used > 1_000


def test_the_alarm_stops_a_running_search_at_the_deadline(solver):
    clock = clock_for(solver, seconds=0.01)
    slow = Position.from_moves("")  # the empty board: minutes of search
    assert clock.phase(1.0)
    started = time.perf_counter()
    assert clock.solve(slow, -1, 1) is None
    assert time.perf_counter() - started < 2
    assert clock.stopped
    clock.disarm()
    assert not clock.stopped
    assert clock.scratch[ev.STOP_REQUEST] == 0


def test_a_phase_whose_deadline_has_passed_is_refused(solver):
    clock = clock_for(solver, seconds=0.01)
    clock.started -= 1.0  # the budget began a second ago
    assert not clock.phase(0.5)
    assert clock.stopped
    assert clock.solve(HARD, -1, 1) is None
    assert clock.used == 0

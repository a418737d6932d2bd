"""``BudgetClock``: a time and node budget shared by the anytime search's steps.

The steps run in phases, each ending at a share of the budget (a
checkpoint).  Time is enforced by an alarm that stops the running kernel;
nodes, by the solver's node limit and the evaluation's own counter.
"""

from __future__ import annotations

import time

import numpy as np

from . import _evaluate as ev
from .alarm import Alarm
from .engine import Solver
from .errors import SearchLimitError
from .position import Position


class BudgetClock:
    """A time and node budget, with an alarm that stops running searches at checkpoints.

    The kernels release the GIL, so the alarm's thread can stop them: it
    lowers the solver's node limit to one and raises the evaluation's stop flag.
    ``scratch`` is the evaluation search's (``_evaluate``).
    """

    def __init__(
        self,
        solver: Solver,
        scratch: np.ndarray,
        alarm: Alarm,
        seconds: float | None,
        nodes: int | None,
        started: float | None = None,
    ):
        self.solver, self.scratch, self.alarm = solver, scratch, alarm
        self.started = time.perf_counter() if started is None else started
        self.seconds, self.nodes = seconds, nodes
        self.used = 0
        self.stopped = False
        self._node_end: int | None = None

    def phase(self, share: float | None) -> bool:
        """Arm the checkpoint at ``share`` of the budget (``None``: no end).

        False, and ``stopped``, if the checkpoint is already past.
        """
        self.disarm()
        if share is None:
            self._node_end = None
            return True
        self._node_end = None if self.nodes is None else int(share * self.nodes)
        if self._node_end is not None and self.used >= self._node_end:
            self.stopped = True
            return False
        if self.seconds is not None:
            deadline = self.started + share * self.seconds
            if deadline <= time.perf_counter():
                self.stopped = True
                return False
            self.alarm.set(deadline, self._ring)
        return True

    def _ring(self) -> None:
        self.stopped = True
        self.solver.set_node_limit(1)
        self.scratch[ev.STOP_REQUEST] = 1

    def disarm(self) -> None:
        self.alarm.cancel()
        self.stopped = False
        self.scratch[ev.STOP_REQUEST] = 0
        self.solver.set_node_limit(None)

    def node_limit(self, cap: int | None = None) -> int | None:
        """Nodes the next search may use: the phase's rest, within ``cap``."""
        limits = [] if cap is None else [cap]
        if self._node_end is not None:
            limits.append(self._node_end - self.used)
        return min(limits) if limits else None

    def solve(self, position: Position, low: int, high: int, cap: int | None = None) -> int | None:
        """``solver.solve_window``, or ``None`` when the phase or ``cap`` ends first."""
        limit = self.node_limit(cap)
        if self.stopped or (limit is not None and limit <= 0):
            return None
        before = self.solver.nodes
        self.solver.set_node_limit(limit)
        try:
            if self.stopped:
                return None
            return self.solver.solve_window(position, low, high)
        except SearchLimitError:
            return None
        finally:
            self.used += self.solver.nodes - before

"""A solver in a process of its own, a position a line: ours, or an outside solver's driver.

``bench_wide.py`` times ours against Steininger's this way, and ``solve_boards.py
--reach`` stops a solve that runs past its cap: each side is a process kept for
a whole run (its kernels loaded once, its table cleared before each position),
and a position that takes too long stops the process, which starts again for
the next.
"""

from __future__ import annotations

import select
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).resolve().parent

# Our side, a process like his: a line of moves in, "moves score nodes seconds" out.
OURS = """\
import sys, time
sys.path.insert(0, {scripts!r})
from solve_boards import warm_up
from solver import Board, Position, Solver
board, table_log2 = Board.parse(sys.argv[1]), int(sys.argv[2])
warm_up(board)  # kernels loaded, not timed
solver = Solver(board=board, table_log2=table_log2)
print("ready", flush=True)
for line in sys.stdin:
    moves = line.strip()
    position = Position.from_moves(moves, board)
    solver.clear()
    solver.reset_nodes()
    started = time.perf_counter()
    score = solver.solve(position)
    seconds = time.perf_counter() - started
    print(moves, score, solver.nodes, seconds, flush=True)
"""


class Side:
    """A solver process that answers one position a line."""

    def __init__(self, command: list[str], ready: bool):
        self.command, self.ready = command, ready
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        if self.ready:
            self._line(None)

    def _line(self, timeout: float | None) -> str | None:
        assert self.process is not None and self.process.stdout is not None
        if timeout is not None:
            ready, _, _ = select.select([self.process.stdout], [], [], timeout)
            if not ready:
                return None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.command[0]} ended (status {self.process.wait()})")
        return line

    def solve(self, moves: str, timeout: float | None = None) -> list[str] | None:
        """The answer's fields; None past ``timeout`` seconds (the process is then
        stopped, and started again for the next position)."""
        if self.process is None:
            self.start()
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(moves + "\n")
        self.process.stdin.flush()
        line = self._line(timeout)
        if line is None:
            self.stop()
            return None
        fields = line.split()
        if fields[0] != moves:
            raise RuntimeError(f"{self.command[0]} answered {line!r} for {moves!r}")
        return fields

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def exit_on_sigterm() -> None:
    """Make SIGTERM a ``SystemExit``: a killed run's ``finally`` then stops its sides'
    processes, which would otherwise go on solving after it."""
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))


def our_side(board, table_log2: int) -> Side:
    """Our solver on ``board`` (a ``Board`` or its name), one thread, ``2**table_log2`` words."""
    script = OURS.format(scripts=str(SCRIPTS))
    return Side([sys.executable, "-c", script, str(board), str(table_log2)], ready=True)

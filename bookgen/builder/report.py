"""What a build did: counts, cost and timings, and the report printed at its end."""

from __future__ import annotations

import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class BuildSummary:
    root: str
    ply: int
    db: str
    # ``None``: unknown, the book could not be read at the end (its server gone)
    positions_per_ply: dict[int, int] | None = field(default_factory=dict)
    searched: int = 0  # frontier positions solved by this run
    already_stored: int = 0  # frontier positions found in the book
    frontier: int = 0  # positions at the last ply
    derived: int = 0  # shallower positions scored from their children
    nodes: int = 0
    core_seconds: float = 0.0
    wall_seconds: float = 0.0
    batches: int = 0
    bounded: int = 0  # searched positions whose parents' entries bound the score
    exact: int = 0  # of which the score was exact, leaving only the best moves
    layout: str = ""  # how the frontier's solvers ran, once Ray is up
    solvers: int = 0  # solver threads in all, once Ray is up
    unwritten: int = 0  # searched, but a second stop came before they were written
    interrupted: bool = False
    stopped_by: int | None = None  # the signal that stopped it early: SIGINT or SIGTERM
    # wall seconds per phase: listing, starting Ray, solving the frontier
    # (of which writing batches, or handing them to the writer's thread, and
    # waiting for it to drain; and when its first batch came back, workers
    # started and kernels loaded), deriving shallower plies; "written": the
    # writer's thread writing, behind the loop (``book.write.writer``)
    timings: dict[str, float] = field(default_factory=dict)
    # the same phases' CPU seconds of the thread running them: the main loop's, but
    # "written", the writer's thread's
    driver_cpu: dict[str, float] = field(default_factory=dict)
    board: str = "7x6"
    part: str | None = None  # "I/K": the part of the frontier this build searched

    @property
    def exit_status(self) -> int:
        """0 when the build finished; 128 + the signal's number when one stopped it."""
        if not self.interrupted:
            return 0
        return 128 + (self.stopped_by or signal.SIGINT)

    def report(self) -> str:
        board = "" if self.board == "7x6" else f"{self.board} board, "
        lines = [
            f"book {self.db}: {board}root {self.root or '(empty board)'}, up to ply {self.ply}"
            + (f", part {self.part}" if self.part else "")
        ]
        if self.positions_per_ply is None:
            lines.append("  positions per ply unknown: the book could not be read at the end")
        else:
            lines.append("  ply  positions")
            for ply, count in self.positions_per_ply.items():
                lines.append(f"  {ply:>3}  {count:>9,}")
            lines.append(f"  total {sum(self.positions_per_ply.values()):,} positions")
        lines.append(
            f"searched {self.searched:,} frontier positions in {self.batches:,} batches "
            f"({self.already_stored:,} already stored), derived {self.derived:,}"
        )
        if self.bounded:
            lines.append(
                f"bounded by the ply above: {self.bounded:,} "
                f"(exact: {self.exact:,}, searched for best moves only)"
            )
        if self.layout:
            lines.append(f"solvers: {self.layout}")
        lines.append(
            f"nodes {self.nodes:,}; wall {self.wall_seconds:.1f} s; core {self.core_seconds:.1f} s"
        )
        if self.timings:
            t = self.timings
            phases = [
                f"{name} {t[name]:.1f} s" for name in ("list", "start", "frontier") if name in t
            ]
            notes = (
                [f"first batch back after {t['first batch']:.1f} s"] if "first batch" in t else []
            )
            if "written" in t:
                notes.append(f"writing {t['written']:.1f} s behind the loop")
            elif "writes" in t:
                notes.append(f"writing {t['writes']:.1f} s")
            if notes:
                phases[-1] += f" ({'; '.join(notes)})"
            phases += [f"{name} {t[name]:.1f} s" for name in ("seal", "derive") if name in t]
            lines.append("wall by phase: " + ", ".join(phases))
        if self.part and not self.interrupted:
            lines.append(
                f"part {self.part} of ply {self.ply}: its {self.frontier:,} frontier positions "
                "are stored; once every part is, gather them into one book (c4book merge "
                f"--db BOOK PART.db ...) and run c4book build --ply {self.ply} --db BOOK: "
                "it seals the ply and derives the plies above"
            )
        if self.interrupted:
            by = f" by {signal.Signals(self.stopped_by).name}" if self.stopped_by else ""
            saved = (
                f"every finished batch is saved but the last {self.unwritten:,} positions "
                "searched (stopped again while writing)"
                if self.unwritten
                else "every finished batch is saved"
            )
            lines.append(f"stopped early{by}: {saved}; run the same command again to resume")
        return "\n".join(lines)


@contextmanager
def timed(timings: dict[str, float], name: str, cpu: dict[str, float] | None = None):
    """Add the block's wall seconds to ``timings[name]``, and the CPU seconds of the thread
    running it (the driver's main loop: what bounds the positions a second it can feed) to
    ``cpu[name]``."""
    start, thread_start = time.perf_counter(), time.thread_time()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
        if cpu is not None:
            cpu[name] = cpu.get(name, 0.0) + time.thread_time() - thread_start

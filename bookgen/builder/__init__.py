"""Building a book on Ray: list -> stream -> solve -> write -> derive.

``listing`` lists every position up to a ply as sorted packed keys;
``missing`` streams the frontier's keys the book lacks; ``schedule`` sends
them to ``worker`` tasks in batches (each position solved by
``solve_position``) and writes what comes back; ``derive`` scores the
shallower plies from their children.  ``driver.build`` runs these steps in
order, with its settings checked once into a ``config.BuildConfig``, under
the book's write lock (``book.write.lock``), with ``interrupts`` turning Ctrl-C
into a clean stop and ``report`` summing it up.  ``dryrun`` sizes a build
and ``verify`` checks a finished book.
"""

from .config import WORKER_TABLE_LOG2  # --table-log2's default, for the command line

__all__ = ["AHEAD_SAMPLE", "DEFAULT_SAMPLE", "SAMPLE_CAP", "WORKER_TABLE_LOG2"]

DEFAULT_SAMPLE = 100  # missing frontier positions a dry run solves for its estimate
SAMPLE_CAP = 60.0  # seconds: a dry run's sample solve past this is carried back from further on
AHEAD_SAMPLE = 12  # positions a level when carried back: the level nearest the frontier is slow

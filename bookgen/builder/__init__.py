"""Building a book on Ray: list -> stream -> solve -> write -> derive.

``listing`` lists every position up to a ply as sorted packed keys;
``missing`` streams the frontier's keys the book lacks; ``schedule`` sends
them to ``worker`` tasks in batches (each position solved by
``solve_position``) and writes what comes back; ``derive`` scores the
shallower plies from their children.  ``driver.build`` runs these steps in
order, under the book's write lock (``book.write.lock``), with ``interrupts``
turning Ctrl-C into a clean stop and ``report`` summing it up.  ``dryrun`` sizes a build and
``verify`` checks a finished book.
"""

WORKER_TABLE_LOG2 = 27  # 1 GiB per worker process: neighbours' subtrees stay in it
DEFAULT_SAMPLE = 100  # missing frontier positions a dry run solves for its estimate

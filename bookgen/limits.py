"""The most c4book takes of a time or a count, named once for the checks and for ``--help``.

Past these an argument costs more than it can be worth (memory, threads,
hours of search) or breaks what it feeds (a wait longer than the threading
module's, a table size computed from an infinite time).
"""

MAX_TIME_BUDGET = 86_400.0  # seconds (a day) a player or the server may think about a move
MAX_SERVE_WORKERS = 32  # searches the server runs at once: each holds up to ~200 MiB
MAX_SAMPLE = 100_000  # positions solved to verify or estimate: each a search, ms to s
MAX_NODE_BUDGET = 10**15  # nodes a player may search (days): the solver counts in 64 bits

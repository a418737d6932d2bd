"""The ``c4book`` command line: the top-level parser, its dispatch and its errors
(``c4book``), a module a command (``build``, ``query``, ...: its arguments and its run,
printing what the domain function returns), and the options they share (``arguments``;
``position``: those of query, move and review).  Every command's arguments are added
for each run, so a module imports Ray, numba or tqdm only inside its run."""

from .c4book import main

__all__ = ["main"]

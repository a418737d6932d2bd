"""The ``c4book`` command line: its parser and dispatch (``c4book``), and the commands
that have no other home (``commands``: query, move, stats; ``solve_stdin``: solve)."""

from .c4book import main

__all__ = ["main"]

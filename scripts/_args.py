"""What every script's command line shares: ``--check-args``, argument types and the
exit status that lists what went wrong.

``--check-args`` parses the arguments as the script would, prints them and
exits before anything runs: the docs check (``tests/test_docs.py``) tries
every documented invocation of a script that way, in a moment, where the
benchmark itself would take minutes or hours.
"""

from __future__ import annotations

import argparse
import sys


def parse_args(
    parser: argparse.ArgumentParser, argv: list[str] | None = None
) -> argparse.Namespace:
    """``parser.parse_args(argv)``, with ``--check-args`` (before a script's mode, if any)."""
    parser.add_argument(
        "--check-args",
        action="store_true",
        help="parse the arguments, print them and exit without running",
    )
    args = parser.parse_args(argv)
    if args.check_args:
        print(vars(args))
        raise SystemExit(0)
    return args


def add_table_log2(parser: argparse.ArgumentParser, default: int, help: str) -> None:
    """``--table-log2``: a transposition table's size as a power of two of 8-byte slots."""
    parser.add_argument("--table-log2", type=int, default=default, help=help)


def at_least_one(text: str) -> int:
    """A count argument: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not at least 1")
    return value


def exit_status(problems: list[str], headline: str) -> int:
    """0, or 1 after ``headline`` and each problem on stderr, marked ``***`` to stand out."""
    if not problems:
        return 0
    print(f"\n*** {headline}:", file=sys.stderr)
    for problem in problems:
        print(f"***   {problem}", file=sys.stderr)
    return 1

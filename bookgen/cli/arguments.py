"""What each option of ``c4book`` accepts: argparse types that refuse anything else with
a message naming the text given, and the bounds (``bookgen.limits``) it is held to; and
the options several commands share."""

from __future__ import annotations

import argparse
import re

from solver.bitboard import ALLOWED, MAX_THREADS, TABLE_LOG2_MAX, TABLE_LOG2_MIN, Board
from solver.errors import ArgumentError, BoardSizeError

from ..limits import MAX_SAMPLE, MAX_SERVE_WORKERS, MAX_TIME_BUDGET

# Numbers as written in ASCII: int() and float() also read other scripts' digits ('٣' is 3).
_INTEGER = re.compile(r"[+-]?[0-9]{1,30}")
_DECIMAL = re.compile(r"[+-]?([0-9]{1,30}\.?[0-9]{0,30}|\.[0-9]{1,30})([eE][+-]?[0-9]{1,3})?")


def _argument(text: str, convert, valid, wanted: str):
    """``convert(text)`` if it parses and is ``valid``; else argparse's error, naming the text."""
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not valid(value):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise argparse.ArgumentTypeError(f"{shown!r} is not {wanted}")
    return value


def _number(pattern: re.Pattern, kind):
    """``kind(text)`` if ``text`` is a number written in ASCII digits, else ``None``."""
    return lambda text: kind(text) if pattern.fullmatch(text.strip()) else None


def whole(text: str) -> int:
    """A whole number (a ply, a seed), of any sign: the command judges its range."""
    return _argument(text, _number(_INTEGER, int), lambda v: True, "a whole number (digits 0-9)")


def _count(text: str, low: int, high: int | None, what: str) -> int:
    """A whole number from ``low`` to ``high`` (``None``: no bound) of ``what``."""
    wanted = f"{low} or more" if high is None else f"{low} to {high}"
    return _argument(
        text,
        _number(_INTEGER, int),
        lambda v: low <= v and (high is None or v <= high),
        f"{what}: give {wanted}",
    )


def seconds(text: str) -> float:
    """A time budget: a positive number of seconds, at most a day (``MAX_TIME_BUDGET``)."""
    return _argument(
        text,
        _number(_DECIMAL, float),
        lambda v: 0 < v <= MAX_TIME_BUDGET,
        f"a number of seconds above 0 and at most {MAX_TIME_BUDGET:g} (a day)",
    )


def search_threads(text: str) -> int:
    """A thread count for one search: 1 to ``MAX_THREADS``."""
    return _count(text, 1, MAX_THREADS, "a thread count")


def serve_workers(text: str) -> int:
    """The server's searches at once: 1 to ``MAX_SERVE_WORKERS``."""
    return _count(text, 1, MAX_SERVE_WORKERS, "a number of searches at once")


def positive(text: str) -> int:
    """A count of workers or threads of a build: 1 or more (the cluster bounds it)."""
    return _count(text, 1, None, "a count")


def dry_run_sample(text: str) -> int:
    """Positions a dry run solves for its estimate: 1 to ``MAX_SAMPLE``."""
    return _count(text, 1, MAX_SAMPLE, "a sample size")


def verify_sample(text: str) -> int:
    """Frontier entries ``verify`` re-solves: 0 (none) to ``MAX_SAMPLE``."""
    return _count(text, 0, MAX_SAMPLE, "a sample size")


def table_log2(text: str) -> int:
    """A transposition table size: log2 of its slots, in the range Solver accepts."""
    return _argument(
        text,
        _number(_INTEGER, int),
        lambda v: TABLE_LOG2_MIN <= v <= TABLE_LOG2_MAX,
        f"a table size: give {TABLE_LOG2_MIN} to {TABLE_LOG2_MAX} (2**N slots of 8 bytes)",
    )


def board_size(text: str) -> Board:
    """A board size, WxH, past 64 bits too."""
    try:
        return Board.parse(text)
    except BoardSizeError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a board c4book plays: {ALLOWED}"
        ) from None


def port(text: str) -> int:
    """A TCP port: 0 (any free one) to 65535."""
    return _argument(
        text, _number(_INTEGER, int), lambda v: 0 <= v <= 65535, "a port: give 0 to 65535"
    )


def written_db(text: str) -> str:
    """A book to write: a file or a database that outlives the command, not one in memory."""
    from ..book.format.location import book_location, check_lasting

    try:
        return check_lasting(book_location(text))
    except ArgumentError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_part(text: str):
    """``--part I/K``: the I-th of K parts of a frontier (``builder.part``)."""
    from ..builder.part import WANTED, Part, PartError

    def parse(value: str) -> Part | None:
        try:
            return Part.parse(value)
        except PartError:
            return None

    return _argument(text, parse, lambda v: True, f"a part: {WANTED}")


# -- options that several commands share ----------------------------------------------


def add_board(parser: argparse.ArgumentParser, what: str) -> None:
    """--board, ``what`` saying which board it defaults to."""
    parser.add_argument(
        "--board",
        type=board_size,
        default=None,
        metavar="WxH",
        help=f"board size, e.g. 6x5 ({what})",
    )


def add_db(parser: argparse.ArgumentParser, writes: bool = False) -> None:
    """--db: a book the command ``writes`` (./book.db by default), or one it reads."""
    if writes:
        parser.add_argument(
            "--db",
            type=written_db,
            default="book.db",
            help="book file or SQLAlchemy URL (default: %(default)s)",
        )
    else:
        parser.add_argument(
            "--db",
            default=None,
            help="book file or SQLAlchemy URL (default: ./book.db, else the "
            "book installed with c4book)",
        )


def add_time(parser: argparse.ArgumentParser, default: float | None, help: str) -> None:
    """--time: the longest a search may take past the book."""
    parser.add_argument("--time", type=seconds, default=default, metavar="SECONDS", help=help)


def add_book_options(parser: argparse.ArgumentParser) -> None:
    """--db, --no-book and --board of a command that plays from a book (``book_to_read``)."""
    add_db(parser)
    parser.add_argument("--no-book", action="store_true", help="use no book: search everything")
    add_board(
        parser,
        "the book's by default; with no --db, a board no book found has is searched without a book",
    )


def found(db: str | None) -> str:
    """The book a read-only --db names, or the one found by default."""
    from ..book.format.location import find_book

    return find_book(db)


def book_to_read(args: argparse.Namespace) -> str | None:
    """The book to read (``add_book_options``): none with --no-book, nor when --board asks
    for another board than the book found by default (the shipped book is 7x6)."""
    if args.no_book:
        return None
    db = found(args.db)
    if args.db is None and args.board is not None:
        from ..book.format.database import recorded_board
        from ..book.format.errors import BookError

        try:
            recorded = recorded_board(db)
        except BookError:
            recorded = None
        if recorded is not args.board:
            return None
    return db

"""``c4book serve``: the book in a browser, a JSON API and Pons' /solve."""

from __future__ import annotations

import argparse
import sys

from ..limits import MAX_SERVE_WORKERS, MAX_TIME_BUDGET
from .arguments import add_book_options, add_time, book_to_read, port, seconds, serve_workers


def add(commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "serve",
        help="explore the book in a browser; a JSON API and Pons' /solve",
        description="Serve a page to walk the book move by move (every move's score, the "
        "best marked, how deep the book goes) and to play the AI, with a JSON API "
        "(/api/position, /api/move) and Pons' /solve?pos=. Past the book, searches "
        "take at most --time; a few run at once and the rest get 503. With --no-book "
        "(or --board past 64 bits, such as 8x8, which no book holds yet) every position "
        "is searched, on --board (default 7x6). Needs the serve extra: pip install "
        "'c4book[serve]'.",
    )
    add_book_options(parser)
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s, this machine only; "
        "0.0.0.0 lets anyone who reaches this machine use it, with no login)",
    )
    parser.add_argument(
        "--port",
        type=port,
        default=8000,
        help="port (default: %(default)s; 0: any free port, printed)",
    )
    add_time(
        parser,
        1.0,
        "longest search for a position or a move past the book; past it the "
        f"answer says it is not proven; at most {MAX_TIME_BUDGET:g} "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--cors",
        default=None,
        metavar="ORIGIN",
        help="let pages from ORIGIN (e.g. http://localhost:3000) call the API "
        "(default: no other origin)",
    )
    parser.add_argument(
        "--workers",
        type=serve_workers,
        default=None,
        metavar="N",
        help="searches at once, as many more may wait; each holds up to ~200 MiB "
        f"(default: one per core, at most 4; at most {MAX_SERVE_WORKERS})",
    )
    parser.add_argument(
        "--idle-timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="close a connection whose client takes longer than this to send a whole "
        "request (from connecting, or from the request's first byte), to start its next "
        "one, or to read an answer; a request's URL and headers may take 32 KiB "
        "(default: 10)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        from ..web import serve
    except ModuleNotFoundError as error:  # the serve extra is not installed
        print(
            f"c4book serve: error: needs the serve extra (missing {error.name}): "
            "pip install 'c4book[serve]'",
            file=sys.stderr,
        )
        return 1
    return serve(
        book_to_read(args),
        args.host,
        args.port,
        args.time,
        args.cors,
        args.workers,
        out=sys.stdout,
        idle=args.idle_timeout,
        board=args.board,
    )

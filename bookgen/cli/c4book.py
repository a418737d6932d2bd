"""``c4book``: the command line.  Each subcommand lives in its own module;
this one parses arguments and turns every project error into one line."""

from __future__ import annotations

import argparse
import os
import sys

from solver.bitboard import DEFAULT_TABLE_LOG2, MAX_THREADS
from solver.errors import C4Error

from ..book.format.location import book_location
from ..builder import DEFAULT_SAMPLE, WORKER_TABLE_LOG2
from ..builder.interrupts import (
    WITH_HANGUP,
    graceful_interrupts,
    signals_as_interrupts,
    stop_status,
)
from ..limits import MAX_SAMPLE, MAX_SERVE_WORKERS, MAX_TIME_BUDGET
from ..play.levels import LEVELS
from .arguments import (
    board_size,
    build_part,
    dry_run_sample,
    port,
    positive,
    search_threads,
    seconds,
    serve_workers,
    table_log2,
    verify_sample,
    whole,
    written_db,
)

DESCRIPTION = """\
Connect 4 perfect play and opening books, on the standard 7x6 board or any
other (--board WxH: width 4-9, height from 4, e.g. 6x5 or 8x7).

Moves are strings of column digits 1-7 played from the empty board, e.g. 4453.
Scores follow Pascal Pons' convention: positive means the player to move wins,
the value is 22 minus the winner's stone count on 7x6 ((W*H + 2) / 2 minus it
on a board of W*H cells); 0 is a draw.  A book records its board: commands
that read a book play on it."""


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, like every other error of the command."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_board(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--board",
        type=board_size,
        default=None,
        metavar="WxH",
        help=f"board size, e.g. 6x5 ({what})",
    )


def _add_db(parser: argparse.ArgumentParser, writes: bool = False) -> None:
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


def _found(db: str | None) -> str:
    from ..book.format.location import find_book

    return find_book(db)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="c4book", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p: argparse.ArgumentParser = commands.add_parser(
        "solve",
        help="solve move strings read from stdin (Pons-compatible)",
        description="Read one move string per line on stdin (anything after the first "
        "space is ignored, so Pons' test files work as they are) and print "
        "'<moves> <score>'. Bad lines are reported on stderr with their line "
        "number; the exit status is then 1.",
    )
    p.add_argument(
        "--weak", action="store_true", help="print only the sign: -1 loss, 0 draw, 1 win"
    )
    p.add_argument(
        "--analyze",
        action="store_true",
        help="print the score of each move, column by column ('x' for a full column)",
    )
    _add_board(p, "default: 7x6")
    p.add_argument(
        "--table-log2",
        type=table_log2,
        default=DEFAULT_TABLE_LOG2,
        help="transposition table size as a power of two (default: %(default)s, 128 MiB)",
    )
    p.add_argument(
        "--threads",
        type=search_threads,
        default=None,
        help="search threads sharing the table, for hard positions "
        f"(default: one per core of this machine; at most {MAX_THREADS})",
    )
    p.set_defaults(run=_run_solve)

    p = commands.add_parser(
        "build",
        help="build or resume a book of every position up to a ply",
        description="Solve every position reachable from --root up to --ply (mirror images "
        "once, finished games left out) and store exact scores and best moves. "
        "Only the last ply is searched, on Ray workers; shallower plies follow "
        "from their children. A book that already holds the ply above grows "
        "cheaply: its entries bound each new position's score before the search. "
        "Rerunning the same command resumes. Ctrl-C or SIGTERM stops cleanly in "
        "any step, keeping every finished batch, and exits 130 (Ctrl-C) or 143 "
        "(SIGTERM); a failure exits 1.",
    )
    p.add_argument(
        "--ply", type=whole, required=True, help="last ply (stones on the board) to cover"
    )
    p.add_argument(
        "--root", default="", help="moves of the starting position (default: empty board)"
    )
    _add_db(p, writes=True)
    _add_board(p, "of a new book; default 7x6. A book keeps the board it was made with")
    p.add_argument(
        "--address",
        default=None,
        help="Ray cluster to join: 'auto', HOST:PORT, or ray://HOST:PORT (Ray "
        "Client: needs pip install 'c4book[cluster]' here and on the head), or "
        "'local'; default: RAY_ADDRESS if set (as in a job started by ray job "
        "submit), else 'local': a Ray of its own on this machine's cores",
    )
    p.add_argument(
        "--workers",
        type=positive,
        default=None,
        help="positions solved at once (default: every CPU of the Ray cluster)",
    )
    p.add_argument(
        "--threads",
        type=positive,
        default=None,
        help="solver threads per worker process, sharing its transposition table "
        "(default: the CPUs of the smallest node)",
    )
    p.add_argument(
        "--table-log2",
        type=table_log2,
        default=WORKER_TABLE_LOG2,
        help="each worker process's transposition table, as a power of two of "
        "8-byte slots (default: %(default)s, 1 GiB)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--verbose",
        action="store_true",
        help="show Ray's own messages (hidden by default; a failure names their log)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing and start no Ray: print positions per ply, how many are "
        "stored, the frontier's size, and its search cost in core-hours, "
        "estimated from a random sample of the missing frontier",
    )
    p.add_argument(
        "--part",
        type=build_part,
        default=None,
        metavar="I/K",
        help="search and store only the I-th of K equal parts of the frontier (in key "
        "order), for K drivers at once, each into a book of its own (a copy of the "
        "book they grow); the ply is sealed, and the plies above derived, once "
        "c4book merge has gathered the parts and a build of the whole ply runs on it",
    )
    p.add_argument(
        "--sample",
        type=dry_run_sample,
        default=None,
        help="with --dry-run: missing frontier positions to solve for the estimate, "
        f"1 to {MAX_SAMPLE} (default: {DEFAULT_SAMPLE})",
    )
    p.set_defaults(run=_run_build)

    p = _add_position_command(
        commands,
        "query",
        help="score, best moves and every move's score of a position",
        description="Look a position up in the book (searching what the book lacks) and show "
        "the board, its score in words, the best move(s) and each move's score. "
        'MOVES may be empty ("") for the best opening move.',
    )
    p.set_defaults(
        run=lambda a: _commands().run_query(a.moves, _db(a), a.json, sys.stdout, a.board)
    )

    p = _add_position_command(
        commands,
        "review",
        moves_help="the game's moves, e.g. 4453 or a whole game; it may end in a win or a full "
        "board",
        help="each move of a game marked best, inaccuracy, mistake or blunder",
        description="Review a game move by move from exact scores (the book first, the solver "
        "past it): the position's score before each move, the move's score for its "
        "player, the best moves, and a mark: a blunder turns a win into a loss, a "
        "mistake drops the result one step (a win to a draw, a draw to a loss), an "
        "inaccuracy keeps it but wins more slowly or loses sooner; any other move is "
        "best. Then each player's marks and accuracy: the percentage of their moves "
        "marked best (docs/ai.md).",
    )
    p.set_defaults(
        run=lambda a: _commands().run_review(a.moves, _db(a), a.json, sys.stdout, a.board)
    )

    p = _add_position_command(
        commands,
        "move",
        help="the AI's move for a position",
        description="Print the column (1-7) the AI plays, and how it "
        "found it: book or search, score and time.",
    )
    _add_time(
        p,
        None,
        "answer within about this long, unproven if need be; at most "
        f"{MAX_TIME_BUDGET:g} (a day) (default: no limit)",
    )
    p.set_defaults(
        run=lambda a: _commands().run_move(a.moves, _db(a), a.json, a.time, sys.stdout, a.board)
    )

    p = commands.add_parser(
        "play",
        help="play a game against the AI in the terminal",
        description="A game against the AI: type a column 1-7 each turn, q to quit. The last "
        "stone played is in capitals (and underlined on a colour terminal; set "
        "NO_COLOR to turn colours off).",
    )
    _add_book_options(p)
    p.add_argument(
        "--first",
        choices=("human", "ai"),
        default="human",
        help="who plays first (default: %(default)s)",
    )
    p.add_argument(
        "--start",
        default="",
        metavar="MOVES",
        help="moves already played, e.g. 4453: the game goes on from there, "
        "--first choosing who moves next (default: the empty board)",
    )
    p.add_argument(
        "--level",
        choices=tuple(LEVELS),
        default="perfect",
        help="how well the AI plays: "
        + "; ".join(f"{name}: {level.about}" for name, level in LEVELS.items())
        + " (default: %(default)s)",
    )
    p.add_argument(
        "--seed",
        type=whole,
        default=None,
        help="seed of a level's random choices, to replay a game (default: random)",
    )
    p.add_argument(
        "--hints",
        action="store_true",
        help="before each of your moves, show what every move leads to with best "
        "play (win, draw or loss, and with which stone)",
    )
    _add_time(
        p,
        10.0,
        "longest the AI thinks outside the book; past it, it plays the best "
        f"move it found, marked not proven; at most {MAX_TIME_BUDGET:g} "
        "(default: %(default)s)",
    )
    p.set_defaults(run=_run_play)

    p = commands.add_parser("stats", help="what a book holds: positions per ply, outcomes, size")
    _add_db(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    p.set_defaults(run=lambda a: _commands().run_stats(_found(a.db), a.json, sys.stdout))

    p = commands.add_parser(
        "export",
        help="write a book as a data set: Parquet, CSV or Tromp's UCI layout",
        description="One row per stored position (one of each mirror pair): its ply, a move "
        "string reaching it, its cells, key, score, outcome, best moves and each "
        "move's score (docs/data.md). --format uci writes the positions where "
        "neither player can win at once, in the layout of Tromp's UCI Connect-4 "
        "set (67,557 rows at ply 8 on 7x6). The file appears only once complete. "
        "Parquet needs the data extra: pip install 'c4book[data]'. Ctrl-C, SIGTERM or "
        "SIGHUP stops it leaving no file, and exits 130, 143 or 129.",
    )
    p.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="file to write (.parquet, .csv or .data tell the format); a device or a pipe "
        "(/dev/stdout, a FIFO) is written into directly",
    )
    p.add_argument(
        "--format",
        choices=("parquet", "csv", "uci"),
        default=None,
        help="file format (default: from the file's suffix)",
    )
    p.add_argument(
        "--plies",
        default=None,
        metavar="LO-HI",
        help="plies to write, e.g. 8 or 8-12 (default: every ply of the book)",
    )
    _add_db(p)
    p.add_argument(
        "--mirrors",
        action="store_true",
        help="also write each position's mirror image as a row of its own",
    )
    p.add_argument("--force", action="store_true", help="replace FILE if it exists (and is a file)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=_run_export)

    p = commands.add_parser(
        "verify",
        help="check a whole book for consistency",
        description="Check every entry against its children's entries, re-solve a fixed-seed "
        "sample of the frontier, and count each complete ply against the "
        "enumeration. Exits 1 and lists the first bad entries if anything disagrees.",
    )
    _add_db(p)
    p.add_argument(
        "--sample",
        type=verify_sample,
        default=100,
        help=f"frontier entries to re-solve, 0 to {MAX_SAMPLE}; each is a search, "
        "milliseconds to seconds (default: %(default)s)",
    )
    p.add_argument("--seed", type=whole, default=2026, help="sample seed (default: %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(run=_run_verify)

    _add_in_place_command(
        commands,
        "upgrade",
        _run_upgrade,
        help="convert a book of an older schema version, in place",
        description="Bring a book written by an older c4book to this schema version without "
        "re-solving anything: version 1 stored a move string per row (checked "
        "against the key, then dropped), version 2 a row per position (packed "
        "into segments, a ply at a time). Running it again finishes an "
        "interrupted upgrade.",
    )

    _add_in_place_command(
        commands,
        "pack",
        _run_pack,
        help="pack a book's rows into compact segments, in place",
        description="A ply still being built is kept as rows (27 bytes a position); a "
        "complete ply is sealed into one segment (about one byte a position) by "
        "the build itself. This packs the rows left: a complete ply is sealed, a "
        "ply still being built gets one more segment (the segments before it stay "
        "byte for byte, so a book kept in git grows by the new part only). The "
        "book stays valid throughout; a build resumes from a packed book. A "
        "SQLite file also gives back the pages of rows already dropped (VACUUM). "
        "It refuses while a build is writing the book: stop the build first.",
    )

    p = commands.add_parser(
        "merge",
        help="gather books built in parts (build --part) into one",
        description="Copy into the book --db (made if absent) the entries of every ply "
        "that each PART book holds still being built: the parts of a frontier that "
        "build --part I/K stored. Plies a part holds whole must be whole in --db "
        "too (merge into the book the parts were grown from, or a copy of it). Each "
        "slice of keys is one transaction and a stored key is left as it is (and counted "
        "apart from those copied). Ctrl-C, SIGTERM or SIGHUP stops it after the slice "
        "being written, leaving the book whole, and exits 130, 143 or 129: run it again "
        "to finish. Then c4book build --ply N --db BOOK seals the "
        "ply (searching whatever no part stored) and derives the plies above.",
    )
    _add_db(p, writes=True)
    p.add_argument(
        "parts", metavar="PART", nargs="+", type=book_location, help="a book built with --part"
    )
    p.set_defaults(run=_run_merge)

    p = commands.add_parser(
        "serve",
        help="explore the book in a browser; a JSON API and Pons' /solve",
        description="Serve a page to walk the book move by move (every move's score, the "
        "best marked, how deep the book goes) and to play the AI, with a JSON API "
        "(/api/position, /api/move) and Pons' /solve?pos=. Past the book, searches "
        "take at most --time; a few run at once and the rest get 503. Needs the "
        "serve extra: pip install 'c4book[serve]'.",
    )
    _add_db(p)
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s, this machine only; "
        "0.0.0.0 lets anyone who reaches this machine use it, with no login)",
    )
    p.add_argument(
        "--port",
        type=port,
        default=8000,
        help="port (default: %(default)s; 0: any free port, printed)",
    )
    _add_time(
        p,
        1.0,
        "longest search for a position or a move past the book; past it the "
        f"answer says it is not proven; at most {MAX_TIME_BUDGET:g} "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--cors",
        default=None,
        metavar="ORIGIN",
        help="let pages from ORIGIN (e.g. http://localhost:3000) call the API "
        "(default: no other origin)",
    )
    p.add_argument(
        "--workers",
        type=serve_workers,
        default=None,
        metavar="N",
        help="searches at once, as many more may wait; each holds up to ~200 MiB "
        f"(default: one per core, at most 4; at most {MAX_SERVE_WORKERS})",
    )
    p.add_argument(
        "--idle-timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="close a connection whose client takes longer than this to send a whole "
        "request (from connecting, or from the request's first byte), to start its next "
        "one, or to read an answer; a request's URL and headers may take 32 KiB "
        "(default: 10)",
    )
    p.set_defaults(run=_run_serve)
    return parser


def _add_position_command(
    commands, name: str, moves_help: str = 'moves played so far, e.g. 4453 or ""', **about: str
) -> argparse.ArgumentParser:
    """A command about one position or game (``query``, ``move``, ``review``): MOVES, the book
    options, --json."""
    parser = commands.add_parser(name, **about)
    parser.add_argument("moves", metavar="MOVES", help=moves_help)
    _add_book_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    return parser


def _add_in_place_command(commands, name: str, run, **about: str) -> None:
    """A command that changes the book --db in place and asks nothing else (``upgrade``,
    ``pack``)."""
    parser = commands.add_parser(name, **about)
    _add_db(parser, writes=True)
    parser.set_defaults(run=run)


def _add_time(parser: argparse.ArgumentParser, default: float | None, help: str) -> None:
    """--time: the longest a search may take past the book."""
    parser.add_argument("--time", type=seconds, default=default, metavar="SECONDS", help=help)


def _add_book_options(parser: argparse.ArgumentParser) -> None:
    _add_db(parser)
    parser.add_argument("--no-book", action="store_true", help="use no book: search everything")
    _add_board(
        parser,
        "the book's by default; with no --db, a board no book found has is searched without a book",
    )


def _db(args: argparse.Namespace) -> str | None:
    """The book to read: none with --no-book, nor when --board asks for another board than
    the book found by default (the shipped book is 7x6)."""
    if args.no_book:
        return None
    db = _found(args.db)
    if args.db is None and args.board is not None:
        from ..book.format.database import recorded_board
        from ..book.format.errors import BookError

        try:
            found = recorded_board(db)
        except BookError:
            found = None
        if found is not args.board:
            return None
    return db


def _commands():
    from . import commands

    return commands


def _run_play(args: argparse.Namespace) -> int:
    from ..play.game import run_play

    return run_play(
        _db(args),
        args.first,
        sys.stdin,
        sys.stdout,
        args.time,
        level=args.level,
        seed=args.seed,
        hints=args.hints,
        start=args.start,
        board=args.board,
    )


def _run_export(args: argparse.Namespace) -> int:
    from ..export import export

    # --out /dev/stdout: the rows are this command's output, and its summary goes apart.
    summary = sys.stderr if _is_stdout(args.out) else sys.stdout
    with signals_as_interrupts():  # a stopped export removes its temporary file
        done = export(
            args.out,
            args.format,
            args.plies,
            _found(args.db),
            mirrors=args.mirrors,
            force=args.force,
            progress=not args.no_progress,
        )
    first, last = done.plies[0], done.plies[-1]
    plies = f"ply {first}" if first == last else f"plies {first}-{last}"
    print(
        f"{done.rows:,} rows of {plies} written to {done.path} ({done.format}, {done.seconds:.1f} s)",
        file=summary,
    )
    return 0


def _is_stdout(path: str) -> bool:
    """Whether ``path`` is the file this command's stdout writes."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError):  # no such path, or a stdout with no file
        return False


def _run_verify(args: argparse.Namespace) -> int:
    from ..builder.verify import run_verify

    return run_verify(_found(args.db), args.sample, args.seed, sys.stdout, not args.no_progress)


def _run_upgrade(args: argparse.Namespace) -> int:
    from ..book.write.upgrade import run_upgrade

    return run_upgrade(args.db, sys.stdout)


def _run_pack(args: argparse.Namespace) -> int:
    from ..book.write.upgrade import run_pack

    return run_pack(args.db, sys.stdout)


def _run_serve(args: argparse.Namespace) -> int:
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
        _found(args.db),
        args.host,
        args.port,
        args.time,
        args.cors,
        args.workers,
        out=sys.stdout,
        idle=args.idle_timeout,
    )


def _run_merge(args: argparse.Namespace) -> int:
    from ..book.write.merge import merge

    # As a build: a signal stops it between slices, never inside its last steps (folding
    # the write-ahead log back into the book), and a second one at once.
    with graceful_interrupts(WITH_HANGUP) as stop:
        merge(args.db, args.parts, out=sys.stdout, check=stop.check)
    stop.check()  # a stop asked during the last slice: said, and its exit status
    return 0


def _run_build(args: argparse.Namespace) -> int:
    from ..builder.driver import BuildArgumentError, build

    if args.dry_run and args.part is not None:
        raise BuildArgumentError(
            f"--part {args.part} builds a part; a --dry-run sizes the whole ply "
            "(a part costs about its share of it): leave out one of them"
        )
    if args.dry_run:
        from ..builder.dryrun import dry_run

        sample = DEFAULT_SAMPLE if args.sample is None else args.sample
        dry_run(
            args.db,
            args.ply,
            args.root,
            sample=sample,
            table_log2=min(args.table_log2, DEFAULT_TABLE_LOG2),
            progress=not args.no_progress,
            out=sys.stdout,
            board=args.board,
        )
        return 0
    if args.sample is not None:
        raise BuildArgumentError(
            f"--sample {args.sample} sizes a --dry-run's estimate; a build "
            "searches every position: add --dry-run, or leave out --sample"
        )
    summary = build(
        args.db,
        args.ply,
        args.root,
        address=args.address,
        workers=args.workers,
        threads=args.threads,
        table_log2=args.table_log2,
        progress=not args.no_progress,
        verbose=args.verbose,
        board=args.board,
        part=args.part,
    )
    return summary.exit_status


def _run_solve(args: argparse.Namespace) -> int:
    from .solve_stdin import solve_lines

    return solve_lines(
        sys.stdin,
        sys.stdout,
        sys.stderr,
        weak=args.weak,
        analyze=args.analyze,
        table_log2=args.table_log2,
        threads=args.threads,
        board=args.board,
    )


class OutputError(C4Error, OSError):
    """The command's output cannot be written (a full disk, ``> /dev/full``)."""


class _Output:
    """stdout as a command writes it: a write that fails is an ``OutputError``."""

    def __init__(self, stream):
        self._stream = stream

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def write(self, text: str) -> int:
        return self._guarded(self._stream.write, text)

    def flush(self) -> None:
        self._guarded(self._stream.flush)

    @staticmethod
    def _guarded(call, *args):
        try:
            return call(*args)
        except BrokenPipeError:
            raise  # the reader went away: main stops quietly
        except OSError as error:
            raise OutputError(f"cannot write the output: {error.strerror or error}") from None


def one_line(message: object) -> str:
    """A message on one line: a database's own may run over several."""
    return "; ".join(line.strip() for line in str(message).splitlines() if line.strip())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help(sys.stderr)  # a bare "c4book": show what there is
        return 2
    args = parser.parse_args(argv)
    stdout = sys.stdout
    sys.stdout = _Output(stdout)
    try:
        status = args.run(args) or 0
        sys.stdout.flush()  # here, where a failure is one line, not at exit
    except C4Error as error:
        print(f"c4book {args.command}: error: {one_line(error)}", file=sys.stderr)
        if isinstance(error, OutputError):
            _discard_output(stdout)
        return 1
    except KeyboardInterrupt as stop:
        return _interrupted(args.command, stop)
    except SystemError as error:
        # A Ctrl-C while numba loads a kernel comes out of its C code as a SystemError
        # caused by the KeyboardInterrupt: an interrupt all the same.
        cause = _interrupt_causing(error)
        if cause is None:
            raise
        return _interrupted(args.command, cause)
    except BrokenPipeError:
        # The reader went away (``c4book solve < big | head``): stop quietly.
        _discard_output(stdout)
        return 141
    else:
        return status
    finally:
        sys.stdout = stdout


def _interrupted(command: str, stop: KeyboardInterrupt) -> int:
    """Say that ``command`` was interrupted, and by which signal: its exit status."""
    said, status = stop_status(stop)
    print(f"c4book {command}: {said}", file=sys.stderr)
    return status


def _interrupt_causing(error: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt among the causes of ``error``, if there is one."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _discard_output(stdout) -> None:
    """Keep Python from complaining again when it flushes stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())

"""``c4book``: the top-level parser, the dispatch to each command's module (which adds
its arguments and runs it), and every project error turned into one line."""

from __future__ import annotations

import argparse
import os
import sys

from solver.errors import C4Error

from ..builder.interrupts import stop_status
from . import (
    build,
    export,
    merge,
    move,
    pack,
    play,
    query,
    review,
    serve,
    solve,
    stats,
    upgrade,
    verify,
)

DESCRIPTION = """\
Connect 4 perfect play and opening books, on the standard 7x6 board or any
other (--board WxH: width 4-9, height from 4, e.g. 6x5 or 8x7; solve also
plays boards past 64 bits, up to 128, e.g. 8x8 or 9x9).

Moves are strings of column digits 1-7 played from the empty board, e.g. 4453.
Scores follow Pascal Pons' convention: positive means the player to move wins,
the value is 22 minus the winner's stone count on 7x6 ((W*H + 2) / 2 minus it
on a board of W*H cells); 0 is a draw.  A book records its board: commands
that read a book play on it."""


# Each adds its subparser (add) and runs it (run); in the order --help lists them.
COMMANDS = (
    solve,
    build,
    query,
    review,
    move,
    play,
    stats,
    export,
    verify,
    upgrade,
    pack,
    merge,
    serve,
)


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, like every other error of the command."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="c4book", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add(commands).set_defaults(run=command.run)
    return parser


class _Output:
    """stdout as a command writes it: a write that fails is an ``OutputError``."""

    def __init__(self, stream):
        self._stream = stream
        self.failed = False

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def write(self, text: str) -> int:
        return self._guarded(self._stream.write, text)

    def flush(self) -> None:
        self._guarded(self._stream.flush)

    def _guarded(self, call, *args):
        try:
            return call(*args)
        except BrokenPipeError:
            raise  # the reader went away: main stops quietly
        except OSError as error:
            # Imported here: the export package is loaded only by a command that needs it.
            from ..export.output import OutputError

            self.failed = True
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
    output = sys.stdout = _Output(stdout)
    try:
        status = args.run(args) or 0
        sys.stdout.flush()  # here, where a failure is one line, not at exit
    except C4Error as error:
        print(f"c4book {args.command}: error: {one_line(error)}", file=sys.stderr)
        if output.failed:
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

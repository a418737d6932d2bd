"""Where an export's bytes go, checked before the book is read.

A regular file, or a name not taken yet, is written under a temporary name
beside it (``.NAME.*.part``) and renamed over it once complete: an error or an
interrupt leaves nothing there.  A symbolic link is followed: the file it
names is the one replaced, the link stays.  A character device or a pipe
(``/dev/null``, ``/dev/stdout``, a FIFO) is written into directly, as a
shell's ``>`` does: a rename would put a file where the device was.  A
directory, a block device or a socket is refused.  A write that fails (a full
disk) is one ``OutputError`` naming the output, and the temporary file goes.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from solver.errors import C4Error


class OutputError(C4Error, OSError):
    """An output that exists (and may not be replaced) or cannot be written."""


class Output:
    """The path ``out``, checked: ``direct`` says whether it is written into in place."""

    def __init__(self, out: str, force: bool):
        self.path = out
        try:
            mode: int | None = os.stat(out).st_mode
        except FileNotFoundError:  # (a dangling link too)
            mode = None
        except OSError as error:  # a file where a directory should be, a loop of links
            raise self.error(error) from None
        self.direct = mode is not None and (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode))
        if mode is not None and stat.S_ISDIR(mode):
            raise OutputError(f"{out!r} is a directory: give a file name")
        if mode is not None and not self.direct and not stat.S_ISREG(mode):
            kind = "block device" if stat.S_ISBLK(mode) else "socket"
            raise OutputError(
                f"{out!r} is a {kind}: give a file name, a character device or a pipe"
            )
        if not self.direct and os.path.lexists(out) and not force:
            raise OutputError(f"{out!r} exists: give --force to replace it")

    def error(self, error: OSError) -> OutputError:
        """``error`` as the one line that names the output."""
        return OutputError(f"cannot write {self.path!r}: {error.strerror or error}")

    @contextmanager
    def opened(self) -> Iterator[BinaryIO]:
        """The output, open to write; closed after the block, and a regular file renamed
        into place if the block ended without an error.  A failed write (not a reader gone
        from a pipe: the command stops quietly then) is an ``OutputError``."""
        temporary = None
        file: BinaryIO
        try:
            if self.direct:  # no O_CREAT: if the device went meanwhile, no file is made
                file = os.fdopen(os.open(self.path, os.O_WRONLY), "wb")
            else:
                temporary, file = self._temporary()
            with file:
                yield file
        except BaseException as error:
            if temporary is not None:
                os.unlink(temporary)
            if isinstance(error, OSError) and not isinstance(error, C4Error | BrokenPipeError):
                raise self.error(error) from None
            raise
        if temporary is not None:
            # Outside the try: a Ctrl-C just after the rename finds the file complete, and
            # must not look for the temporary name it no longer has.
            try:
                os.replace(temporary, os.path.realpath(self.path))
            except OSError as error:
                os.unlink(temporary)
                raise self.error(error) from None

    def _temporary(self) -> tuple[str, BinaryIO]:
        """An empty file beside the file ``path`` names, readable as it would be."""
        folder, name = os.path.split(os.path.realpath(self.path))
        handle, path = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder)
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(handle, 0o666 & ~umask)  # mkstemp's 0600 would outlive the rename
        return path, os.fdopen(handle, "wb")

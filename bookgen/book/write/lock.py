"""One writer at a time per book: a lock row in the book's own metadata.

A build holds it while it runs; ``c4book pack`` and ``upgrade`` hold it too,
since they move rows a build is still adding (a pack beside a build once lost
the rows written between its read and its delete).

The row (``meta.build_lock``) says who writes: host, pid, when it started,
and a heartbeat refreshed every ``HEARTBEAT_SECONDS``; a second row
(``meta.build_lock_command``, written with it) names the command, apart, so
that a c4book from before it still reads the first row as a lock.  A second
writer reads them and refuses at once, naming the first.  A driver that was
killed cannot remove its row, so a row only counts while its owner lives:

* on the same host, while its pid runs (and is the same process: its start
  time in ``/proc`` must match, so a recycled pid does not count);
* from another host, while its heartbeat is younger than ``STALE_SECONDS``.

Taking and refreshing the row are compare-and-swap statements (``UPDATE ...
WHERE value = <what we read>``), atomic on SQLite and PostgreSQL alike, so
two drivers starting together cannot both win.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError, OperationalError

from ..format.errors import BookError
from ..format.location import book_location
from ..format.names import COMMAND_NAME, LOCK_NAME
from ..format.schema import Meta

if TYPE_CHECKING:
    from typing_extensions import Self  # typing's own from Python 3.11

HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 60.0


class BuildLockedError(BookError, RuntimeError):
    """Another c4book command (a build, a pack) is writing this book."""


@dataclass(frozen=True)
class LockOwner:
    """Who holds a book's write lock."""

    host: str
    pid: int
    since: float  # time.time() when the command started
    heartbeat: float  # time.time() of its last sign of life
    process_start: str | None  # the pid's start time in /proc, where there is one
    command: str = "build"  # the c4book command that writes (no command row: a build)

    @classmethod
    def me(cls, command: str = "build") -> LockOwner:
        now = time.time()
        return cls(
            socket.gethostname(), os.getpid(), now, now, _process_start(os.getpid()), command
        )

    @classmethod
    def from_json(cls, text: str, command: str | None = None) -> LockOwner | None:
        """The lock row's owner, with the command row's command if it names this owner."""
        try:
            fields = json.loads(text)
            owner = cls(**{name: fields[name] for name in _ROW_FIELDS})
        except (TypeError, ValueError, KeyError):
            return None  # unreadable: treated as no lock
        try:
            named = json.loads(command) if command else {}
            if [named.get(name) for name in _SAME_OWNER] == [
                getattr(owner, name) for name in _SAME_OWNER
            ]:
                owner = replace(owner, command=str(named["command"]))
        except (TypeError, ValueError, KeyError, AttributeError):
            pass  # a command row of another owner, or unreadable: a build
        return owner

    def to_json(self) -> str:
        """The lock row: what every c4book reads (so no ``command``)."""
        return json.dumps({name: getattr(self, name) for name in _ROW_FIELDS}, sort_keys=True)

    def command_json(self) -> str:
        """The command row: the command, and whose it is."""
        return json.dumps(
            {**{name: getattr(self, name) for name in _SAME_OWNER}, "command": self.command},
            sort_keys=True,
        )

    def is_alive(self, now: float | None = None) -> bool:
        if self.host == socket.gethostname():
            return _pid_runs(self.pid) and (
                self.process_start is None or _process_start(self.pid) == self.process_start
            )
        return (now or time.time()) - self.heartbeat < STALE_SECONDS

    def describe(self, now: float | None = None) -> str:
        since = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(self.since))
        beat = max(0.0, (now or time.time()) - self.heartbeat)
        return f"host {self.host}, pid {self.pid}, since {since}, last heartbeat {beat:.0f} s ago"


_ROW_FIELDS = ("host", "pid", "since", "heartbeat", "process_start")  # the first row's keys
_SAME_OWNER = ("host", "pid", "since")  # a command row belongs to the lock row that shares these


class BuildLock:
    """Hold the write lock of the book behind ``engine`` for a ``with`` block, as
    ``command`` (``"build"``, ``"pack"``, ``"upgrade"``).

    Entering raises ``BuildLockedError`` when a live writer holds it; a dead
    owner's lock is taken over.  While held, a thread refreshes the heartbeat.
    """

    def __init__(self, engine: Engine, db: str, command: str = "build"):
        self.engine = engine
        self.db = book_location(db)  # a URL's password masked in every message
        self.command = command
        self.owner: LockOwner | None = None
        self._value: str | None = None  # the row as we last wrote it
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        try:
            self._acquire()
        except OperationalError as error:  # read-only, or held by a writer past the timeout
            raise BookError(f"cannot take the write lock of {self.db!r}: {error.orig}") from None

    def _acquire(self) -> None:
        for _ in range(5):  # lost races only: each round someone else changed the row
            current, command = _rows(self.engine)
            if current is not None:
                holder = LockOwner.from_json(current, command)
                if holder is not None and holder.is_alive():
                    doing = (
                        "being built by another c4book build"
                        if holder.command == "build"
                        else f"being written by c4book {holder.command}"
                    )
                    raise BuildLockedError(
                        f"{self.db!r} is {doing} ({holder.describe()}); "
                        "wait for it to finish, or stop it (Ctrl-C) and rerun this command"
                    )
            owner = LockOwner.me(self.command)
            if self._swap(current, owner.to_json(), owner.command_json()):
                self.owner, self._value = owner, owner.to_json()
                self._thread = threading.Thread(
                    target=self._beat, name="c4book-build-lock", daemon=True
                )
                self._thread.start()
                return
        raise BuildLockedError(f"{self.db!r}: another c4book command keeps taking its lock")

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._value is not None:
            try:
                with self.engine.begin() as conn:
                    if conn.execute(
                        delete(Meta).where(Meta.name == LOCK_NAME, Meta.value == self._value)
                    ).rowcount:
                        conn.execute(delete(Meta).where(Meta.name == COMMAND_NAME))
            except (OperationalError, BookError):
                # An unwritable book, or its server gone: the row names a dead pid, which
                # frees it, and the error that ended the command is the one to tell.
                pass
            self._value = None

    # -- the rows -------------------------------------------------------------
    def _swap(self, expected: str | None, new: str, command: str | None = None) -> bool:
        """Write ``new`` if the lock row still reads ``expected`` (absent for None), and
        ``command`` into the command row in the same transaction."""

        def name_the_command(conn) -> None:
            if command is not None:
                conn.execute(delete(Meta).where(Meta.name == COMMAND_NAME))
                conn.execute(insert(Meta).values(name=COMMAND_NAME, value=command))

        if expected is None:
            # A plain INSERT: a row written meanwhile makes it fail, never overwritten.
            try:
                with self.engine.begin() as conn:
                    conn.execute(insert(Meta).values(name=LOCK_NAME, value=new))
                    name_the_command(conn)
            except IntegrityError:
                return False
            return True
        with self.engine.begin() as conn:
            stmt = (
                update(Meta).where(Meta.name == LOCK_NAME, Meta.value == expected).values(value=new)
            )
            if conn.execute(stmt).rowcount != 1:
                return False
            name_the_command(conn)
            return True

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_SECONDS):
            assert self.owner is not None  # set before this thread starts, never cleared under it
            owner = LockOwner(**{**asdict(self.owner), "heartbeat": time.time()})
            try:
                if self._swap(self._value, owner.to_json()):
                    self._value = owner.to_json()
            except Exception:  # noqa: BLE001, S110 - a busy book: the next beat tries again, well within STALE_SECONDS
                pass


def read_lock(engine: Engine) -> LockOwner | None:
    """The lock's owner as recorded (alive or not), or None."""
    value, command = _rows(engine)
    return None if value is None else LockOwner.from_json(value, command)


def _rows(engine: Engine) -> tuple[str | None, str | None]:
    """The lock row and the command row, as stored."""
    with engine.connect() as conn:
        found = dict(
            conn.execute(
                select(Meta.name, Meta.value).where(Meta.name.in_((LOCK_NAME, COMMAND_NAME)))
            ).all()
        )
    return found.get(LOCK_NAME), found.get(COMMAND_NAME)


def _pid_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return _process_state(pid) != "Z"  # a zombie is dead, only not yet reaped


def _proc_stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            text = handle.read()
    except OSError:
        return None
    # The command name may hold spaces: the fields after it follow its ')'.
    return text[text.rindex(")") + 2 :].split()


def _process_state(pid: int) -> str | None:
    fields = _proc_stat(pid)
    return fields[0] if fields else None


def _process_start(pid: int) -> str | None:
    fields = _proc_stat(pid)
    return fields[19] if fields else None  # field 22 of stat: start time in clock ticks

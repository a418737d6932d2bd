"""Python's cycle collector paused while many small objects are made that hold no cycles.

Each 700 new tuples would otherwise start a collection, which walks every
object still young: most of the time of ``Book.get_many``, and of reading a
million rows (``rows.read_rows``).
"""

from __future__ import annotations

import gc
import threading

_pauses = [0]  # pauses under way, over every thread
_pauses_lock = threading.Lock()


class paused:  # noqa: N801 (used as a function: ``with paused():``)
    """The collector off for the block.

    Counted, so that overlapping pauses end once; it is taken only if the
    collector is on.  (A caller that turns the collector off meanwhile finds it on
    again when the last pause ends.)  A class, not a generator: a generator's end
    makes a StopIteration, the first new object after the pause, which would start
    the walk of everything the block made before the caller has it (35 ms for
    ``get_many``'s 200,000 entries).  Now the walk comes at the caller's next
    allocations, or never if the caller has dropped them.
    """

    __slots__ = ("_taken",)

    def __enter__(self) -> None:
        with _pauses_lock:
            self._taken = _pauses[0] > 0 or gc.isenabled()
            if self._taken:
                _pauses[0] += 1
                gc.disable()

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if self._taken:
            # acquire and release, not ``with``: the lock's __exit__ makes a tuple of its
            # arguments, which, the collector back on, would start the walk here.
            _pauses_lock.acquire()
            try:
                _pauses[0] -= 1
                if _pauses[0] == 0:
                    gc.enable()
            finally:
                _pauses_lock.release()

"""Python's cycle collector paused while many small objects are made that hold no cycles.

Each 700 new tuples would otherwise start a collection, which walks every
object still young: most of the time of ``Book.get_many``, and of reading a
million rows (``rows.read_rows``).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_pauses = [0]  # pauses under way, over every thread
_pauses_lock = threading.Lock()


@contextmanager
def paused():
    """The collector off for the block.

    Counted, so that overlapping pauses end once; it is taken only if the
    collector is on.  (A caller that turns the collector off meanwhile finds it on
    again when the last pause ends.)
    """
    with _pauses_lock:
        if _pauses[0] == 0 and not gc.isenabled():
            taken = False
        else:
            taken = True
            _pauses[0] += 1
            gc.disable()
    try:
        yield
    finally:
        if taken:
            with _pauses_lock:
                _pauses[0] -= 1
                if _pauses[0] == 0:
                    gc.enable()

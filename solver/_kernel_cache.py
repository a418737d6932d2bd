"""numba's cache, dropped when any source its kernels were compiled from changed.

numba checks a cached kernel against the time stamp of its own file only,
not of the files whose kernels it inlined (numba issues 1833 and 9483):
after a change to ``_bounds.py`` alone, the cached ``negamax`` of
``_search.py`` would still run the old bounds.  So each folder of kernels
keeps a fingerprint of every source they can reach, beside its cache, and
its cache files go whenever the fingerprint changes.  A pip upgrade rewrites
every file anyway; a ``git pull`` does not.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SOLVER = Path(__file__).resolve().parent
STAMP = "kernels.sha256"


def fingerprint(*folders: Path) -> str:
    """A digest of every Python source in ``folders``."""
    digest = hashlib.sha256()
    for folder in folders:
        for source in sorted(folder.glob("*.py")):
            digest.update(source.name.encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()


def drop_stale(folder: Path, sources: str) -> bool:
    """Remove ``folder``'s numba cache files unless they were made from ``sources`` (a
    ``fingerprint``); whether it removed them.  A read-only install is left alone."""
    cache = folder / "__pycache__"
    stamp = cache / STAMP
    try:
        if stamp.read_text() == sources:
            return False
    except OSError:
        pass
    try:
        for old in cache.glob("*.nb[ic]"):
            old.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        # Written before anything compiles, so that processes starting together (Ray's
        # workers) do not drop each other's fresh kernels; renamed, so never read half.
        part = cache / f"{STAMP}.{os.getpid()}"
        part.write_text(sources)
        part.replace(stamp)
    except OSError:
        return False
    return True

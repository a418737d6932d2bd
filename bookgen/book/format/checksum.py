"""Checksums of what a book keeps outside its segments: each row of ``positions``, and ``meta``.

A segment carries a CRC-32 of its payload (``segment``).  A row carries a
64-bit hash of every one of its fields (``row_checksums``), written with it
and checked wherever rows are read, before any is trusted.  The hash passes
the fields one at a time through a bijective mix (splitmix64's finalizer),
so a change confined to one field, any number of its bits, always changes
it; changes to several fields go unseen once in 2**64.

``meta`` carries one row more, ``meta_checksum``: a JSON object of a CRC-32
for each other name and value, written in the same transaction as every
change to them, so that a damaged value is named.  The lock's rows are left
out: ``lock`` rewrites them every few seconds, and reads an unreadable one as
no lock.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping

import numpy as np

from .errors import CorruptBookError
from .names import COMMAND_NAME, LOCK_NAME

META_CHECKSUM = "meta_checksum"
UNCHECKED = frozenset((LOCK_NAME, COMMAND_NAME, META_CHECKSUM))
_SEED = np.uint64(0x63346_2006B_5F63)  # not 0: a row of zeros must not hash to 0
_MULTIPLIERS = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _words(values) -> np.ndarray:
    """Integers as 64-bit words, two's complement: each value its own word."""
    return np.asarray(values).astype(np.int64, copy=False).view(np.uint64)


def _mix(hashes: np.ndarray) -> None:
    """splitmix64's finalizer, in place: a bijection of 64-bit words."""
    hashes ^= hashes >> np.uint64(30)
    hashes *= _MULTIPLIERS[0]
    hashes ^= hashes >> np.uint64(27)
    hashes *= _MULTIPLIERS[1]
    hashes ^= hashes >> np.uint64(31)


def move_score_words(move_scores: np.ndarray | None, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Packed move scores, ``(count, width)`` bytes of at most 9 a row or ``None`` (SQL's
    NULL), as two words a row: the first 8 bytes, then the rest plus one (0 for NULL)."""
    low, high = np.zeros(count, np.uint64), np.zeros(count, np.uint64)
    if move_scores is not None and count:
        padded = np.zeros((count, 16), np.uint8)
        padded[:, : move_scores.shape[1]] = move_scores
        words = padded.view("<u8")
        low[:], high[:] = words[:, 0], words[:, 1] + np.uint64(1)
    return low, high


def row_checksums(
    keys, ply, scores, wdl, best, move_scores: tuple[np.ndarray, np.ndarray], nodes
) -> np.ndarray:
    """The checksum of each row, as SQL stores it (a signed 64-bit integer): ``keys`` as
    SQL holds them, ``ply`` one for all or one a row, ``best`` the best-move bits,
    ``move_scores`` as ``move_score_words`` gives them, ``nodes`` 0 where not kept.  Keys
    past 64 bits, ``(n, 2)`` rows, pass as two fields: the high word, then the low."""
    count = len(keys)
    hashes = np.full(count, _SEED, np.uint64)
    key_words = (keys[:, 1], keys[:, 0]) if np.ndim(keys) == 2 else (keys,)
    for field in (nodes, *move_scores[::-1], best, wdl, scores, ply, *key_words):
        hashes ^= np.broadcast_to(_words(field), (count,))
        _mix(hashes)
    return hashes.view(np.int64)


# -- meta ---------------------------------------------------------------------------


def _crc(name: str, value: str) -> str:
    return f"{zlib.crc32(f'{name}={value}'.encode('utf-8', 'surrogatepass')):08x}"


def meta_checksum(meta: Mapping[str, str]) -> str:
    """The ``meta_checksum`` value of ``meta``: a CRC-32 of each checked name and value."""
    return json.dumps(
        {name: _crc(name, value) for name, value in sorted(meta.items()) if name not in UNCHECKED},
        separators=(",", ":"),
    )


def check_meta(meta: Mapping, db: str) -> None:
    """``CorruptBookError`` naming the first meta value (or name) that fails its checksum."""

    def damaged(why: str) -> CorruptBookError:
        return CorruptBookError(f"{db!r} is damaged: {why}; take the book from a good copy")

    for name, value in meta.items():
        if type(name) is not str or type(value) is not str:
            raise damaged(f"its meta {name!r} holds {value!r}, not text")
    try:
        stored = json.loads(meta[META_CHECKSUM])
        assert type(stored) is dict and all(type(c) is str for c in stored.values())
    except (KeyError, ValueError, AssertionError):
        raise damaged(
            f"its meta has no readable checksum ({META_CHECKSUM!r} is {meta.get(META_CHECKSUM)!r})"
        ) from None
    for name in sorted(set(stored) | {n for n in meta if n not in UNCHECKED}):
        if name not in meta:
            raise damaged(f"its meta {name!r} is missing")
        if name not in stored:
            raise damaged(f"its meta {name!r} (value {meta[name]!r}) is not in the meta's checksum")
        if stored[name] != _crc(name, meta[name]):
            raise damaged(f"its meta {name!r} (value {meta[name]!r}) fails its checksum")

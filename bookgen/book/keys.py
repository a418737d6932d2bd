"""Book keys straight from move strings, for lookups: one at a time, or many at once.

A lookup needs the position's key and its mirror image's key (the book stores
the smaller).  ``Position.from_moves`` also checks that no four was made
before the last move; a lookup can skip that: stones never leave the board,
so such a string ends on a board with a four, and no book holds one.  A key
found in the book therefore proves its string legal; only a miss needs the
full check (``Position.from_moves``), which names a bad input.

Same bit layout as ``solver.bitboard``: ``key = current + mask``.
"""

from __future__ import annotations

from collections.abc import Sequence

from solver.bitboard import BOTTOM_CELLS, COLUMN_MASKS, H1, WIDTH

_STEP = {str(col + 1): (BOTTOM_CELLS[col], COLUMN_MASKS[col]) for col in range(WIDTH)}
_COLUMN = (1 << H1) - 1


def mirror_key(key: int) -> int:
    """The key of the mirror image.  Each column's 7 bits of ``current + mask``
    stay in that column (the sentinel bit takes the carry), so mirroring the
    key is mirroring its columns; unrolled, as this is half a lookup's work."""
    return (((key & _COLUMN) << 42) | ((key >> 7 & _COLUMN) << 35)
            | ((key >> 14 & _COLUMN) << 28) | (key & (_COLUMN << 21))
            | ((key >> 28 & _COLUMN) << 14) | ((key >> 35 & _COLUMN) << 7) | (key >> 42))


def keys_of(moves: str) -> tuple[int, int] | None:
    """``(key, mirror key)`` after ``moves``; None for a character other than 1-7
    or a move into a full column (the caller then asks ``Position``)."""
    key = key_of(moves)
    return None if key is None else (key, mirror_key(key))


def key_of(moves: str) -> int | None:
    """The key after ``moves`` (no mirror: a third of ``keys_of``'s time); None as ``keys_of``."""
    current = mask = 0
    try:
        for char in moves:
            bottom, column = _STEP[char]
            stone = (mask + bottom) & column  # 0 when the column is full
            if not stone:
                return None
            current ^= mask
            mask |= stone
    except KeyError:
        return None
    return current + mask


def keys_of_many(moves_list: Sequence[str]) -> tuple[list[int], list[int], list[bool]]:
    """``keys_of`` for many strings at once, one numpy step per ply across all of
    them: ``(keys, mirror keys, usable)``; where ``usable`` is False, ask ``Position``."""
    keys, mirrors, usable = key_arrays_of_many(moves_list)
    return keys.tolist(), mirrors.tolist(), usable.tolist()


def key_arrays_of_many(moves_list: Sequence[str]):
    """``keys_of_many`` as numpy arrays: uint64 keys and mirror keys, bool usable."""
    import numpy as np

    count = len(moves_list)
    lengths = np.fromiter(map(len, moves_list), dtype=np.int64, count=count)
    width = int(lengths.max()) if count else 0
    try:
        text = "".join([moves.ljust(width, "0") for moves in moves_list]).encode("ascii")
    except UnicodeEncodeError:
        text = None
    if text is None or len(text) != count * width:  # odd characters: one at a time
        pairs = [keys_of(moves) for moves in moves_list]
        return (np.array([p[0] if p else 0 for p in pairs], dtype=np.uint64),
                np.array([p[1] if p else 0 for p in pairs], dtype=np.uint64),
                np.array([p is not None for p in pairs], dtype=bool))
    # Byte -> that column's bottom cell and cells; anything but '1'-'7' gets 0, 0.
    bottoms = np.zeros(256, dtype=np.uint64)
    columns = np.zeros(256, dtype=np.uint64)
    for char, (bottom, column) in _STEP.items():
        bottoms[ord(char)], columns[ord(char)] = bottom, column
    grid = np.frombuffer(text, dtype=np.uint8).reshape(count, width)
    current = np.zeros(count, dtype=np.uint64)
    mask = np.zeros(count, dtype=np.uint64)
    usable = np.ones(count, dtype=bool)
    for ply in range(width):
        playing = lengths > ply
        chars = grid[:, ply]
        stone = (mask + bottoms[chars]) & columns[chars]
        usable &= ~(playing & (stone == 0))  # a bad character or a full column
        current = np.where(playing, current ^ mask, current)
        mask |= stone
    keys = current + mask
    return keys, mirror_keys(keys), usable


def mirror_keys(keys):
    """``mirror_key`` of each key of a uint64 numpy array."""
    import numpy as np

    column = np.uint64(_COLUMN)
    mirrors = np.zeros(len(keys), dtype=np.uint64)
    for col in range(WIDTH):
        mirrors |= ((keys >> np.uint64(col * H1)) & column) << np.uint64((WIDTH - 1 - col) * H1)
    return mirrors

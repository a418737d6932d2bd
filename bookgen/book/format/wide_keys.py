"""Keys past 64 bits in a book: ``(n, 2)`` uint64 rows ``(low, high)``, as SQL and the codecs
take them, with numpy alone.

A board whose key passes 64 bits (``Board.is_wide``: 8x8, 9x7, 5x12, up to
128 bits) lists its plies as rows of two words (``solver.wide.pairs``, whose
kernels load numba).  A reader never loads numba, so what the book's format
does with such keys is here, in numpy and Python integers: their order,
gaps and running sums over two words (a carry, a borrow), and their SQL
form, 16 bytes big-endian, which SQLite's BLOB and PostgreSQL's bytea order
bytewise, as the numbers are ordered (SQL's integers are signed 64-bit).
"""

from __future__ import annotations

import numpy as np

from solver.bitboard import Board

KEY_BYTES = 16  # a key's bytes in SQL and in a block index
WORD = (1 << 64) - 1
_BLOB = np.dtype(f"S{KEY_BYTES}")  # big-endian bytes: numpy orders them as unsigned numbers


def rows_of(keys: list[int]) -> np.ndarray:
    """Python integers (0 to 2**128 - 1) as ``(n, 2)`` rows; ``ValueError`` names any other."""
    for key in keys:
        if not 0 <= key <= (1 << 128) - 1:
            raise ValueError(f"{key!r} is not a key of two words (0 to 2**128 - 1)")
    rows = np.empty((len(keys), 2), dtype=np.uint64)
    rows[:, 0] = [key & WORD for key in keys]
    rows[:, 1] = [key >> 64 for key in keys]
    return rows


def ints_of(rows: np.ndarray) -> list[int]:
    """The Python integers of ``(n, 2)`` rows (``rows_of``' inverse)."""
    return [low | high << 64 for low, high in rows.tolist()]


def key_ints(keys: np.ndarray) -> list[int]:
    """Keys of one word (a uint64 array) or two (``(n, 2)`` rows) as Python integers."""
    return ints_of(keys) if keys.ndim == 2 else keys.tolist()


def empty_rows() -> np.ndarray:
    return np.empty((0, 2), dtype=np.uint64)


def increasing(rows: np.ndarray) -> bool:
    """Whether the keys of ``rows`` are strictly increasing."""
    low, high = rows[:, 0], rows[:, 1]
    return bool(((high[1:] > high[:-1]) | ((high[1:] == high[:-1]) & (low[1:] > low[:-1]))).all())


def order(rows: np.ndarray) -> np.ndarray:
    """The indices that sort ``rows`` by key (stable)."""
    return np.lexsort((rows[:, 0], rows[:, 1]))


def gaps(rows: np.ndarray) -> np.ndarray:
    """``(n, 2)`` rows: the first key itself, then each key minus the one before (a borrow
    from the high word where the low word goes down)."""
    out = np.empty_like(rows)
    out[:1] = rows[:1]
    np.subtract(rows[1:, 0], rows[:-1, 0], out=out[1:, 0])
    np.subtract(rows[1:, 1], rows[:-1, 1], out=out[1:, 1])
    out[1:, 1] -= (rows[1:, 0] < rows[:-1, 0]).astype(np.uint64)
    return out


def running_sum(steps: np.ndarray) -> np.ndarray:
    """``gaps`` undone, in place: each row the sum of the rows up to it, modulo 2**128.  The
    low words summed wrap; where a sum wraps it is below the step just added: a carry."""
    low, high = steps[:, 0], steps[:, 1]
    added = low.copy()
    np.cumsum(low, out=low)
    high += (low < added).astype(np.uint64)
    np.cumsum(high, out=high)
    return steps


def blobs_of(rows: np.ndarray) -> np.ndarray:
    """Each key's 16 bytes, big-endian, as a numpy bytes array (``S16``): its SQL form, and
    an array that numpy orders and searches as the keys are ordered."""
    big = np.ascontiguousarray(rows[:, ::-1], dtype=">u8")
    return big.view(_BLOB).ravel()


def blob_list(rows: np.ndarray) -> list[bytes]:
    """Each key's 16 bytes, big-endian, as Python ``bytes`` (what SQL binds).  Not through
    ``blobs_of(...).tolist()``: numpy's ``S16`` values lose their trailing zero bytes."""
    data = np.ascontiguousarray(rows[:, ::-1], dtype=">u8").tobytes()
    return [data[at : at + KEY_BYTES] for at in range(0, len(data), KEY_BYTES)]


def rows_of_blobs(blobs: list[bytes]) -> np.ndarray:
    """``blobs_of`` undone, from 16-byte values; ``ValueError`` if one is not 16 bytes."""
    data = b"".join(blobs)
    if len(data) != KEY_BYTES * len(blobs):
        raise ValueError(f"a key is not {KEY_BYTES} bytes")
    big = np.frombuffer(data, dtype=">u8").reshape(-1, 2)
    return big[:, ::-1].astype(np.uint64)


def key_blob(key: int) -> bytes:
    """One key's SQL form: 16 bytes, big-endian."""
    return key.to_bytes(KEY_BYTES, "big")


def blob_literal(key: int, dialect: str) -> str:
    """SQL text of one key's blob, for a ``WHERE`` of literals (``rows.read_rows``)."""
    hexed = key_blob(key).hex()
    return f"'\\x{hexed}'::bytea" if dialect == "postgresql" else f"X'{hexed}'"


def searchsorted(haystack: np.ndarray, needles: np.ndarray, side: str = "left") -> np.ndarray:
    """``np.searchsorted`` of ``(n, 2)`` rows, through their big-endian bytes."""
    return np.searchsorted(blobs_of(haystack), blobs_of(needles), side=side)  # type: ignore[call-overload]


def contains(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """For each of the rows ``needles``, whether the sorted rows ``haystack`` hold it."""
    if not len(haystack):
        return np.zeros(len(needles), dtype=bool)
    at = np.minimum(searchsorted(haystack, needles), len(haystack) - 1)
    return (haystack[at] == needles).all(axis=1)


def union(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The sorted keys that either of two sets of rows holds, each once."""
    rows = np.concatenate((first, second))
    rows = rows[order(rows)]
    keep = np.ones(len(rows), dtype=bool)
    keep[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    return rows[keep]


def stones_of(key: int, board: Board) -> int:
    """Stones on the board of one key (a Python integer): a column of ``h`` stones is
    ``2**h - 1 + stones``, so ``h`` is the top bit of one more than it."""
    column = (1 << board.h1) - 1
    return sum(
        ((key >> (col * board.h1) & column) + 1).bit_length() - 1 for col in range(board.width)
    )


class KeyList:
    """``(n, 2)`` rows as a sequence of Python integers, made as each is read: what ``bisect``
    searches, as it searches a memoryview of one-word keys."""

    __slots__ = ("_high", "_low", "rows")

    def __init__(self, rows: np.ndarray):
        self.rows = rows
        self._low = memoryview(np.ascontiguousarray(rows[:, 0]))  # type: ignore[arg-type]
        self._high = memoryview(np.ascontiguousarray(rows[:, 1]))  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._low)

    def __getitem__(self, at: int) -> int:
        return self._low[at] | self._high[at] << 64

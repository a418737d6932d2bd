"""The transposition table on two words: buckets of two entries, an entry two uint64 words.

A 128-bit key does not fit one word beside the payload, so an entry takes two::

    word 0:  63 ........ 17 | 16 .. 13 | 12 .. 9 | 8 .. 7 | 6 .. 0
             tag (47 bits)  |   work   |  move   |  type  | score - min_score
    word 1:  the key's low word XOR word 0

* **No false matches.**  The tag is the key's high word whole when it fits
  (keys of at most 111 bits: 8x8, 9x9, 5x12, ...).  Past that it is the low
  bits of ``mix``, a bijection of the high word given the low one, whose high
  bits are the bucket's index: index and tag together name the high word, as
  in ``solver._table`` (``min_table_log2``).  Word 1 names the low word.
* **Torn entries are misses.**  Threads write the two words one at a time;
  word 1 holds the low word XOR word 0 (Hyatt's lockless hashing), so half of
  one entry and half of another do not check out (but by chance, 2^-64).
* A bucket is two entries, 32 bytes, in one cache line; the replacement rule,
  the bound types and the work are ``solver._table``'s.  The near table for
  deep positions is the same 1 MiB of each thread's scratch, in these entries
  (not for keys past 111 bits: its index is too short for their tags).

The table is the same ``2**table_log2`` uint64 words as a one-word board's,
so the same memory holds half as many entries.
"""

import numpy as np
from numba import njit

from .._table import EXACT, GOLDEN, LOWER, NEAR_SHIFT, UPPER, no_move
from . import _board_type  # noqa: F401 -- teaches numba the wide Board type
from ._words import ZERO

__all__ = ["EXACT", "LOWER", "UPPER"]

MIX = np.uint64(0xC2B2AE3D27D4EB4F)  # odd: multiplying by it is a bijection of words
SCORE_BITS = np.uint64(0x7F)  # scores of boards up to 128 cells
TYPE_SHIFT = np.uint64(7)
TYPE_BITS = np.uint64(3)
MOVE_SHIFT = np.uint64(9)
WORK_SHIFT = np.uint64(13)
WORK_BITS = np.uint64(15)
TAG_SHIFT = np.uint64(17)
TAG_WIDTH = 64 - 17
TAG_MASK = np.uint64((1 << TAG_WIDTH) - 1)
BUCKET = np.uint64(3)  # a bucket: two entries of two words


def whole_high(key_bits: int) -> bool:
    """Whether a key's high word fits an entry's tag whole."""
    return key_bits - 64 <= TAG_WIDTH


def min_table_log2(board) -> int:
    """The smallest table whose bucket index, with a tag, names a key's high word: the
    index (the table's words less the bucket's two bits) must fill what the tag lacks."""
    return 0 if whole_high(board.key_bits) else 64 - TAG_WIDTH + 2


@njit(cache=True)
def _whole(board):
    return board.key_bits - 64 <= TAG_WIDTH


@njit(cache=True)
def near_table(board):
    """Whether deep positions go to the thread's near table (its index is 15 bits)."""
    return _whole(board)


@njit(cache=True)
def mix(key):
    """A word of the key's bits: a bijection of its high word once the low one is known."""
    return ((key[0] * GOLDEN) ^ key[1]) * MIX


@njit(cache=True)
def bucket(mixed, shift):
    """First word of the bucket of a key whose ``mix`` is ``mixed``."""
    return (mixed >> shift) & ~BUCKET


@njit(cache=True)
def near_bucket(mixed):
    """``bucket`` in a near table (``solver._table.NEAR_SLOTS`` words)."""
    return (mixed >> NEAR_SHIFT) & ~BUCKET


@njit(cache=True)
def tag(board, key, mixed):
    """What word 0 keeps of the key (see the module doc)."""
    if _whole(board):
        return key[1]
    return mixed & TAG_MASK


@njit(cache=True)
def probe(board, table, slot, key, mixed):
    """Word 0 of the entry stored for ``key`` in the bucket at ``slot``, or 0."""
    mine = tag(board, key, mixed)
    for i in (np.uint64(0), np.uint64(2)):
        entry = table[slot + i]
        if (
            entry >> TAG_SHIFT == mine
            and entry & (TYPE_BITS << TYPE_SHIFT) != ZERO
            and table[slot + i + np.uint64(1)] ^ entry == key[0]
        ):
            return entry
    return ZERO


@njit(cache=True)
def entry_type(entry):
    return np.int64((entry >> TYPE_SHIFT) & TYPE_BITS)


@njit(cache=True)
def entry_score(board, entry):
    return np.int64(entry & SCORE_BITS) + board.min_score


@njit(cache=True)
def entry_move(board, entry):
    return np.int64((entry >> MOVE_SHIFT) & np.uint64(no_move(board)))


@njit(cache=True)
def store(board, table, slot, key, mixed, kind, score, move, work):
    """Write an entry into the bucket at ``slot``: over the same key's, else over the
    entry that cost less work (``solver._table.store``)."""
    mine = tag(board, key, mixed)
    one = np.uint64(1)
    first = table[slot]
    second = table[slot + np.uint64(2)]
    if first >> TAG_SHIFT == mine and first != ZERO and table[slot + one] ^ first == key[0]:
        target, old = slot, first
    elif (
        second >> TAG_SHIFT == mine
        and second != ZERO
        and table[slot + np.uint64(3)] ^ second == key[0]
    ):
        target, old = slot + np.uint64(2), second
    elif (second >> WORK_SHIFT) & WORK_BITS < (first >> WORK_SHIFT) & WORK_BITS:
        target, old = slot + np.uint64(2), ZERO
    else:
        target, old = slot, ZERO
    if old != ZERO:
        old_kind = entry_type(old)
        if old_kind == EXACT:
            return  # nothing to add to an exact score
        # An upper and a lower bound that meet make an exact score.
        if old_kind + kind == UPPER + LOWER and entry_score(board, old) == score:
            kind = EXACT
    entry = (
        (mine << TAG_SHIFT)
        | (np.uint64(work) << WORK_SHIFT)
        | (np.uint64(move) << MOVE_SHIFT)
        | (np.uint64(kind) << TYPE_SHIFT)
        | np.uint64(score - board.min_score)
    )
    table[target] = entry
    table[target + one] = key[0] ^ entry

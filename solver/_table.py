"""The transposition table: two-slot buckets of one 64-bit word per entry.

An entry packs the position's key with what the search learnt; on 7x6::

      63 ............................ 15 | 14 .. 11 | 10 .. 8 | 7 .. 6 | 5 .. 0
      table key (49 bits)                |   work   |  move   |  type  | score - min_score

* **Whole key, no false matches.**  A 49-bit key plus 15 bits of payload fill
  the word exactly, so a hit is always the right position, and a word written
  by another thread is never read torn (aligned 64-bit stores are atomic).
* **type**: 0 marks an empty slot, then UPPER, LOWER or EXACT bound.
* **move**: the best (or cut) column seen, in the key's orientation, in
  ``board.column_bits`` bits (3 up to width 7, 4 for 8 and 9); ``no_move``
  (all ones) when none was searched.
* **work**: about log4 of the nodes searched under the entry.  Each bucket is
  two neighbouring slots (one cache line): a new entry replaces the same
  position if present, else the slot whose entry cost less to compute.  So one
  slot keeps the costly results of deep searches while the other takes the
  stream of cheap ones.

**Keys too wide for the word** (7x7, 9x6, 8x7: 56-64 bits).  The entry keeps
the low bits of the key times an odd constant instead (``tag``).  That
product is a bijection of 64-bit words, and its high bits are the bucket's
index, so the index and the stored bits together still name one key: still
no false matches, as long as the index has enough bits (``min_table_log2``).

Keys are canonical (see ``_key``): a position and its mirror image share one entry.

**A near table for deep positions.**  A probe of the big table is a trip to
main memory (most of a node's cost), yet the deep positions that make most
of the nodes are cheap to recompute and are met again soon if at all.  So
positions with at most ``NEAR_EMPTIES`` empty cells (on 7x6: from ply 23 on)
use a small near table (``NEAR_SLOTS``, 1 MiB)
that stays in the CPU's cache, one per search thread (it lives in the
thread's scratch array, see ``_search``): threads that shared it would only
evict each other's entries.  Only the costly shallow positions go to the big
table, which all threads share.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# Bound types, for this table and the evaluation search's (``_evaluate``); 0 marks an empty slot.
UPPER, LOWER, EXACT = 1, 2, 3

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
ZERO = np.uint64(0)
ONE = np.uint64(1)
MOVE_SHIFT = 8
TYPE_SHIFT = np.uint64(6)
TYPE_BITS = np.uint64(3)
SCORE_BITS = np.uint64(63)
WORK_WIDTH = 4
WORK_BITS = np.uint64(15)
EVEN = ~ONE
NEAR_EMPTIES = 19  # counted in empty cells, not plies: the subtree's depth on any board
NEAR_LOG2 = 17
NEAR_SLOTS = 1 << NEAR_LOG2
NEAR_SHIFT = np.uint64(64 - NEAR_LOG2)


def new_table(table_log2):
    """An empty big table of ``2**table_log2`` slots."""
    return np.zeros(1 << table_log2, dtype=np.uint64)


@njit(cache=True, inline="always")
def _key_shift(board):
    """Where the key starts in an entry: after score, type, move and work."""
    return np.uint64(MOVE_SHIFT + board.column_bits + WORK_WIDTH)


@njit(cache=True, inline="always")
def _whole_key(board):
    """Whether the board's keys fit an entry whole (else entries keep ``tag`` bits)."""
    return np.uint64(board.key_bits) + _key_shift(board) <= np.uint64(64)


def min_table_log2(board) -> int:
    """The smallest table whose bucket index, with an entry's tag bits, names one key."""
    return 0 if _whole_key(board) else int(_key_shift(board)) + 1


@njit(cache=True, inline="always")
def no_move(board):
    """The move field's value for "no move searched"."""
    return (1 << board.column_bits) - 1


@njit(cache=True, inline="always")
def tag(board, key):
    """What an entry keeps of ``key``: the key itself, or for keys too wide for the
    word the odd multiple that ``bucket`` hashes (the bits above fall off the word)."""
    if _whole_key(board):
        return key
    return (key * GOLDEN) & ((ONE << (np.uint64(64) - _key_shift(board))) - ONE)


@njit(cache=True, inline="always")
def bucket(key, shift):
    """First slot of the key's bucket (an even index)."""
    return ((key * GOLDEN) >> shift) & EVEN


@intrinsic
def prefetch(typingctx, table, slot):
    """Start loading ``table[slot]`` into the cache, and go on without waiting."""

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        address = builder.bitcast(builder.gep(array.data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        kind = ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32])
        llvm_prefetch = cgutils.get_or_insert_function(builder.module, kind, "llvm.prefetch.p0")
        # read, high temporal locality, data cache
        builder.call(
            llvm_prefetch, [address, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)]
        )
        return context.get_dummy_value()

    return types.void(table, slot), codegen


@njit(cache=True, inline="always")
def probe(board, table, slot, key):
    """The entry stored for ``key`` in the bucket at ``slot``, or 0."""
    shift = _key_shift(board)
    mine = tag(board, key)
    entry = table[slot]
    if entry >> shift == mine and entry & (TYPE_BITS << TYPE_SHIFT) != ZERO:
        return entry
    entry = table[slot + ONE]
    if entry >> shift == mine and entry & (TYPE_BITS << TYPE_SHIFT) != ZERO:
        return entry
    return ZERO


@njit(cache=True, inline="always")
def entry_type(entry):
    return np.int64((entry >> TYPE_SHIFT) & TYPE_BITS)


@njit(cache=True, inline="always")
def entry_score(board, entry):
    return np.int64(entry & SCORE_BITS) + board.min_score


@njit(cache=True, inline="always")
def entry_move(board, entry):
    return np.int64((entry >> np.uint64(MOVE_SHIFT)) & np.uint64(no_move(board)))


@njit(cache=True, inline="always")
def work_of(nodes):
    """About log4 of a node count, capped to fit four bits."""
    work = 0
    while nodes > np.uint64(3) and work < 15:
        nodes >>= np.uint64(2)
        work += 1
    return work


@njit(cache=True, inline="always")
def store(board, table, slot, key, kind, score, move, work):
    """Write an entry into the bucket at ``slot`` (see the module doc for which slot)."""
    shift = _key_shift(board)
    work_shift = np.uint64(MOVE_SHIFT + board.column_bits)
    mine = tag(board, key)
    first = table[slot]
    second = table[slot + ONE]
    if first >> shift == mine and first != ZERO:
        target, old = slot, first
    elif second >> shift == mine and second != ZERO:
        target, old = slot + ONE, second
    elif (second >> work_shift) & WORK_BITS < (first >> work_shift) & WORK_BITS:
        target, old = slot + ONE, ZERO
    else:
        target, old = slot, ZERO
    if old != ZERO:
        old_kind = entry_type(old)
        if old_kind == EXACT:
            return  # nothing to add to an exact score
        # An upper and a lower bound that meet make an exact score.
        if old_kind + kind == UPPER + LOWER and entry_score(board, old) == score:
            kind = EXACT
    table[target] = (
        (mine << shift)
        | (np.uint64(work) << work_shift)
        | (np.uint64(move) << np.uint64(MOVE_SHIFT))
        | (np.uint64(kind) << TYPE_SHIFT)
        | np.uint64(score - board.min_score)
    )

"""Keys past 64 bits: the two-word twins of ``solver.packed``'s kernels over arrays of keys.

A key is ``current + mask``, as on one word (``solver.packed``): column by
column ``2**h - 1 + stones``.  On a board past 64 bits it is a pair of words
``(low, high)`` (``_words``), and a list of keys an ``(n, 2)`` uint64 array,
a row a key (``pairs``: sorted and searched by kernels, not numpy).  The
one-word kernels and their arrays stay as they are: these are a set of
their own, loaded only by a process that lists such a board.

A column, its sentinel included (at most 32 bits), is read and written as
one word (``_column``): decoding a key takes no 128-bit subtraction.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bitboard import Board
from ..packed import (
    DEAD_BITS,
    DEAD_SHIFT,
    FIBONACCI,
    MOVE_DECIDED,
    MOVE_FULL,
    MOVE_READ,
    UnreachableKeyError,
    _prefix_rows,
    move_strings,
)
from ..position import Position
from ._bits import has_four, mirror
from ._words import NONE, ONE, ZERO, add, and_, is_zero, less, or_, shl, shr, words, xor
from .pairs import LARGEST, ints_of, pairs_of, sort_pairs, unique_sorted

# Above every key past 64 bits: no key sets all 128 bits (a column's sentinel bit is set
# only with none of its cells, and the top column of a 128-bit board holds cells).
WIDE_KEY_END = LARGEST


@njit(cache=True)
def _column(board, bits, col):
    """Column ``col``'s bits of a pair, with its sentinel, as one word."""
    return shr(bits, np.uint64(col) * board.h1)[0] & board.column


@njit(cache=True)
def decode(board, key):
    """``(current, mask, ply)`` of a key; ``current`` and ``mask`` are pairs."""
    current, mask = NONE, NONE
    ply = 0
    for col in range(board.width):
        shift = np.uint64(col) * board.h1
        column = _column(board, key, col)
        group = column + ONE  # 2**h + stones: top bit gives h
        h = 0
        while group > ONE:
            group >>= ONE
            h += 1
        cells = (ONE << np.uint64(h)) - ONE
        current = or_(current, shl((column - cells, ZERO), shift))
        mask = or_(mask, shl((cells, ZERO), shift))
        ply += h
    return current, mask, ply


@njit(cache=True)
def canonical(board, key):
    other = mirror(board, key)
    return other if less(other, key) else key


@njit(cache=True)
def _stone(board, mask, col):
    """The cell a stone dropped in ``col`` (0-based, not full) fills."""
    shift = np.uint64(col) * board.h1
    return and_(add(mask, shl((ONE, ZERO), shift)), shl((board.column_cells, ZERO), shift))


@njit(cache=True)
def child_key(board, current, mask, col):
    """``(key, won)`` after the mover plays ``col`` (0-based, not full)."""
    stone = _stone(board, mask, col)
    return add(xor(current, mask), or_(mask, stone)), has_four(board, or_(current, stone))


@njit(cache=True)
def is_full_column(board, mask, col):
    return ((_column(board, mask, col) >> (board.h - ONE)) & ONE) != ZERO


@njit(cache=True, inline="always")
def move_rule(board, current, mask, ply, col):
    """``solver.packed.move_rule`` over pairs: ``(kind, score, child)``, the child a pair
    (``NONE`` but for ``MOVE_READ``)."""
    if is_full_column(board, mask, col):
        return MOVE_FULL, np.int64(0), NONE
    child, won = child_key(board, current, mask, col)
    if won:
        return MOVE_DECIDED, np.int64((board.cells + 1 - ply) // 2), NONE  # Board.win_score
    if ply + 1 == board.cells:
        return MOVE_DECIDED, np.int64(0), NONE
    return MOVE_READ, np.int64(0), canonical(board, child)


@njit(cache=True)
def canonical_keys(board, keys):
    """``canonical`` of each key."""
    out = np.empty_like(keys)
    for i in range(len(keys)):
        out[i, 0], out[i, 1] = canonical(board, (keys[i, 0], keys[i, 1]))
    return out


@njit(cache=True)
def plies_of(board, keys):
    """Stones on the board for each key."""
    out = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        out[i] = decode(board, (keys[i, 0], keys[i, 1]))[2]
    return out


@njit(cache=True)
def _children_into(board, keys, low, high, out):
    """Write the canonical unfinished children in ``[low, high)`` (pairs) to ``out`` (if
    not empty); return how many there are."""
    n = 0
    for i in range(len(keys)):
        current, mask, ply = decode(board, (keys[i, 0], keys[i, 1]))
        if ply + 1 >= board.cells:
            continue  # the last stone ends the game: no unfinished child
        for col in range(board.width):
            if is_full_column(board, mask, col):
                continue
            key, won = child_key(board, current, mask, col)
            if won:
                continue
            key = canonical(board, key)
            if not less(key, low) and less(key, high):
                if len(out):
                    out[n, 0], out[n, 1] = key
                n += 1
    return n


@njit(cache=True)
def unfinished_children(board, keys, low, high):
    """Canonical keys in ``[low, high)`` (pairs) of every unfinished child of ``keys``.

    Unsorted, with repeats, counted then filled, as ``solver.packed``'s.
    """
    count = _children_into(board, keys, low, high, np.empty((0, 2), dtype=np.uint64))
    out = np.empty((count, 2), dtype=np.uint64)
    _children_into(board, keys, low, high, out)
    return out


def sorted_children(board: Board, keys: np.ndarray, low: int, high: int) -> np.ndarray:
    """Sorted canonical keys of the unfinished children of ``keys`` in ``[low, high)``
    (Python integers): ``bookgen.builder.listing.expand`` past 64 bits."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1, 2)
    children = unfinished_children(board, keys, words(low), words(high))
    return unique_sorted(sort_pairs(children, board.key_bits)).copy()  # the buffers freed


@njit(cache=True)
def _slot(stones):
    return ((stones[0] ^ (stones[1] * FIBONACCI)) * FIBONACCI) >> DEAD_SHIFT


@njit(cache=True)
def _replay(board, key, digits, dead, owner, tag, prefix):
    """``solver.packed._replay`` over pairs: fill ``digits`` with the smallest move string
    that starts with ``prefix`` and reaches ``key``; steps taken, or -1.  ``dead`` holds
    the boards found dead as rows of pairs."""
    current, mask, ply = decode(board, key)
    first = current if ply % 2 == 0 else xor(current, mask)  # the first player's stones
    tried = np.zeros(ply + 1, dtype=np.int64)
    stones = np.empty((ply + 1, 2), dtype=np.uint64)
    stones_in = NONE
    depth = 0
    steps = 0
    while depth < len(prefix) and prefix[depth] != 0:  # the prefix is forced
        mine = first if depth % 2 == 0 else xor(mask, first)
        stone = _stone(board, stones_in, prefix[depth] - 1)
        if depth >= ply or is_zero(and_(stone, mine)):
            return -1
        digits[depth] = prefix[depth]
        stones_in = or_(stones_in, stone)
        depth += 1
    start = depth
    tried[depth] = 0
    while depth < ply:
        mine = first if depth % 2 == 0 else xor(mask, first)
        played = False
        while tried[depth] < board.width:
            col = tried[depth]
            tried[depth] += 1
            steps += 1
            stone = _stone(board, stones_in, col)
            if not is_zero(and_(stone, mine)):
                after = or_(stones_in, stone)
                slot = _slot(after)
                if owner[slot] == tag and dead[slot, 0] == after[0] and dead[slot, 1] == after[1]:
                    continue
                stones[depth, 0], stones[depth, 1] = stone
                digits[depth] = col + 1
                stones_in = after
                depth += 1
                tried[depth] = 0
                played = True
                break
        if not played:
            if depth == start:
                return -1
            slot = _slot(stones_in)
            dead[slot, 0], dead[slot, 1] = stones_in
            owner[slot] = tag
            depth -= 1
            stones_in = xor(stones_in, (stones[depth, 0], stones[depth, 1]))
    return steps


@njit(cache=True)
def _dead_table():
    return np.zeros((1 << DEAD_BITS, 2), dtype=np.uint64), np.full(1 << DEAD_BITS, -1, np.int64)


@njit(cache=True)
def replay_keys(board, keys, prefixes):
    """``solver.packed.replay_keys`` of ``(n, 2)`` keys: digit rows and plies."""
    digits = np.zeros((len(keys), board.cells), dtype=np.uint8)
    plies = np.full(len(keys), -1, dtype=np.int64)
    dead, owner = _dead_table()
    tag = 0
    for i in range(len(keys)):
        key = (keys[i, 0], keys[i, 1])
        for j in range(len(prefixes)):
            tag += 1  # a new search: boards found dead before do not apply
            if _replay(board, key, digits[i], dead, owner, tag, prefixes[j]) >= 0:
                plies[i] = decode(board, key)[2]
                break
    return digits, plies


def move_digits_of_keys(keys: np.ndarray, root: str, board: Board) -> tuple[np.ndarray, np.ndarray]:
    """``solver.packed.move_digits_of_keys`` of ``(n, 2)`` keys on a board past 64 bits."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1, 2)
    digits, plies = replay_keys(board, keys, _prefix_rows(root, board))
    if (plies < 0).any():
        raise UnreachableKeyError(ints_of(keys[plies < 0][:1])[0], board)
    return digits, plies


def moves_of_keys(keys: np.ndarray, root: str, board: Board) -> list[str]:
    """``solver.packed.moves_of_keys`` of ``(n, 2)`` keys: the smallest move string that
    replays to each (starting with ``root``'s moves or their mirror image if one can)."""
    return move_strings(*move_digits_of_keys(keys, root, board))


def moves_of_key(key: int, root: str, board: Board) -> str:
    """The move string of one key, a Python integer (``moves_of_keys``)."""
    return moves_of_keys(pairs_of([key]), root, board)[0]


@njit(cache=True)
def _boards_of(board, keys, current, mask):
    for i in range(len(keys)):
        c, m, _ = decode(board, (keys[i, 0], keys[i, 1]))
        current[i, 0], current[i, 1] = c
        mask[i, 0], mask[i, 1] = m


def positions_of_keys(keys: np.ndarray, root: str, board: Board) -> list[Position]:
    """``[Position.from_moves(m, board) for m in moves_of_keys(keys, root, board)]``, faster:
    the boards come from the keys (of unfinished positions)."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1, 2)
    current, mask = np.empty_like(keys), np.empty_like(keys)
    _boards_of(board, keys, current, mask)
    raw = Position._raw
    return [
        raw(c, m, moves, False, board)
        for c, m, moves in zip(
            ints_of(current), ints_of(mask), moves_of_keys(keys, root, board), strict=True
        )
    ]

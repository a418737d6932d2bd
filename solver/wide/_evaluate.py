"""The anytime search's evaluation on two words: ``solver._evaluate``'s kernels over pairs.

The same static evaluation (threats with row parity, zugzwang, open lines,
centre), with the same weights (imported), and the same depth-limited
alpha-beta reading the same proofs at its leaves: the exact solver's table
(``_search.table_bounds``, two-word entries) and the static rules
(``_bounds``).  Left out: the caller's known scores (book entries), as books
keep one-word keys.  The evaluation's own table holds a key's two words, at
``tt_keys[2 * slot]`` and ``tt_keys[2 * slot + 1]`` (``tt_keys`` is twice
``tt_data``'s length); its slot is the key's low bits, as the one-word one's,
so a one-word board typed as a wide one searches the very same tree.
"""

import numpy as np
from numba import njit

from .._evaluate import (
    BIG,
    CENTRE_STONE,
    GOOD_THREAT,
    HEURISTIC_MAX,
    INFINITY,
    NEAR_CENTRE_STONE,
    ONE_LINE,
    ORDER_BASE,
    OTHER_THREAT,
    SHADOWED,
    STACKED,
    STOP_REQUEST,
    TWO_LINE,
    U8,
    U16,
    VALUE_SHIFT,
    ZUGZWANG,
    _insert_sorted,
    _slots,
    proven_value,
    scratch_size,
)
from .._search import LIMIT, NODES, STOPPED
from ._bits import opponent_threats, possible, safe_moves, winning_cells
from ._bounds import lower_bound, upper_bound
from ._search import table_bounds
from ._table import EXACT, LOWER, UPPER
from ._words import ONE, ZERO, add, and_, andnot, is_zero, ones, or_, several, shl, shr, xor

__all__ = [
    "BIG",
    "HEURISTIC_MAX",
    "INFINITY",
    "LIMIT",
    "NODES",
    "STOPPED",
    "STOP_REQUEST",
    "scratch_size",
]

U2 = np.uint64(2)
U3 = np.uint64(3)


@njit(cache=True)
def _above(board, cells):
    """Every cell above some cell of ``cells`` in its column."""
    # One row at a time: the sentinel row, masked off, stops each column's climb.
    up = and_(shl(cells, ONE), board.all_cells)
    above = up
    for _ in range(board.height - 2):
        up = and_(shl(up, ONE), board.all_cells)
        above = or_(above, up)
    return above


@njit(cache=True)
def _lines(own, free, s):
    """``_evaluate._open_lines``' count along shift ``s``: the lines of four within ``free``
    holding one and two of ``own``'s stones, weighted."""
    starts = and_(and_(free, shr(free, s)), and_(shr(free, U2 * s), shr(free, U3 * s)))
    a = and_(own, starts)
    b = and_(shr(own, s), starts)
    c = and_(shr(own, U2 * s), starts)
    d = and_(shr(own, U3 * s), starts)
    # Bit-sliced sum a + b + c + d for every line at once.
    ab, cd = xor(a, b), xor(c, d)
    bit0 = xor(ab, cd)
    carry_ab, carry_cd, carry = and_(a, b), and_(c, d), and_(ab, cd)
    bit1 = xor(xor(carry_ab, carry_cd), carry)
    bit2 = or_(and_(carry_ab, carry_cd), and_(or_(carry_ab, carry_cd), carry))
    single = andnot(andnot(bit0, bit1), bit2)
    double = andnot(andnot(bit1, bit0), bit2)
    return ONE_LINE * np.int64(ones(single)) + TWO_LINE * np.int64(ones(double))


@njit(cache=True)
def _open_lines(board, own, opponent):
    """Weighted count of the lines of four free of opponent stones, by own stones in them."""
    # Each direction written out, so that its shifts fold to constants.
    free = andnot(board.all_cells, opponent)
    return (
        _lines(own, free, ONE)
        + _lines(own, free, board.h)
        + _lines(own, free, board.h1)
        + _lines(own, free, board.h2)
    )


@njit(cache=True)
def _threats(board, own, other, good_rows):
    """Points for ``own``'s threats given ``other``'s threats (both empty-cell sets)."""
    live = andnot(own, _above(board, other))
    good = np.int64(ones(and_(live, good_rows)))
    bad = np.int64(ones(andnot(live, good_rows)))
    shadowed = np.int64(ones(andnot(own, live)))
    stacked = np.int64(ones(and_(own, shr(own, ONE))))
    return GOOD_THREAT * good + OTHER_THREAT * bad + SHADOWED * shadowed + STACKED * stacked


@njit(cache=True, nogil=True)
def evaluate(board, position, mask, ply):
    """Static value of a position for the player to move, within ``HEURISTIC_MAX``."""
    mover_first = ply % 2 == 0
    first = position if mover_first else xor(position, mask)
    second = xor(first, mask)
    first_threats = winning_cells(board, first, mask)
    second_threats = winning_cells(board, second, mask)
    value = _threats(board, first_threats, second_threats, board.under_top_rows) - _threats(
        board, second_threats, first_threats, board.top_rows
    )
    # Zugzwang: with threats of its own parity and none of the opponent's,
    # a player usually wins the fight for the last cells.
    first_good = and_(andnot(first_threats, _above(board, second_threats)), board.under_top_rows)
    second_good = and_(andnot(second_threats, _above(board, first_threats)), board.top_rows)
    if not is_zero(first_good) and is_zero(second_good):
        value += ZUGZWANG
    elif not is_zero(second_good) and is_zero(first_good):
        value -= ZUGZWANG
    value += _open_lines(board, first, second) - _open_lines(board, second, first)
    centre, near = board.centre, board.near_centre
    value += CENTRE_STONE * (
        np.int64(ones(and_(first, centre))) - np.int64(ones(and_(second, centre)))
    )
    value += NEAR_CENTRE_STONE * (
        np.int64(ones(and_(first, near))) - np.int64(ones(and_(second, near)))
    )
    if not mover_first:
        value = -value
    return max(-HEURISTIC_MAX, min(HEURISTIC_MAX, value))


@njit(cache=True)
def _column(board, rank):
    """The cells of the ``rank``-th column in search order."""
    return board.ordered_low[rank], board.ordered_high[rank]


@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba's stubs lack its private _nrt
def search(
    board, position, mask, ply, depth, alpha, beta, tt_keys, tt_data, table, near, shift, scratch
):
    """Fail-soft negamax value within ``(alpha, beta)``, ``depth`` plies deep
    (``_evaluate.search``'s, step for step; scratch items end in a column's rank).

    Forced moves (a single non-losing move) do not use up depth.  The caller
    makes sure the player to move cannot win at once.
    """
    scratch[NODES] += ONE
    if scratch[STOP_REQUEST] != ZERO or (
        scratch[LIMIT] != ZERO and scratch[NODES] > scratch[LIMIT]
    ):
        scratch[STOPPED] = ONE
        return 0
    moves = safe_moves(board, mask, opponent_threats(board, position, mask))
    if is_zero(moves):
        return proven_value(-((board.cells - ply) // 2))
    if ply >= board.cells - 2:
        return 0

    low, high = table_bounds(board, position, mask, table, near, shift)
    # The solver's static rules (claimeven, dead lines) are proofs too.
    high = upper_bound(board, position, mask, high)
    low = lower_bound(board, position, mask, moves, low)
    if low >= 1:  # a proven win, at least this fast
        if BIG + low >= beta:
            return BIG + low
        alpha = max(alpha, BIG + low)
    elif high <= -1:
        if -BIG + high <= alpha:
            return -BIG + high
        beta = min(beta, -BIG + high)

    if depth <= 0 and several(moves):
        value = evaluate(board, position, mask, ply)
        if low >= 0:
            value = max(value, 0)
        if high <= 0:
            value = min(value, 0)
        return value

    key = add(position, mask)
    slot = key[0] & np.uint64(tt_data.size - 1)
    at = slot + slot
    tt_move = -1
    if tt_keys[at] == key[0] and tt_keys[at + ONE] == key[1]:
        data = tt_data[slot]
        tt_move = np.int64(data & np.uint64(15)) - 1
        if np.int64((data >> U8) & np.uint64(255)) >= depth:
            value = np.int64(data >> U16) - VALUE_SHIFT
            kind = np.int64((data >> np.uint64(4)) & np.uint64(3))
            if (
                kind == EXACT
                or (kind == LOWER and value >= beta)
                or (kind == UPPER and value <= alpha)
            ):
                return value

    # Order: the table's move, then more winning cells, then nearer the centre.
    base = ORDER_BASE + _slots(board) * ply
    count = 0
    for rank in range(board.width):
        move = and_(moves, _column(board, rank))
        if not is_zero(move):
            threats = ones(winning_cells(board, or_(position, move), mask))
            item = (threats << U8) | np.uint64(board.width - rank)
            if board.column_order[rank] == tt_move:
                item |= np.uint64(1 << 20)
            _insert_sorted(scratch, base, count, (item << U8) | np.uint64(rank))
            count += 1

    next_depth = depth - 1 if count > 1 else depth
    original_alpha = alpha
    best, best_col = -INFINITY, -1
    for i in range(count):
        rank = np.int64(scratch[base + i] & np.uint64(255))
        move = and_(moves, _column(board, rank))
        value = -search(
            board,
            xor(position, mask),
            or_(mask, move),
            ply + 1,
            next_depth,
            -beta,
            -alpha,
            tt_keys,
            tt_data,
            table,
            near,
            shift,
            scratch,
        )
        if scratch[STOPPED] != ZERO:
            return 0
        if value > best:
            best, best_col = value, board.column_order[rank]
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    kind = LOWER if best >= beta else UPPER if best <= original_alpha else EXACT
    tt_keys[at] = key[0]
    tt_keys[at + ONE] = key[1]
    tt_data[slot] = (
        (np.uint64(best + VALUE_SHIFT) << U16)
        | (np.uint64(max(depth, 0)) << U8)
        | np.uint64(kind << 4)
        | np.uint64(best_col + 1)
    )
    return best


@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba's stubs lack its private _nrt
def root_values(
    board,
    position,
    mask,
    ply,
    depth,
    columns,
    values,
    tt_keys,
    tt_data,
    table,
    near,
    shift,
    scratch,
):
    """Search the root moves ``columns`` (0-based, in this order) to ``depth``
    (``_evaluate.root_values``'): how many moves were searched before a stop."""
    alpha = -INFINITY
    for i in range(columns.size):
        cell = shl((board.column_cells, ZERO), np.uint64(columns[i]) * board.h1)
        move = and_(possible(board, mask), cell)
        if ply + 1 >= board.cells:  # the move fills the board
            values[i] = 0
            alpha = max(alpha, 0)
            continue
        value = -search(
            board,
            xor(position, mask),
            or_(mask, move),
            ply + 1,
            depth - 1,
            -INFINITY,
            -alpha,
            tt_keys,
            tt_data,
            table,
            near,
            shift,
            scratch,
        )
        if scratch[STOPPED] != ZERO:
            return i
        values[i] = value
        alpha = max(alpha, value)
    return columns.size


@njit(cache=True)
def _columns_of(board, cells):
    """Bit c set for each 0-based column holding one of ``cells``."""
    out = 0
    for rank in range(board.width):
        if not is_zero(and_(cells, _column(board, rank))):
            out |= 1 << board.column_order[rank]
    return out


@njit(cache=True, nogil=True)
def safe_columns(board, position, mask):
    """Bit c set for each 0-based column whose move does not let the opponent win at once."""
    return _columns_of(board, safe_moves(board, mask, opponent_threats(board, position, mask)))


@njit(cache=True, nogil=True)
def winning_columns(board, position, mask):
    """Bit c set for each 0-based column that wins at once."""
    return _columns_of(board, and_(winning_cells(board, position, mask), possible(board, mask)))

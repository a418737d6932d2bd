"""The search on two words: ``solver._search``'s negamax and window driver, over pairs.

The same steps, in the same order, with the same constants (imported): the
static bounds, forced play settling children, Steininger's move ordering
weights, the table (two-word entries, ``_table``), the enhanced transposition
cutoff, ABDADA for threads, and the driver's narrowing (``next_test``, shared).
Left out: width 4's dead stones in the key and children bounded first.
Positions, masks and threats are pairs ``(low, high)``; the scratch array's
per-ply values take two words each where they are cells.
"""

import numpy as np
from numba import njit

from .._search import (
    BUSY_EMPTIES,
    BUSY_LOG2,
    BUSY_SHIFT,
    ETC_EMPTIES,
    LIMIT,
    NODES,
    SORT_BASE,
    STOPPED,
    W_NEXT,
    W_NEXT_NEXT,
    W_TABLE,
    W_THREAT,
    _slots,
    next_guess,
    next_test,
    score_range,
)
from .._table import NEAR_EMPTIES, NEAR_SLOTS, no_move, prefetch, work_of
from ._bits import (
    can_win_next,
    canonical_key,
    opponent_threats,
    possible,
    safe_moves,
    threats_of,
    winning_cells,
)
from ._bounds import lower_bound, upper_bound
from ._table import (
    EXACT,
    LOWER,
    UPPER,
    bucket,
    entry_move,
    entry_score,
    entry_type,
    min_table_log2,
    mix,
    near_bucket,
    near_table,
    probe,
    store,
)
from ._words import ONE, ZERO, and_, andnot, is_zero, ones, or_, several, shl, xor

__all__ = [
    "BUSY_LOG2",
    "LIMIT",
    "NODES",
    "STOPPED",
    "min_table_log2",
    "next_guess",
    "next_test",
    "score_range",
    "threats_of",
]

# Per child, in each ply's scratch: sort item, stones (2 words), mask (2), info, threats (2).
FIELDS = 8
_POS, _MASK, _INFO, _THREATS = 1, 3, 5, 6


@njit(cache=True, inline="always")
def near_base(board):
    """Where the thread's near table starts in its scratch array."""
    return SORT_BASE + FIELDS * _slots(board) * (board.cells + 1)


@njit(cache=True)
def scratch_size(board):
    """The length of a search thread's scratch array."""
    return near_base(board) + NEAR_SLOTS


@njit(cache=True, inline="always")
def _bucket_of(board, mixed, ply, table, scratch, shift):
    """``(entries, slot)``: the key's bucket, in the big table or, deep, in the near one."""
    if ply < board.cells - NEAR_EMPTIES or not near_table(board):
        return table, bucket(mixed, shift)
    return scratch, np.uint64(near_base(board)) + near_bucket(mixed)


@njit(cache=True, inline="always")
def _loss(board, ply):
    """Score of the player to move at ``ply`` who loses to the opponent's next move."""
    return -((board.cells - ply) // 2)


@njit(cache=True, inline="always")
def _get(scratch, at):
    return scratch[at], scratch[at + 1]


@njit(cache=True, inline="always")
def _put(scratch, at, pair):
    scratch[at] = pair[0]
    scratch[at + 1] = pair[1]


@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba's stubs lack its private _nrt
def negamax(board, position, mask, ply, alpha, beta, threats_against, table, scratch, shift, busy):
    """Fail-soft negamax score of a position within ``(alpha, beta)`` (``solver._search``'s).

    The player to move must not be able to win at once, and ``ply < board.cells``.
    """
    scratch[NODES] += ONE
    if scratch[LIMIT] != ZERO and scratch[NODES] > scratch[LIMIT]:
        scratch[STOPPED] = ONE
        return 0

    # -- 1. Bounds from the board alone -------------------------------------------------
    opponent = xor(position, mask)
    moves = safe_moves(board, mask, threats_against)
    if is_zero(moves):
        return _loss(board, ply)
    if ply >= board.cells - 2:
        return 0
    low = -((board.cells - 2 - ply) // 2)
    high = (board.cells - 1 - ply) // 2
    if alpha < 0:
        low = lower_bound(board, position, mask, moves, low)
    if beta > -1:
        high = upper_bound(board, position, mask, high)
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    alpha0, beta0 = alpha, beta
    key, mirrored = canonical_key(board, position, mask)
    mixed = mix(key)
    entries, slot = _bucket_of(board, mixed, ply, table, scratch, shift)
    prefetch(entries, slot)

    # -- 2. Children: forced play settles some, and moves the others to a real choice ----
    slots = _slots(board)
    base = SORT_BASE + FIELDS * slots * ply
    best = -board.cells
    best_move = no_move(board)
    count = 0
    for rank in range(board.width):
        move = and_(moves, (board.ordered_low[rank], board.ordered_high[rank]))
        if is_zero(move):
            continue
        ours = or_(position, move)
        child_mask = or_(mask, move)
        our_threats = winning_cells(board, ours, child_mask)
        c_pos, c_mask, c_ply, sign = opponent, child_mask, ply + 1, -1
        c_threats = our_threats
        settled = False
        value = 0
        while True:
            c_moves = safe_moves(board, c_mask, c_threats)
            if is_zero(c_moves):
                settled, value = True, sign * _loss(board, c_ply)
                break
            if c_ply >= board.cells - 2:
                settled, value = True, 0
                break
            if several(c_moves):
                break
            mover = or_(c_pos, c_moves)
            c_mask = or_(c_mask, c_moves)
            c_threats = winning_cells(board, mover, c_mask)
            c_pos = xor(mover, c_mask)
            c_ply += 1
            sign = -sign
        if settled:
            if value > best:
                best, best_move = value, rank
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    return alpha
            continue
        useful = andnot(our_threats, shl(threats_against, ONE))
        after = shl(possible(board, child_mask), ONE)
        next_ = and_(useful, after)
        next_next = and_(useful, shl(and_(after, board.all_cells), ONE))
        score = W_NEXT * ones(next_) + W_NEXT_NEXT * ones(next_next) + W_THREAT * ones(useful)
        _put(scratch, base + _POS * slots + 2 * count, c_pos)
        _put(scratch, base + _MASK * slots + 2 * count, c_mask)
        scratch[base + _INFO * slots + count] = np.uint64((c_ply << 1) | (1 if sign > 0 else 0))
        _put(scratch, base + _THREATS * slots + 2 * count, c_threats)
        scratch[base + count] = (np.uint64(score) << np.uint64(16)) | np.uint64(
            (board.width - rank) << 8 | count
        )
        count += 1
    if count == 0:
        return best
    # No child was won at once, so we cannot win at ply + 2 either.
    high = (board.cells - 3 - ply) // 2
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta

    # -- 3. The table ---------------------------------------------------------------------
    entry = probe(board, entries, slot, key, mixed)
    table_rank = -1
    if entry != ZERO:
        kind = entry_type(entry)
        stored = entry_score(board, entry)
        if kind == EXACT:
            return stored
        if kind == LOWER:
            if alpha < stored:
                alpha = stored
                if alpha >= beta:
                    return alpha
        elif beta > stored:
            beta = stored
            if alpha >= beta:
                return beta
        col = entry_move(board, entry)
        if kind == LOWER and col != no_move(board):
            if mirrored:
                col = board.width - 1 - col
            for rank in range(board.width):
                if board.column_order[rank] == col:
                    table_rank = rank

    # Enhanced transposition cutoff: a child the table bounds low enough fails us high.
    if ply < board.cells - ETC_EMPTIES:
        for i in range(count):
            c_info = scratch[base + _INFO * slots + i]
            c_key, _ = canonical_key(
                board,
                _get(scratch, base + _POS * slots + 2 * i),
                _get(scratch, base + _MASK * slots + 2 * i),
            )
            c_mixed = mix(c_key)
            c_entries, c_slot = _bucket_of(
                board, c_mixed, np.int64(c_info >> ONE), table, scratch, shift
            )
            c_entry = probe(board, c_entries, c_slot, c_key, c_mixed)
            if c_entry == ZERO:
                continue
            c_kind = entry_type(c_entry)
            c_score = entry_score(board, c_entry)
            if c_info & ONE:  # we are to move again there: its lower bound is ours
                if c_kind == UPPER or c_score <= alpha:
                    continue
                alpha = c_score
            else:
                if c_kind == LOWER or -c_score <= alpha:
                    continue
                alpha = -c_score
            if alpha >= beta:
                return alpha

    # -- 4. Order the rest, best first --------------------------------------------------
    for i in range(count):
        item = scratch[base + i]
        rank = board.width - np.int64((item >> np.uint64(8)) & np.uint64(0xFF))
        if rank == table_rank:
            item += np.uint64(W_TABLE) << np.uint64(16)
        j = i
        while j > 0 and scratch[base + j - 1] < item:
            scratch[base + j] = scratch[base + j - 1]
            j -= 1
        scratch[base + j] = item

    # -- 5. Search them (ABDADA with threads: solver._search, step 5) --------------------
    nodes_before = scratch[NODES]
    sharing = False
    mark = ZERO
    if busy is not None:
        sharing = ply < board.cells - BUSY_EMPTIES
        if sharing:
            mark = mixed >> BUSY_SHIFT
            busy[mark] = mixed
    i = 0
    deferred = 0  # bit j: the j-th child was put off
    while True:
        if i < count:
            j = i
            i += 1
            if busy is not None:  # noqa: SIM102 - numba prunes an Optional only on a lone `is not None`
                if sharing and j > 0:
                    idx = np.int64(scratch[base + j] & np.uint64(0xFF))
                    c_key, _ = canonical_key(
                        board,
                        _get(scratch, base + _POS * slots + 2 * idx),
                        _get(scratch, base + _MASK * slots + 2 * idx),
                    )
                    c_mixed = mix(c_key)
                    if busy[c_mixed >> BUSY_SHIFT] == c_mixed:
                        deferred |= 1 << j
                        continue
        elif deferred != 0:
            j = 0
            while (deferred >> j) & 1 == 0:
                j += 1
            deferred ^= 1 << j
        else:
            break
        item = scratch[base + j]
        idx = np.int64(item & np.uint64(0xFF))
        rank = board.width - np.int64((item >> np.uint64(8)) & np.uint64(0xFF))
        c_info = scratch[base + _INFO * slots + idx]
        c_ply = np.int64(c_info >> ONE)
        c_pos = _get(scratch, base + _POS * slots + 2 * idx)
        c_mask = _get(scratch, base + _MASK * slots + 2 * idx)
        c_threats = _get(scratch, base + _THREATS * slots + 2 * idx)
        if c_info & ONE:
            value = negamax(
                board, c_pos, c_mask, c_ply, alpha, beta, c_threats, table, scratch, shift, busy
            )
        else:
            value = -negamax(
                board, c_pos, c_mask, c_ply, -beta, -alpha, c_threats, table, scratch, shift, busy
            )
        if scratch[STOPPED] != ZERO:
            if busy is not None:  # noqa: SIM102 - numba prunes an Optional only on a lone `is not None`
                if sharing and busy[mark] == mixed:
                    busy[mark] = ZERO
            return 0  # stopped: nothing here is proven, so nothing is stored
        if value > best:
            best, best_move = value, rank
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    if busy is not None:  # noqa: SIM102 - numba prunes an Optional only on a lone `is not None`
        if sharing and busy[mark] == mixed:
            busy[mark] = ZERO

    if best <= alpha0:
        kind = UPPER
    elif best >= beta0:
        kind = LOWER
    else:
        kind = EXACT
    col = no_move(board)
    if best_move != no_move(board):
        col = board.column_order[best_move]
        if mirrored:
            col = board.width - 1 - col
    store(board, entries, slot, key, mixed, kind, best, col, work_of(scratch[NODES] - nodes_before))
    return best


@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba's stubs lack its private _nrt
def solve_window(board, position, mask, ply, low, high, table, scratch, shift):
    """The exact score clamped to ``[low, high]``, by null-window tests (``next_test``)."""
    if can_win_next(board, position, mask):
        return min(max((board.cells + 1 - ply) // 2, low), high)
    threats = opponent_threats(board, position, mask)
    lo, hi = score_range(board, ply, low, high)
    guess = 0
    while lo < hi:
        med = next_test(board, lo, hi, guess)
        r = negamax(board, position, mask, ply, med, med + 1, threats, table, scratch, shift, None)
        if scratch[STOPPED] != ZERO:
            return 0
        guess = next_guess(board, lo, hi, med, r, guess)
        if r <= med:
            hi = r
        else:
            lo = r
    # Fail-soft probes may overshoot the asked window; clamp back into it.
    return min(lo, high)


@njit(cache=True, nogil=True)
def table_bounds(board, position, mask, table, scratch, shift):
    """``(low, high)``: what the tables prove about a position's score (wide when absent);
    ``solver._search.table_bounds`` for the anytime player's leaves."""
    key, _ = canonical_key(board, position, mask)
    mixed = mix(key)
    entries, slot = _bucket_of(board, mixed, np.int64(ones(mask)), table, scratch, shift)
    entry = probe(board, entries, slot, key, mixed)
    if entry == ZERO:
        return -board.cells, board.cells
    kind = entry_type(entry)
    score = entry_score(board, entry)
    if kind == EXACT:
        return score, score
    if kind == LOWER:
        return score, board.cells
    return -board.cells, score

"""numba search kernels: negamax alpha-beta and the window-narrowing driver.

Read top-down: ``negamax`` bounds a node from the board alone, settles each
child by forced play where it can, consults the table, and only then orders
and searches the children that are left.  Each step says why it pays.

State lives in two arrays the caller owns, so that it survives across calls
(the kernels release the GIL, so threads may share one table):

* ``table``: the transposition table (layout in ``_table``).
* ``scratch``: counters and per-ply buffers, so the recursion allocates
  nothing, then the thread's own near table for deep positions (``_table``).
  ``scratch[NODES]`` counts nodes; ``scratch[LIMIT]`` is a node
  limit (0: none) and ``scratch[STOPPED]`` is set when a search stopped at it.
* ``busy``: for threads searching one position together, the keys of the
  shallow nodes some thread is searching now (see ``negamax``, step 5); ``None``
  for a thread alone, and numba then compiles the search without it.
"""

import numpy as np
from numba import njit

from ._bits import can_win_next, popcount, possible, safe_moves, winning_cells
from ._bounds import lower_bound, upper_bound
from ._key import table_key
from ._table import (
    EXACT,
    GOLDEN,
    LOWER,
    NEAR_EMPTIES,
    NEAR_SHIFT,
    NEAR_SLOTS,
    UPPER,
    bucket,
    entry_move,
    entry_score,
    entry_type,
    no_move,
    prefetch,
    probe,
    store,
    work_of,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)

NODES, LIMIT, STOPPED = 0, 1, 2
# Threads searching together defer a child another thread is searching, at
# nodes with more than this many empty cells (deeper ones cost less than the
# bookkeeping).  Depths here are counted in empty cells, so that every board
# gets the same share of its tree as 7x6 (where this is before ply 20).
BUSY_EMPTIES = 22
BUSY_LOG2 = 14  # 16,384 keys, 128 KiB
BUSY_SHIFT = np.uint64(64 - BUSY_LOG2)
SORT_BASE = 8


@njit(cache=True, inline="always")
def _slots(board):
    """Scratch slots per ply for each of the per-child values (8 up to width 8)."""
    return max(8, board.width)


@njit(cache=True, inline="always")
def _fields(board):
    """Per-child values a ply keeps: sort item, stones, mask, ply, threats; on width 4
    also the table key the enhanced transposition cutoff found (see negamax, step 3)."""
    return 6 if board.width == 4 else 5


@njit(cache=True, inline="always")
def near_base(board):
    """Where the thread's near table starts in its scratch array: after the counters and,
    per ply, the children's values (``_fields``)."""
    return SORT_BASE + _fields(board) * _slots(board) * (board.cells + 1)


@njit(cache=True)
def scratch_size(board):
    """The length of a search thread's scratch array."""
    return near_base(board) + NEAR_SLOTS


# Child stones considered for move ordering are weighted as in Steininger's
# solver, times ten: threats playable after one more stone in their column,
# after two, any useful threat, and the table's move.
W_NEXT, W_NEXT_NEXT, W_THREAT, W_TABLE = 12, 5, 3, 5
# Nodes with more empty cells than this probe the table for each child
# (enhanced transposition cutoff; on 7x6 before ply 30); deeper, the probes
# cost more than the cuts save.
ETC_EMPTIES = 12
# next_test bisects while the window is wider than this, then (next to a draw)
# steps as MTD(f), which makes the fewest of the costly tests near the score.
# On boards four wide or four high from a wider window: there a test a few
# points off a draw costs about as much as the draw's own (the empty 4x10
# board's test at -4 took half its nodes); random positions of 4x8-4x10 took
# 11-20% fewer nodes, of 8x4 and 9x4 2-6% fewer.
MTDF_WIDTH = 12
MTDF_WIDTH_4 = 20


@njit(cache=True, inline="always")
def _bucket_of(board, key, ply, table, scratch, shift):
    """``(entries, slot)``: the key's bucket, in the big table or, deep, in the near one."""
    if ply < board.cells - NEAR_EMPTIES:
        return table, bucket(key, shift)
    return scratch, np.uint64(near_base(board)) + bucket(key, NEAR_SHIFT)


@njit(cache=True, inline="always")
def busy_slot(key):
    """The slot of the ``busy`` array that marks the node of table key ``key``."""
    return (key * GOLDEN) >> BUSY_SHIFT


# On width 4 a parent has already bounded its child statically (see negamax,
# step 2); it says so with this bit of ``threats_against`` (column 0's
# sentinel, never a cell) and packs the bounds beside the child's ply.
BOUND_OFFSET = 64  # a score plus this fits a byte


@njit(cache=True, inline="always")
def _bounded(board):
    """The flag bit a parent sets in its child's ``threats_against`` (width 4)."""
    return ONE << board.h


# On width 4 the table key costs a dead-stone scan (``_key``); a parent whose
# enhanced transposition cutoff computed its child's key hands it down in the
# child's key slot, and says so with column 1's sentinel bit.
@njit(cache=True, inline="always")
def _keyed(board):
    """The flag bit saying the child's key waits in its key slot (width 4)."""
    return ONE << (board.h + board.h1)


@njit(cache=True, inline="always")
def _key_slot(board, ply):
    """The scratch word where a parent leaves the key of its child at ``ply`` (width 4)."""
    return SORT_BASE + _fields(board) * _slots(board) * ply + 5 * _slots(board)


@njit(cache=True, inline="always")
def _hands_keys_down(board):
    """Whether a parent hands its children their keys: width 4, but not 4x15, whose
    keys take all 64 bits and would lose the top one to ``_pack_key``'s shift."""
    return board.width == 4 and board.key_bits < 64


@njit(cache=True, inline="always")
def _pack_key(key, mirrored):
    """A table key and its orientation in one word (``_hands_keys_down``: keys of at most
    63 bits)."""
    return (key << ONE) | (ONE if mirrored else ZERO)


@njit(cache=True, inline="always")
def _child_ply(board, info):
    """The ply packed in a child's info word (bit 0: same player to move)."""
    if board.width == 4:
        return np.int64((info >> ONE) & np.uint64(0x7F))
    return np.int64(info >> ONE)


@njit(cache=True, inline="always")
def _loss(board, ply):
    """Score of the player to move at ``ply`` who loses to the opponent's next move."""
    return -((board.cells - ply) // 2)


# _nrt=False: numba would otherwise count references to ``table`` and
# ``scratch`` with costly atomic instructions at every call; these kernels
# allocate nothing, so they need no counting.
@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba's stubs lack its private _nrt
def negamax(board, position, mask, ply, alpha, beta, threats_against, table, scratch, shift, busy):
    """Fail-soft negamax score of a position within ``(alpha, beta)``.

    The player to move must not be able to win at once, and ``ply < board.cells``.
    ``threats_against`` are the opponent's winning cells (the parent knows them).
    """
    scratch[NODES] += ONE
    if scratch[LIMIT] != ZERO and scratch[NODES] > scratch[LIMIT]:
        scratch[STOPPED] = ONE
        return 0

    # -- 1. Bounds from the board alone -------------------------------------------------
    opponent = position ^ mask
    bounded = False
    keyed = False
    if board.width == 4:
        bounded = threats_against & _bounded(board) != ZERO
        keyed = threats_against & _keyed(board) != ZERO
        threats_against &= ~(_bounded(board) | _keyed(board))
    moves = safe_moves(board, mask, threats_against)
    if moves == ZERO:
        return _loss(board, ply)
    if ply >= board.cells - 2:
        return 0
    # We cannot win now (the caller checked) and the opponent cannot win next.
    low = -((board.cells - 2 - ply) // 2)
    high = (board.cells - 1 - ply) // 2
    if alpha < 0 and not bounded:
        low = lower_bound(board, position, mask, moves, low)
    if beta > -1 and not bounded:
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
    # Start loading our table entry now: the child scan below hides part of the wait.
    if keyed:
        packed = scratch[_key_slot(board, ply)]
        key, mirrored = packed >> ONE, packed & ONE != ZERO
    else:
        key, mirrored = table_key(board, position, mask)
    entries, slot = _bucket_of(board, key, ply, table, scratch, shift)
    prefetch(entries, slot)

    # -- 2. Children: forced play settles some, and moves the others to a real choice ----
    # A child where the opponent has one move that does not lose at once is
    # followed down that move (and ours after it), with no node and no table
    # entry, until someone has a real choice or the game is decided.  A decided
    # child is a proven score: it tightens the window and is never searched.
    slots = _slots(board)
    base = SORT_BASE + _fields(board) * slots * ply
    best = -board.cells
    best_move = no_move(board)
    count = 0
    for rank in range(board.width):
        move = moves & board.ordered_column_masks[rank]
        if move == ZERO:
            continue
        ours = position | move
        child_mask = mask | move
        our_threats = winning_cells(board, ours, child_mask)
        # Follow forced play from the child; ``sign`` is +1 when we are to move.
        c_pos, c_mask, c_ply, sign = opponent, child_mask, ply + 1, -1
        c_threats = our_threats  # the threats against the player to move in the child
        settled = False
        value = 0
        while True:
            c_moves = safe_moves(board, c_mask, c_threats)
            if c_moves == ZERO:
                settled, value = True, sign * _loss(board, c_ply)
                break
            if c_ply >= board.cells - 2:
                settled, value = True, 0
                break
            if c_moves & (c_moves - ONE) != ZERO:
                break
            # One move only: play it.
            mover = c_pos | c_moves
            c_mask |= c_moves
            c_threats = winning_cells(board, mover, c_mask)
            c_pos = mover ^ c_mask
            c_ply += 1
            sign = -sign
        c_low, c_high = 0, 0
        if board.width == 4 and not settled:
            # Width 4 (compiled out elsewhere): the child's static bounds now,
            # before any child is searched, as Steininger's static search does.
            # Sound: they are the proofs the child's own step 1 would apply (its
            # window is ours, negated when the opponent moves there), so a bound
            # that cuts here would have cut there, and a child whose best is at
            # most alpha for us can only be refuted, never chosen.  On 4x10 this
            # halves the nodes: most deep children die to a dead-lines or
            # claimeven bound, and are no longer counted, probed or sorted.
            c_alpha, c_beta = (alpha, beta) if sign > 0 else (-beta, -alpha)
            c_low = -((board.cells - 2 - c_ply) // 2)
            c_high = (board.cells - 1 - c_ply) // 2
            if c_alpha < 0:
                c_low = lower_bound(board, c_pos, c_mask, c_moves, c_low)
            if c_beta > -1:
                c_high = upper_bound(board, c_pos, c_mask, c_high)
            v_low, v_high = (c_low, c_high) if sign > 0 else (-c_high, -c_low)
            if v_low >= beta:
                return v_low
            if v_high <= alpha:
                settled, value = True, v_high
        if settled:
            if value > best:
                best, best_move = value, rank
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    return alpha  # a proven score at least beta
            continue
        # Order by the threats this move leaves us: Steininger's weights.
        useful = our_threats & ~(threats_against << ONE)
        after = possible(board, child_mask)
        next_ = useful & (after << ONE)
        next_next = useful & (((after << ONE) & board.all_cells) << ONE)
        score = (
            W_NEXT * popcount(next_)
            + W_NEXT_NEXT * popcount(next_next)
            + W_THREAT * popcount(useful)
        )
        scratch[base + slots + count] = c_pos
        scratch[base + 2 * slots + count] = c_mask
        c_info = np.uint64((c_ply << 1) | (1 if sign > 0 else 0))
        if board.width == 4:
            c_info |= np.uint64(c_low + BOUND_OFFSET) << np.uint64(8)
            c_info |= np.uint64(c_high + BOUND_OFFSET) << np.uint64(16)
        scratch[base + 3 * slots + count] = c_info
        scratch[base + 4 * slots + count] = c_threats
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
    entry = probe(board, entries, slot, key)
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

    # Enhanced transposition cutoff: if the table already bounds a child low
    # enough for the opponent, this node fails high without searching at all.
    etc = ply < board.cells - ETC_EMPTIES
    if etc:
        for i in range(count):
            same = scratch[base + 3 * slots + i] & ONE
            c_key, c_mirrored = table_key(
                board, scratch[base + slots + i], scratch[base + 2 * slots + i]
            )
            if _hands_keys_down(board):
                scratch[base + 5 * slots + i] = _pack_key(c_key, c_mirrored)
            c_ply = _child_ply(board, scratch[base + 3 * slots + i])
            c_entries, c_slot = _bucket_of(board, c_key, c_ply, table, scratch, shift)
            c_entry = probe(board, c_entries, c_slot, c_key)
            if c_entry == ZERO:
                continue
            c_kind = entry_type(c_entry)
            c_score = entry_score(board, c_entry)
            if board.width == 4:
                # The entry bounds the child, from its side: narrow the bounds
                # handed down with it (step 5), so that a child the table already
                # refutes is never searched.  Sound: both are proven bounds on
                # the same score, so their intersection holds it.
                info = scratch[base + 3 * slots + i]
                e_low = np.int64((info >> np.uint64(8)) & np.uint64(0xFF)) - BOUND_OFFSET
                e_high = np.int64((info >> np.uint64(16)) & np.uint64(0xFF)) - BOUND_OFFSET
                if c_kind != UPPER:
                    e_low = max(e_low, c_score)
                if c_kind != LOWER:
                    e_high = min(e_high, c_score)
                info &= np.uint64(0xFF)
                info |= np.uint64(e_low + BOUND_OFFSET) << np.uint64(8)
                info |= np.uint64(e_high + BOUND_OFFSET) << np.uint64(16)
                scratch[base + 3 * slots + i] = info
            # A bound on a child that is a lower bound for us raises alpha,
            # and fails high at once when it reaches beta.
            if same:  # we are to move again there: its lower bound is ours
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

    # -- 5. Search them -----------------------------------------------------------------
    # Threads searching together (``busy`` given) split the work as ABDADA
    # does: a thread marks the node it searches, and puts off a child that
    # another thread is searching, to search the others first; by the time it
    # comes back, the table often has that child's answer.  The first child is
    # never put off: it is the likely cut, worth searching at once.  The marks
    # are single 64-bit words, so a race only costs a wasted or missed deferral.
    # (``if busy is not None`` blocks are compiled out for a thread alone.)
    nodes_before = scratch[NODES]
    sharing = False
    mark = ZERO
    if busy is not None:
        sharing = ply < board.cells - BUSY_EMPTIES
        if sharing:
            mark = busy_slot(key)
            busy[mark] = key
    i = 0
    deferred = 0  # bit j: the j-th child was put off
    while True:
        if i < count:
            j = i
            i += 1
            if busy is not None:  # noqa: SIM102 - numba prunes an Optional only on a lone `is not None`
                if sharing and j > 0:
                    # The child's key again, though the ETC scan above had it:
                    # keeping those keys would widen each ply's scratch, which
                    # slows a thread searching alone (width 4 keeps them anyway).
                    idx = np.int64(scratch[base + j] & np.uint64(0xFF))
                    if etc and _hands_keys_down(board):
                        c_key = scratch[base + 5 * slots + idx] >> ONE
                    else:
                        c_key, _ = table_key(
                            board, scratch[base + slots + idx], scratch[base + 2 * slots + idx]
                        )
                    if busy[busy_slot(c_key)] == c_key:
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
        c_info = scratch[base + 3 * slots + idx]
        c_ply = _child_ply(board, c_info)
        c_pos = scratch[base + slots + idx]
        c_mask = scratch[base + 2 * slots + idx]
        c_threats = scratch[base + 4 * slots + idx]
        if board.width == 4:
            # The child's window, narrowed to the static bounds found in step 2
            # (true bounds on its score, so its fail-soft answer stays right
            # for our window); the flag spares the child finding them again.
            c_low = np.int64((c_info >> np.uint64(8)) & np.uint64(0xFF)) - BOUND_OFFSET
            c_high = np.int64((c_info >> np.uint64(16)) & np.uint64(0xFF)) - BOUND_OFFSET
            same = c_info & ONE != ZERO
            c_alpha, c_beta = (alpha, beta) if same else (-beta, -alpha)
            c_alpha, c_beta = max(c_alpha, c_low), min(c_beta, c_high)
            if c_alpha >= c_beta:
                # Closed by the bounds alone: the child fails low at c_high or
                # high at c_low (or both meet: its exact score).
                c_value = c_high if c_high <= c_alpha else c_low
            else:
                c_threats |= _bounded(board)
                if etc and _hands_keys_down(board):
                    scratch[_key_slot(board, c_ply)] = scratch[base + 5 * slots + idx]
                    c_threats |= _keyed(board)
                c_value = negamax(
                    board,
                    c_pos,
                    c_mask,
                    c_ply,
                    c_alpha,
                    c_beta,
                    c_threats,
                    table,
                    scratch,
                    shift,
                    busy,
                )
            value = c_value if same else -c_value
        elif c_info & ONE:
            value = negamax(
                board, c_pos, c_mask, c_ply, alpha, beta, c_threats, table, scratch, shift, busy
            )
        else:
            value = -negamax(
                board, c_pos, c_mask, c_ply, -beta, -alpha, c_threats, table, scratch, shift, busy
            )
        if scratch[STOPPED] != ZERO:
            if busy is not None:  # noqa: SIM102 - numba prunes an Optional only on a lone `is not None`
                if sharing and busy[mark] == key:
                    busy[mark] = ZERO
            return 0  # stopped: nothing here is proven, so nothing is stored
        if value > best:
            best, best_move = value, rank
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    if busy is not None:  # noqa: SIM102 - numba prunes an Optional only on a lone `is not None`
        if sharing and busy[mark] == key:
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
    store(board, entries, slot, key, kind, best, col, work_of(scratch[NODES] - nodes_before))
    return best


@njit(cache=True, inline="always")
def _half_toward_zero(x):
    return -((-x) // 2) if x < 0 else x // 2


@njit(cache=True, inline="always")
def score_range(board, ply, low, high):
    """``(lo, hi)``: the scores possible at ``ply`` for a player who cannot win
    at once, within the asked ``[low, high]``."""
    return max(-((board.cells - ply) // 2), low), min((board.cells + 1 - ply) // 2, high)


@njit(cache=True, inline="always")
def _stepping(board, lo, hi, guess):
    """Whether to step as MTD(f): a narrow window, next to the guess (a draw
    at first).  A narrow window far from it is a lopsided position's: bisect."""
    width = MTDF_WIDTH_4 if board.width == 4 or board.height == 4 else MTDF_WIDTH
    return hi - lo <= width and lo - 1 <= guess <= hi


@njit(cache=True, inline="always")
def next_test(board, lo, hi, guess):
    """The value ``med`` to test next (is the score above ``med``?) when the
    score is known to lie in ``[lo, hi]``, ``lo < hi``; ``guess`` is MTD(f)'s.

    Two phases.  While the window is wide, Pons' narrowing: bisect, but probe
    halfway toward zero first.  Far from the true score a test is cheap, and
    in a lopsided position decisive: a quick loss is proved far more cheaply
    than any loss.  Once the window is narrow (MTDF_WIDTH, MTDF_WIDTH_4 on
    boards four wide or high) and next to a draw, MTD(f): test from a draw, each next test at
    the last fail-soft bound.  In a balanced position the tests near the true
    score are the costly ones, and this makes the fewest of them.
    """
    if _stepping(board, lo, hi, guess):
        med = guess
    else:
        med = lo + (hi - lo) // 2
        if med <= 0 and _half_toward_zero(lo) < med:
            med = _half_toward_zero(lo)
        elif med >= 0 and _half_toward_zero(hi) > med:
            med = _half_toward_zero(hi)
    return min(max(med, lo), hi - 1)


@njit(cache=True, inline="always")
def next_guess(board, lo, hi, med, result, guess):
    """MTD(f)'s next guess after testing ``med`` gave ``result`` (the window
    before the test was ``[lo, hi]``): the new bound, while stepping."""
    if not _stepping(board, lo, hi, guess):
        return guess
    return result if result > med else result - 1


@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba's stubs lack its private _nrt
def solve_window(board, position, mask, ply, low, high, table, scratch, shift):
    """The exact score clamped to ``[low, high]``, by null-window tests (``next_test``).

    ``[-1, 1]`` gives the weak (win/draw/loss) answer.
    """
    if can_win_next(board, position, mask):
        return min(max((board.cells + 1 - ply) // 2, low), high)
    threats = winning_cells(board, position ^ mask, mask)
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
    """``(low, high)``: what the tables prove about a position's score (wide when absent).

    For other kernels that read a solver's tables (the anytime player's leaves).
    """
    key, _ = table_key(board, position, mask)
    entries, slot = _bucket_of(board, key, np.int64(popcount(mask)), table, scratch, shift)
    entry = probe(board, entries, slot, key)
    if entry == ZERO:
        return -board.cells, board.cells
    kind = entry_type(entry)
    score = entry_score(board, entry)
    if kind == EXACT:
        return score, score
    if kind == LOWER:
        return score, board.cells
    return -board.cells, score

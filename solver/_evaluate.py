"""numba kernels for the anytime search: a static evaluation and a depth-limited alpha-beta.

Values are from the side of the player to move.  A proven result lies beyond
``BIG``: ``BIG + s`` for a proven win of Pons score ``s``, ``-BIG + s`` for a
proven loss (``s < 0``); a heuristic value stays within ``HEURISTIC_MAX``.

The evaluation follows the zugzwang rules that decide most Connect 4 games
(Allis): a threat (an empty cell that would complete four) is worth much
more on the rows where its owner can expect to be the one to fill it -- odd
rows (1, 3, 5, counted from the bottom) for the first player, even rows for
the second.  A threat sitting above the opponent's threat in the same column
matters less (that column is decided lower down).  Open lines (four cells
free of opponent stones) count how much room each side has left to make
threats, which also rewards the centre, and centre stones count a little more.

The search reads three exact sources at every node: the exact solver's
transposition table (bounds proved by earlier searches; a proven win or loss
ends the node, a proven draw bound clamps the evaluation), the solver's
static rules (claimeven, dead lines: ``_bounds``) and a sorted array of
canonical keys with exact scores (book entries the caller passes in).

State lives in caller-owned arrays, as in ``_search``, whose slot names
``scratch`` shares: ``scratch[NODES]`` counts nodes, ``scratch[LIMIT]`` is a
node limit (0: none), ``scratch[STOPPED]`` is set when a search stopped, and
``scratch[STOP_REQUEST]`` is a stop request another thread may set (a timer
at the deadline).  From ``ORDER_BASE`` on, 8 slots per ply for move
ordering.  ``tt_keys``/``tt_data`` are the search's own table: depth, bound
type, value and best move of positions already searched, for iterative
deepening to try the best move first.
"""

import numpy as np
from numba import njit

from ._bits import (
    column_mask,
    columns_of,
    move_score,
    non_losing_moves,
    popcount,
    possible,
    winning_cells,
)
from ._bounds import lower_bound, upper_bound
from ._key import canonical_key
from ._search import LIMIT, NODES, STOPPED, table_bounds
from ._table import EXACT, LOWER, UPPER

BIG = 10_000
HEURISTIC_MAX = BIG - 100
INFINITY = 2 * BIG
STOP_REQUEST = 3  # the scratch slot another thread sets to stop a search

# The first player's good rows are those the follower does not claim
# (``board.under_top_rows``: on 7x6 rows 1, 3 and 5, counted from the bottom);
# the second player's, the follower's (``board.top_rows``).
ZERO = np.uint64(0)
U1 = np.uint64(1)
U8 = np.uint64(8)
U16 = np.uint64(16)

# Weights, in evaluation points; tuned by hand on random positions against
# exact analyses (scripts/bench_anytime.py measures the result).
GOOD_THREAT = 60  # odd-row threat of the first player, even-row of the second
OTHER_THREAT = 25  # a threat on the other parity still forces answers
SHADOWED = 4  # a threat above an opponent's threat in its column
STACKED = 90  # two threats of one player one above the other
TWO_LINE = 9  # open line holding two of the player's stones
ONE_LINE = 2  # open line holding one
CENTRE_STONE = 3
ZUGZWANG = 150  # the only side with threats of its own parity
NEAR_CENTRE_STONE = 1


# Own table entries: value + VALUE_SHIFT in bits 16+, depth in bits 8-15,
# bound type (``_table``'s UPPER, LOWER or EXACT) in bits 4-5, best column + 1
# in bits 0-3 (0: none).
VALUE_SHIFT = 1 << 20

ORDER_BASE = 8


@njit(cache=True, inline="always")
def _slots(board):
    """Scratch slots per ply for move ordering (8 up to width 8)."""
    return max(8, board.width)


@njit(cache=True)
def scratch_size(board):
    """The length of the evaluation search's scratch array."""
    return ORDER_BASE + _slots(board) * (board.cells + 1)


@njit(cache=True, inline="always")
def _above(board, cells):
    """Every cell above some cell of ``cells`` in its column."""
    # One row at a time: the sentinel row, masked off, stops each column's climb.
    up = (cells << U1) & board.all_cells
    above = up
    for _ in range(board.height - 2):
        up = (up << U1) & board.all_cells
        above |= up
    return above


@njit(cache=True, inline="always")
def _open_lines(board, own, opponent):
    """Weighted count of the lines of four free of opponent stones, by own stones in them."""
    free = board.all_cells & ~opponent
    total = 0
    for s in (U1, board.h, board.h1, board.h2):  # vertical, the two diagonals, horizontal
        starts = free & (free >> s) & (free >> (s + s)) & (free >> (s + s + s))
        a = own & starts
        b = (own >> s) & starts
        c = (own >> (s + s)) & starts
        d = (own >> (s + s + s)) & starts
        # Bit-sliced sum a + b + c + d for every line at once.
        ab, cd = a ^ b, c ^ d
        bit0 = ab ^ cd
        carry_ab, carry_cd, carry = a & b, c & d, ab & cd
        bit1 = carry_ab ^ carry_cd ^ carry
        bit2 = (carry_ab & carry_cd) | ((carry_ab | carry_cd) & carry)
        ones = bit0 & ~bit1 & ~bit2
        twos = bit1 & ~bit0 & ~bit2
        total += ONE_LINE * np.int64(popcount(ones)) + TWO_LINE * np.int64(popcount(twos))
    return total


@njit(cache=True, inline="always")
def _threats(board, own, other, good_rows):
    """Points for ``own``'s threats given ``other``'s threats (both empty-cell sets)."""
    live = own & ~_above(board, other)
    good = np.int64(popcount(live & good_rows))
    bad = np.int64(popcount(live & ~good_rows))
    shadowed = np.int64(popcount(own & ~live))
    stacked = np.int64(popcount(own & (own >> U1)))
    return GOOD_THREAT * good + OTHER_THREAT * bad + SHADOWED * shadowed + STACKED * stacked


@njit(cache=True, nogil=True)
def evaluate(board, position, mask, ply):
    """Static value of a position for the player to move, within ``HEURISTIC_MAX``."""
    mover_first = ply % 2 == 0
    first = position if mover_first else position ^ mask
    second = first ^ mask
    first_threats = winning_cells(board, first, mask)
    second_threats = winning_cells(board, second, mask)
    value = _threats(board, first_threats, second_threats, board.under_top_rows) - _threats(
        board, second_threats, first_threats, board.top_rows
    )
    # Zugzwang: with threats of its own parity and none of the opponent's,
    # a player usually wins the fight for the last cells.
    first_good = first_threats & ~_above(board, second_threats) & board.under_top_rows
    second_good = second_threats & ~_above(board, first_threats) & board.top_rows
    if first_good != ZERO and second_good == ZERO:
        value += ZUGZWANG
    elif second_good != ZERO and first_good == ZERO:
        value -= ZUGZWANG
    value += _open_lines(board, first, second) - _open_lines(board, second, first)
    centre, near = board.centre, board.near_centre
    value += CENTRE_STONE * (
        np.int64(popcount(first & centre)) - np.int64(popcount(second & centre))
    )
    value += NEAR_CENTRE_STONE * (
        np.int64(popcount(first & near)) - np.int64(popcount(second & near))
    )
    if not mover_first:
        value = -value
    return max(-HEURISTIC_MAX, min(HEURISTIC_MAX, value))


@njit(cache=True, inline="always")
def proven_value(score):
    """An exact Pons score as a search value: beyond ``BIG`` unless it is a draw."""
    if score > 0:
        return BIG + score
    if score < 0:
        return -BIG + score
    return 0


@njit(cache=True, inline="always")
def _known_score(board, position, mask, known_keys, known_scores):
    """The exact score from the caller's sorted canonical keys, or 99 when unknown."""
    if known_keys.size == 0:
        return 99
    key, _ = canonical_key(board, position, mask)
    i = np.searchsorted(known_keys, key)
    if i < known_keys.size and known_keys[i] == key:
        return known_scores[i]
    return 99


@njit(cache=True, inline="always")
def _insert_sorted(buffer, base, count, item):
    """Insert ``item`` into ``buffer[base:base + count]``, kept in decreasing order."""
    j = base + count
    while j > base and buffer[j - 1] < item:
        buffer[j] = buffer[j - 1]
        j -= 1
    buffer[j] = item


@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba's stubs lack _nrt (see _search.negamax)
def search(
    board,
    position,
    mask,
    ply,
    depth,
    alpha,
    beta,
    tt_keys,
    tt_data,
    table,
    near,
    shift,
    known_keys,
    known_scores,
    scratch,
):
    """Fail-soft negamax value within ``(alpha, beta)``, ``depth`` plies deep.

    Forced moves (a single non-losing move) do not use up depth.  The caller
    makes sure the player to move cannot win at once.
    """
    scratch[NODES] += U1
    if scratch[STOP_REQUEST] != ZERO or (
        scratch[LIMIT] != ZERO and scratch[NODES] > scratch[LIMIT]
    ):
        scratch[STOPPED] = U1
        return 0
    moves = non_losing_moves(board, position, mask)
    if moves == ZERO:
        return proven_value(-((board.cells - ply) // 2))
    if ply >= board.cells - 2:
        return 0
    known = _known_score(board, position, mask, known_keys, known_scores)
    if known != 99:
        return proven_value(known)

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

    if depth <= 0 and moves & (moves - U1) != ZERO:
        value = evaluate(board, position, mask, ply)
        if low >= 0:
            value = max(value, 0)
        if high <= 0:
            value = min(value, 0)
        return value

    key = position + mask
    slot = key & np.uint64(tt_keys.size - 1)
    tt_move = -1
    if tt_keys[slot] == key:
        data = tt_data[slot]
        tt_move = np.int64(data & 15) - 1
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
        col = board.column_order[rank]
        move = moves & column_mask(board, col)
        if move != ZERO:
            item = (move_score(board, position, mask, move) << U8) | np.uint64(board.width - rank)
            if col == tt_move:
                item |= np.uint64(1 << 20)
            _insert_sorted(scratch, base, count, (item << U8) | np.uint64(col))
            count += 1

    next_depth = depth - 1 if count > 1 else depth
    original_alpha = alpha
    best, best_col = -INFINITY, -1
    for i in range(count):
        col = np.int64(scratch[base + i] & np.uint64(255))
        move = moves & column_mask(board, col)
        value = -search(
            board,
            position ^ mask,
            mask | move,
            ply + 1,
            next_depth,
            -beta,
            -alpha,
            tt_keys,
            tt_data,
            table,
            near,
            shift,
            known_keys,
            known_scores,
            scratch,
        )
        if scratch[STOPPED] != ZERO:
            return 0
        if value > best:
            best, best_col = value, col
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    kind = LOWER if best >= beta else UPPER if best <= original_alpha else EXACT
    tt_keys[slot] = key
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
    known_keys,
    known_scores,
    scratch,
):
    """Search the root moves ``columns`` (0-based, in this order) to ``depth``.

    ``values[i]`` gets column ``columns[i]``'s value; after the first move a
    value at or below the best so far is only an upper bound.  Returns how
    many moves were searched before a stop.
    """
    alpha = -INFINITY
    for i in range(columns.size):
        move = possible(board, mask) & column_mask(board, columns[i])
        if ply + 1 >= board.cells:  # the move fills the board
            values[i] = 0
            alpha = max(alpha, 0)
            continue
        value = -search(
            board,
            position ^ mask,
            mask | move,
            ply + 1,
            depth - 1,
            -INFINITY,
            -alpha,
            tt_keys,
            tt_data,
            table,
            near,
            shift,
            known_keys,
            known_scores,
            scratch,
        )
        if scratch[STOPPED] != ZERO:
            return i
        values[i] = value
        if value > alpha:  # noqa: PLR1730 - kernel code keeps the compare it was benchmarked with
            alpha = value
    return columns.size


@njit(cache=True, nogil=True)
def safe_columns(board, position, mask):
    """Bit c set for each 0-based column whose move does not let the opponent win at once."""
    return columns_of(board, non_losing_moves(board, position, mask))


@njit(cache=True, nogil=True)
def winning_columns(board, position, mask):
    """Bit c set for each 0-based column that wins at once."""
    return columns_of(board, winning_cells(board, position, mask) & possible(board, mask))

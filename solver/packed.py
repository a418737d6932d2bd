"""Positions packed in one integer: the key, and numba kernels over arrays of keys.

A key is ``current + mask`` (see ``bitboard``).  Column by column it is
``2**h - 1 + stones`` for a column of ``h`` stones, whose ``stones`` bits are
the mover's: the ranges for different heights never overlap, so the key alone
gives back the whole position.  Lists of millions of positions are then
plain ``uint64`` arrays, eight bytes a position, that numpy sorts and
searches and these kernels expand, with no Python object per position.

The kernels here never search: they list children, mirror keys and replay a
key to a move string.  The search kernels live in ``_search``.
"""

import numpy as np
from numba import njit

from ._bits import has_four, mirror, popcount
from .bitboard import STANDARD, Board
from .position import Position

U0 = np.uint64(0)
U1 = np.uint64(1)


_SMEARS = (U1, np.uint64(2), np.uint64(4), np.uint64(8))  # a column's bits: at most 16


@njit(cache=True, inline="always")
def decode(board, key):
    """``(current, mask, ply)`` of a key; ply -1 for a key that is no position's.  Plus the
    bottom cells, each column is ``2**h + stones``: its top bit, smeared down over the bits
    under it, gives its stones' cells (``bookgen``'s ``keys.Walker`` in numpy).  Constants
    of the board and no branch: a seventh of the time of a loop over the columns' heights."""
    top = key + board.bottom  # (a position's columns never carry into the next)
    for shift in _SMEARS:
        if shift < board.h1:  # (each column keeps its own bits: those under its top)
            top |= (top >> shift) & (board.bottom * ((U1 << (board.h1 - shift)) - U1))
    mask = (top >> U1) & (board.bottom * ((U1 << (board.h1 - U1)) - U1))
    current = key - mask
    # A column of all ones (which carries) or bits past the last column leave stones
    # outside the mask: no position's key.
    ply = np.int64(popcount(mask)) if current & ~mask == U0 else np.int64(-1)
    return current, mask, ply


@njit(cache=True, inline="always")
def canonical(board, key):
    other = mirror(board, key)
    return other if other < key else key  # noqa: FURB136 - kernel code keeps the compare it was benchmarked with


@njit(cache=True, inline="always")
def child_key(board, current, mask, col):
    """``(key, won)`` after the mover plays ``col`` (0-based, not full)."""
    shift = np.uint64(col) * board.h1
    stone = (mask + (U1 << shift)) & (board.column_cells << shift)
    new_mask = mask | stone
    return (current ^ mask) + new_mask, has_four(board, current | stone)


@njit(cache=True, inline="always")
def is_full_column(board, mask, col):
    return ((mask >> (np.uint64(col) * board.h1 + board.h - U1)) & U1) != U0


# What a move's score takes (``move_rule``): one ply of negamax, written once for every
# kernel that reads a position's move scores from its children's (derive, the reader's).
MOVE_FULL = 0  # a full column: no move
MOVE_DECIDED = 1  # the move ends the game: a four wins, the last cell draws
MOVE_READ = 2  # the move scores minus its child's score, read from the ply below


@njit(cache=True, inline="always")
def move_rule(board, current, mask, ply, col):
    """``(kind, score, child)`` of the move in ``col`` (0-based) from the position
    ``(current, mask)`` at ``ply``: ``(MOVE_FULL, 0, 0)``, ``(MOVE_DECIDED, its score, 0)``,
    or ``(MOVE_READ, 0, the child's canonical key)``."""
    if is_full_column(board, mask, col):
        return MOVE_FULL, np.int64(0), U0
    child, won = child_key(board, current, mask, col)
    if won:
        return MOVE_DECIDED, np.int64((board.cells + 1 - ply) // 2), U0  # Board.win_score
    if ply + 1 == board.cells:
        return MOVE_DECIDED, np.int64(0), U0
    return MOVE_READ, np.int64(0), canonical(board, child)


@njit(cache=True)
def canonical_keys(board, keys):
    """``canonical`` of each key."""
    out = np.empty_like(keys)
    for i in range(len(keys)):
        out[i] = canonical(board, keys[i])
    return out


@njit(cache=True)
def plies_of(board, keys):
    """Stones on the board for each key."""
    out = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        out[i] = decode(board, keys[i])[2]
    return out


@njit(cache=True)
def _children_into(board, keys, low, high, out):
    """Write the canonical unfinished children in ``[low, high)`` to ``out`` (if not
    empty); return how many there are."""
    n = 0
    for i in range(len(keys)):
        current, mask, ply = decode(board, keys[i])
        if ply + 1 >= board.cells:
            continue  # the last stone ends the game: no unfinished child
        for col in range(board.width):
            if is_full_column(board, mask, col):
                continue
            key, won = child_key(board, current, mask, col)
            if won:
                continue
            key = canonical(board, key)
            if low <= key < high:
                if len(out):
                    out[n] = key
                n += 1
    return n


@njit(cache=True)
def unfinished_children(board, keys, low, high):
    """Canonical keys in ``[low, high)`` of every unfinished child of ``keys``.

    Unsorted, with repeats (transpositions, mirror pairs): the caller sorts.
    Two passes, one to count and one to fill, so that listing a narrow range
    of keys allocates only what falls in it, not seven keys per parent.
    """
    out = np.empty(
        _children_into(board, keys, low, high, np.empty(0, dtype=np.uint64)), dtype=np.uint64
    )
    _children_into(board, keys, low, high, out)
    return out


@njit(cache=True)
def unique_sorted(keys):
    """``keys`` (sorted) without repeats, in place; returns the used prefix."""
    n = 0
    for i in range(len(keys)):
        if i == 0 or keys[i] != keys[n - 1]:
            keys[n] = keys[i]
            n += 1
    return keys[:n]


DEAD_BITS = 12
DEAD_SHIFT = np.uint64(64 - DEAD_BITS)
FIBONACCI = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _replay(board, key, digits, dead, owner, tag, prefix):
    """Fill ``digits`` with the smallest move string that reaches ``key``; steps taken.

    The string starts with ``prefix`` (column digits, 0 padded), or -1 is
    returned when no string that starts so reaches the key.
    Depth first from the end of the prefix, columns in order: a column is
    played when the cell it fills holds a stone of the player to move in the
    target.  The target holds no four, so neither does any position on the
    way.  A dead end (no such column) backs up; -1 when there is no way.
    Boards found dead are remembered in a small table (``dead``, ``owner``:
    boards, and the ``tag`` of the key they were dead for), so that other
    move orders reaching them are cut at once: without it, deep positions
    can take tens of thousands of steps.
    """
    current, mask, ply = decode(board, key)
    if ply < 0:
        return -1
    first = current if ply % 2 == 0 else current ^ mask  # the first player's stones
    tried = np.zeros(ply + 1, dtype=np.int64)  # columns tried so far at each depth
    stones = np.empty(ply + 1, dtype=np.uint64)
    stones_in = U0  # the stones played so far
    depth = 0
    steps = 0
    while depth < len(prefix) and prefix[depth] != 0:  # the prefix is forced
        mine = first if depth % 2 == 0 else mask ^ first
        shift = np.uint64(prefix[depth] - 1) * board.h1
        stone = (stones_in + (U1 << shift)) & (board.column_cells << shift)
        if depth >= ply or not stone & mine:
            return -1
        digits[depth] = prefix[depth]
        stones_in |= stone
        depth += 1
    start = depth
    tried[depth] = 0
    while depth < ply:
        mine = first if depth % 2 == 0 else mask ^ first
        played = False
        while tried[depth] < board.width:
            col = tried[depth]
            tried[depth] += 1
            steps += 1
            shift = np.uint64(col) * board.h1
            stone = (stones_in + (U1 << shift)) & (board.column_cells << shift)
            if stone & mine:
                slot = ((stones_in | stone) * FIBONACCI) >> DEAD_SHIFT
                if owner[slot] == tag and dead[slot] == stones_in | stone:
                    continue
                stones[depth] = stone
                digits[depth] = col + 1
                stones_in |= stone
                depth += 1
                tried[depth] = 0
                played = True
                break
        if not played:
            if depth == start:
                return -1
            slot = (stones_in * FIBONACCI) >> DEAD_SHIFT
            dead[slot], owner[slot] = stones_in, tag
            depth -= 1
            stones_in ^= stones[depth]
    return steps


@njit(cache=True)
def _dead_table():
    return np.zeros(1 << DEAD_BITS, dtype=np.uint64), np.full(1 << DEAD_BITS, -1, dtype=np.int64)


@njit(cache=True)
def replay_keys(board, keys, prefixes):
    """Digit rows (columns from 1, zero padded) of a move order for each key; ply per key.

    Each key's string starts with the first row of ``prefixes`` that can
    start it (an all-zero row always can, if any string reaches the key).
    """
    digits = np.zeros((len(keys), board.cells), dtype=np.uint8)
    plies = np.full(len(keys), -1, dtype=np.int64)
    dead, owner = _dead_table()
    tag = 0
    for i in range(len(keys)):
        for j in range(len(prefixes)):
            tag += 1  # a new search: boards found dead before do not apply
            if _replay(board, keys[i], digits[i], dead, owner, tag, prefixes[j]) >= 0:
                plies[i] = decode(board, keys[i])[2]
                break
    return digits, plies


@njit(cache=True)
def replay_steps(board, keys):
    """Columns tried by ``_replay`` for each key (to measure its backtracking)."""
    digits = np.zeros(board.cells, dtype=np.uint8)
    steps = np.zeros(len(keys), dtype=np.int64)
    dead, owner = _dead_table()
    none = np.zeros(0, dtype=np.uint8)
    for i in range(len(keys)):
        steps[i] = _replay(board, keys[i], digits, dead, owner, i, none)
    return steps


class UnreachableKeyError(ValueError):
    """A key that no legal play reaches (``moves_of_keys``); it names the key."""

    def __init__(self, key: int, board: Board):
        where = "" if board is STANDARD else f" on {board}"
        super().__init__(f"key {key} is not a position reachable by legal play{where}")
        self.key = key


def _prefix_rows(root: str, board: Board) -> np.ndarray:
    """Prefixes to try: the root's moves, their mirror image, then none."""
    rows = np.zeros((3, board.cells), dtype=np.uint8)
    for row, moves in enumerate((root, board.mirror_moves(root))):
        rows[row, : len(moves)] = [int(c) for c in moves]
    return rows


def move_digits_of_keys(
    keys: np.ndarray, root: str = "", board: Board = STANDARD
) -> tuple[np.ndarray, np.ndarray]:
    """``moves_of_keys`` as arrays: ``(digits, plies)``, a row of ``board.cells`` columns
    (from 1, zero past the key's ply) for each key, and its ply."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    digits, plies = replay_keys(board, keys, _prefix_rows(root, board))
    if (plies < 0).any():
        raise UnreachableKeyError(int(keys[int(np.argmax(plies < 0))]), board)
    return digits, plies


def moves_of_keys(keys: np.ndarray, root: str = "", board: Board = STANDARD) -> list[str]:
    """The smallest move string that replays to each key (of reachable, unfinished positions).

    With ``root`` (a book's root moves), strings start with the root's moves,
    or with their mirror image, when any such string reaches the key.
    """
    return move_strings(*move_digits_of_keys(keys, root, board))


def move_strings(digits: np.ndarray, plies: np.ndarray) -> list[str]:
    """The strings of ``move_digits_of_keys``' rows, each cut at its ply."""
    full = digits.shape[1]
    text = (digits + ord("0")).tobytes().decode("ascii")
    return [text[i * full : i * full + p] for i, p in enumerate(plies.tolist())]


@njit(cache=True)
def _boards_of(board, keys, current, mask):
    for i in range(len(keys)):
        current[i], mask[i], _ = decode(board, keys[i])


def positions_of_keys(keys: np.ndarray, root: str = "", board: Board = STANDARD) -> list[Position]:
    """``[Position.from_moves(m, board) for m in moves_of_keys(keys, root, board)]``, faster.

    The boards come from the keys, not from replaying each string move by
    move, as a build's workers turn every frontier batch into Positions.
    The keys must be of unfinished positions, as ``moves_of_keys`` asks.
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    current = np.empty(len(keys), dtype=np.uint64)
    mask = np.empty(len(keys), dtype=np.uint64)
    _boards_of(board, keys, current, mask)
    raw = Position._raw
    return [
        raw(c, m, moves, False, board)
        for c, m, moves in zip(
            current.tolist(), mask.tolist(), moves_of_keys(keys, root, board), strict=True
        )
    ]


def moves_of_key(key: int, root: str = "", board: Board = STANDARD) -> str:
    """The move string of a key (``current + mask``): the smallest that replays to it.

    The one way from a key or a pair of boards back to moves.  With ``root``,
    the string starts with the root's moves (or their mirror image) when one
    such string reaches the key; a ValueError when no legal play reaches it.
    """
    return moves_of_keys(np.array([key], dtype=np.uint64), root, board)[0]

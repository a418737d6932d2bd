"""A whole ply's blocks decoded at numba speed: the two passes over every position.

Decoding many blocks at once (``blocks.decode_blocks``: a whole ply, for bulk
work) reads every key's LEB128 gap and works out what every position's
stones say (``implied``).  In numpy those two passes take most of a ply's
decoding time, some seventy calls a chunk of positions, each a trip through
memory; here each is one loop.  A reader that has loaded numba for bulk work
decodes with them (``compiled=True``); one that has not, in numpy.  The
answers are the same, refusals included (``tests/test_compiled_blocks.py``),
and the rules are the solver's own kernels (``solver._bits``).  Keys of one
word only: past 64 bits the numpy passes read.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from solver._bits import columns_of, non_losing_moves, possible, winning_cells
from solver._kernel_cache import SOLVER, drop_stale, fingerprint
from solver.bitboard import Board
from solver.packed import decode

from .implied import Implied

_HERE = Path(__file__).resolve().parent
# The kernels inline the solver's rules: a change there must compile them again.
drop_stale(_HERE, fingerprint(SOLVER, _HERE))

_SEVEN = np.uint64(7)
_DIGIT = np.uint64(0x7F)
_ONE = np.uint64(1)


@njit(cache=True)
def _read_gaps(stream, values):
    """The LEB128 values of ``stream`` (uint8) into ``values``; how many it holds (more than
    ``values`` takes: counted, not written), or -1 if one runs past 64 bits or past the end."""
    count = 0
    value = np.uint64(0)
    shift = np.uint64(0)
    for byte in stream:
        if shift > np.uint64(63):
            return -1
        value |= (np.uint64(byte) & _DIGIT) << shift
        if byte < 0x80:
            if count < len(values):
                values[count] = value
            count += 1
            value = np.uint64(0)
            shift = np.uint64(0)
        else:
            shift += _SEVEN
    return -1 if shift else count


def read_gaps(data: bytes, values: np.ndarray) -> None:
    """``leb128.read_gaps``, compiled: ``data`` holds no ``PAD``."""
    count = _read_gaps(np.frombuffer(data, dtype=np.uint8), values)
    if count < 0:
        raise ValueError("its keys frame holds a gap longer than 64 bits, or one cut short")
    if count != len(values):
        raise ValueError(f"its keys frame holds {count} gaps, not {len(values)}")


@njit(cache=True)
def _implied(board, keys, ply, win, loss, known, scores, best_known, best):
    """Fill the four arrays as ``implied._implied`` makes them; whether every key is a
    position of ``ply`` stones.  Without a branch on what the stones say: the CPU would
    guess it wrong a third of the time, four times the cost of the work."""
    right = True
    for i in range(len(keys)):
        current, mask, stones = decode(board, keys[i])
        right &= stones == ply
        playable = possible(board, mask)
        wins = winning_cells(board, current, mask) & playable
        safe = non_losing_moves(board, current, mask)
        # (``&`` and ``|``, not ``and`` and ``or``: those would branch)
        win_now = wins != 0
        lose_now = (wins == 0) & (safe == 0)
        known[i] = win_now | lose_now
        scores[i] = win * win_now + loss * lose_now
        # The best moves too, asked or not: without them to make, LLVM puts the safe moves
        # behind a branch on the win, which costs five times as much.
        said = win_now | ((safe & (safe - _ONE)) == 0)  # or loses at once, or one safe move
        cells = wins if win_now else (playable if lose_now else safe)
        best_known[i] = said
        best[i] = columns_of(board, cells) if said else 0
    return right


def implied(keys: np.ndarray, ply: int, board: Board, best: bool = True) -> Implied:
    """``implied.implied``, compiled."""
    count = len(keys)
    known = np.zeros(count, dtype=bool)
    scores = np.zeros(count, dtype=np.int8)
    best_known = np.zeros(count, dtype=bool)
    best_moves = np.zeros(count, dtype=board.column_set_type)
    right = _implied(
        board,
        np.ascontiguousarray(keys, dtype=np.uint64),
        ply,
        board.win_score(ply),
        board.loss_score(ply),
        known,
        scores,
        best_known,
        best_moves,
    )
    if not right:
        raise ValueError(f"a key is not a position of {ply} stones")
    if not best:
        return Implied(known, scores, None, None)
    return Implied(known, scores, best_known, best_moves)

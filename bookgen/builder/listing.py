"""Listing every position up to a ply, mirror images counted once, as packed keys.

A ply is a sorted ``uint64`` array of canonical keys (``solver.packed``):
the next ply is every unfinished child of this one, canonical, sorted and
without repeats.  Eight bytes a position and no Python object, so ply 12
(5.8 million positions) lists in seconds.

The deepest ply of a build is the largest by far (ply 14 holds 35,045,629
positions); ``frontier_chunks`` lists it in key order a slice of
key space at a time, so the driver never holds it whole.

On a board past 64 bits (``Board.is_wide``) a ply is an ``(n, 2)`` uint64
array, a key a row ``(low, high)`` (``solver.wide.pairs``), listed by the
two-word kernels (``solver.wide.packed``), which only such a board loads.
Key bounds are Python integers either way.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver import STANDARD, Board, Position
from solver.packed import moves_of_keys as packed_moves_of_keys
from solver.packed import unfinished_children, unique_sorted

from ..book.format.wide_keys import key_ints

KEY_END = np.uint64((1 << 64) - 1)  # above every key of one word
SPLIT_SAMPLE = 50_000  # parents whose children place the chunk boundaries
SLICES = 1024  # thin key ranges that passes are made of
# Passes list at least this many keys, and about an eighth of the frontier
# at most: a frontier smaller than ``chunk`` is still listed in a few slices,
# so the driver's peak stays a small share of the frontier it sends out.
MIN_CHUNK = 100_000


# Past 64 bits, each function imports the two-word kernels where it needs them: a
# process that lists only one-word boards never loads them.


def key_end(board: Board) -> int:
    """A bound above every key of ``board``: ``[0, key_end)`` holds them all."""
    if board.is_wide:
        from solver.wide.packed import WIDE_KEY_END

        return WIDE_KEY_END
    return int(KEY_END)


def expand(
    keys: np.ndarray, low: int = 0, high: int | None = None, board: Board = STANDARD
) -> np.ndarray:
    """Sorted canonical keys of the unfinished children of ``keys`` in ``[low, high)``
    (``None``: ``key_end``)."""
    if board.is_wide:
        from solver.wide.packed import sorted_children

        return sorted_children(board, keys, low, key_end(board) if high is None else high)
    end = KEY_END if high is None else np.uint64(high)
    children = unfinished_children(board, keys, np.uint64(low), end)
    children.sort()  # numpy's default sort works in place: no second buffer
    return unique_sorted(children).copy()  # copied, so the larger buffer is freed


def key_array(keys: list[int], board: Board) -> np.ndarray:
    """Python integers as ``board``'s array of keys."""
    if board.is_wide:
        from solver.wide.pairs import pairs_of

        return pairs_of(keys)
    return np.array(keys, dtype=np.uint64)


def moves_of_keys(keys: np.ndarray, root: str, board: Board) -> list[str]:
    """The move strings of ``keys`` (``board``'s array of them), each from ``root`` or its
    mirror image (``solver.packed.moves_of_keys``, or its twin of two words)."""
    if board.is_wide:
        from solver.wide.packed import moves_of_keys as of_two_words

        return of_two_words(keys, root, board)
    return packed_moves_of_keys(keys, root, board)


def root_keys(root: Position) -> np.ndarray:
    """The root's ply: its canonical key, or nothing for a finished game."""
    return key_array([] if root.is_game_over else [root.canonical_key], root.board)


def keys_by_ply(root: Position, max_ply: int) -> dict[int, np.ndarray]:
    """Every unfinished position from ``root`` up to ``max_ply``: sorted keys by ply.

    ``{}`` for a finished root.  Positions are in canonical orientation.
    """
    level = root_keys(root)
    if not len(level):
        return {}
    levels = {root.ply: level}
    for ply in range(root.ply, max_ply):
        level = expand(level, board=root.board)
        levels[ply + 1] = level
    return levels


def frontier_chunks(
    parents: np.ndarray, chunk: int = 4_000_000, board: Board = STANDARD
) -> Iterator[np.ndarray]:
    """The children of ``parents`` in key order, in sorted arrays of about ``chunk`` keys.

    Each array takes one pass over the parents, listing one range of keys:
    memory stays at the parents plus one chunk.  The ranges come from the
    children of an evenly spread sample of parents, cut into many thin
    slices of equal sample count; each pass takes as many slices as should
    make ``chunk`` keys.  How many real children a sample child stands for
    is learnt as the passes go (transpositions make it far less than the
    sampling step), starting from the sampling step, which errs small.
    """
    step = max(1, len(parents) // SPLIT_SAMPLE)
    sample = expand(parents[::step], board=board)
    slices = min(len(sample), SLICES)
    if slices < 2:
        yield expand(parents, board=board)
        return
    chunk = min(chunk, max(MIN_CHUNK, len(sample) * step // 8))
    cuts = sample[np.linspace(0, len(sample), slices, endpoint=False, dtype=np.int64)[1:]]
    bounds = [0, *dict.fromkeys(key_ints(cuts)), key_end(board)]  # cuts are sorted: unique
    sampled = np.diff(_searchsorted(sample, key_array(bounds, board)))
    del sample, cuts  # not held while the passes run
    per_sample = float(step)
    listed = seen = 0
    at = 0
    while at < len(bounds) - 1:
        end, estimate = at + 1, sampled[at] * per_sample
        while end < len(bounds) - 1 and estimate + sampled[end] * per_sample <= chunk:
            estimate += sampled[end] * per_sample
            end += 1
        keys = expand(parents, bounds[at], bounds[end], board)
        listed += len(keys)
        seen += int(sampled[at:end].sum())
        per_sample = listed / max(1, seen)
        at = end
        if len(keys):
            yield keys


def _searchsorted(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """``np.searchsorted`` of keys, one word or two (an array's rows say which)."""
    if haystack.ndim == 2:
        from solver.wide.pairs import searchsorted

        return searchsorted(haystack, needles)
    return np.searchsorted(haystack, needles)


def contains_sorted(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """For each of ``needles``, whether the sorted array ``haystack`` holds it (keys of
    one word or two)."""
    if not len(haystack):
        return np.zeros(len(needles), dtype=bool)
    at = _searchsorted(haystack, needles)
    same = haystack[np.minimum(at, len(haystack) - 1)] == needles
    return same if same.ndim == 1 else same.all(axis=1)

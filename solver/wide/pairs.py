"""Arrays of 128-bit numbers: an ``(n, 2)`` uint64 array, row ``i`` the pair ``(low, high)``.

Row ``i`` is the pair of words ``_words`` takes, so a kernel reads number
``i`` as ``(a[i, 0], a[i, 1])``.  numpy has no 128-bit integer and orders
such rows by neither word alone, so sorting and searching are kernels here:
an LSD radix sort (11 bits a pass; the passes of digits that no number
varies in are skipped) and a binary search.  A numpy structured dtype would
sort and search itself, but through a generic comparison: 24 and 17 times
as slow as these on 5 M keys of 8x8 (docs/benchmarks.md, "listing past 64
bits").
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import njit

from ._words import WORD, less, shr

LARGEST = (1 << 128) - 1  # the largest number of two words
DIGIT_BITS = 11  # 2,048 counts a digit, 16 KiB: they stay in the L1 cache
_RADIX = 1 << DIGIT_BITS
_DIGIT = np.uint64(_RADIX - 1)


def pairs_of(numbers: Iterable[int]) -> np.ndarray:
    """An ``(n, 2)`` array of Python integers from 0 to 2**128 - 1; a ValueError names any other."""
    numbers = list(numbers)
    for number in numbers:
        if not 0 <= number <= LARGEST:
            raise ValueError(f"{number!r} is not a number of two words (0 to 2**128 - 1)")
    out = np.empty((len(numbers), 2), dtype=np.uint64)
    out[:, 0] = [n & WORD for n in numbers]
    out[:, 1] = [n >> 64 for n in numbers]
    return out


def ints_of(pairs: np.ndarray) -> list[int]:
    """The Python integers of an ``(n, 2)`` array (``pairs_of``' inverse)."""
    return [low | high << 64 for low, high in pairs.tolist()]


@njit(cache=True)
def _digit(pair, shift):
    return shr(pair, shift)[0] & _DIGIT


@njit(cache=True)
def sort_pairs(pairs, bits):
    """``pairs`` (numbers below ``2**bits``) in increasing order: ``pairs`` itself, sorted,
    or a new array, with ``pairs`` left in some order.

    One read counts every digit; then each pass scatters by one digit, lowest
    first, into the other buffer.  A pass that would keep every row in place
    (one digit value for all) is skipped: on 5x12 the high word takes one bit.
    """
    n = len(pairs)
    passes = (bits + DIGIT_BITS - 1) // DIGIT_BITS
    counts = np.zeros((passes, _RADIX), dtype=np.int64)
    for i in range(n):
        pair = (pairs[i, 0], pairs[i, 1])
        for d in range(passes):
            counts[d, _digit(pair, np.uint64(d * DIGIT_BITS))] += 1
    source, target = pairs, np.empty_like(pairs)
    for d in range(passes):
        at = counts[d]
        if at.max() == n:
            continue
        start = 0
        for value in range(_RADIX):  # counts to the first row of each value
            count = at[value]
            at[value] = start
            start += count
        shift = np.uint64(d * DIGIT_BITS)
        for i in range(n):
            pair = (source[i, 0], source[i, 1])
            value = _digit(pair, shift)
            j = at[value]
            at[value] = j + 1
            target[j, 0] = pair[0]
            target[j, 1] = pair[1]
        source, target = target, source
    return source


@njit(cache=True)
def unique_sorted(pairs):
    """``pairs`` (sorted) without repeats, in place; returns the used prefix."""
    n = 0
    for i in range(len(pairs)):
        if i == 0 or pairs[i, 0] != pairs[n - 1, 0] or pairs[i, 1] != pairs[n - 1, 1]:
            pairs[n, 0] = pairs[i, 0]
            pairs[n, 1] = pairs[i, 1]
            n += 1
    return pairs[:n]


@njit(cache=True)
def find(pairs, key):
    """The row of ``key`` (a pair) in the sorted rows ``pairs``, or -1."""
    low, high = 0, len(pairs)
    while low < high:
        mid = (low + high) >> 1
        if less((pairs[mid, 0], pairs[mid, 1]), key):
            low = mid + 1
        else:
            high = mid
    if low < len(pairs) and pairs[low, 0] == key[0] and pairs[low, 1] == key[1]:
        return low
    return -1


@njit(cache=True)
def searchsorted(haystack, needles):
    """``np.searchsorted(haystack, needles)`` (side ``"left"``) for ``(n, 2)`` arrays."""
    out = np.empty(len(needles), dtype=np.int64)
    for k in range(len(needles)):
        needle = (needles[k, 0], needles[k, 1])
        low, high = 0, len(haystack)
        while low < high:
            mid = (low + high) >> 1
            if less((haystack[mid, 0], haystack[mid, 1]), needle):
                low = mid + 1
            else:
                high = mid
        out[k] = low
    return out

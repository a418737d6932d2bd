"""Two-word arithmetic: a 128-bit set of cells as a pair of uint64 words ``(low, high)``.

numba has no 128-bit integer.  A pair is a tuple, passed and returned by
value: LLVM keeps both words in registers, and every kernel here is inlined,
so a shift by a board's constant (``board.h1``) folds to the two or three
instructions of its branch.  Shift counts are uint64 in ``(0, 128)``; a shift
of a word by 64 or more is undefined in LLVM, hence the branches.
"""

import numpy as np
from numba import njit

from .._bits import popcount

ZERO = np.uint64(0)
ONE = np.uint64(1)
W64 = np.uint64(64)
NONE = (ZERO, ZERO)
WORD = (1 << 64) - 1


def words(bits: int) -> tuple[np.uint64, np.uint64]:
    """A Python integer of at most 128 bits as the pair ``(low, high)`` the kernels take."""
    return np.uint64(bits & WORD), np.uint64(bits >> 64)


def joined(pair) -> int:
    """The Python integer of a pair of words (``words``' inverse)."""
    return int(pair[0]) | int(pair[1]) << 64


@njit(cache=True)
def and_(a, b):
    return a[0] & b[0], a[1] & b[1]


@njit(cache=True)
def or_(a, b):
    return a[0] | b[0], a[1] | b[1]


@njit(cache=True)
def xor(a, b):
    return a[0] ^ b[0], a[1] ^ b[1]


@njit(cache=True)
def andnot(a, b):
    """``a & ~b``."""
    return a[0] & ~b[0], a[1] & ~b[1]


@njit(cache=True)
def shl(a, s):
    """``a << s``, the bits past 128 dropped."""
    if s >= W64:
        return ZERO, a[0] << (s - W64)
    if s == ZERO:
        return a
    return a[0] << s, (a[1] << s) | (a[0] >> (W64 - s))


@njit(cache=True)
def shr(a, s):
    """``a >> s``."""
    if s >= W64:
        return a[1] >> (s - W64), ZERO
    if s == ZERO:
        return a
    return (a[0] >> s) | (a[1] << (W64 - s)), a[1] >> s


@njit(cache=True)
def add(a, b):
    """``a + b``, the carry out of the low word into the high one."""
    low = a[0] + b[0]
    return low, a[1] + b[1] + (ONE if low < a[0] else ZERO)


@njit(cache=True)
def is_zero(a):
    return (a[0] | a[1]) == ZERO


@njit(cache=True)
def ones(a):
    """How many bits are set."""
    return popcount(a[0]) + popcount(a[1])


@njit(cache=True)
def several(a):
    """Whether more than one bit is set."""
    if a[0] != ZERO and a[1] != ZERO:
        return True
    word = a[0] | a[1]
    return word & (word - ONE) != ZERO


@njit(cache=True)
def lowest(a):
    """The lowest set bit alone (``a`` not zero)."""
    if a[0] != ZERO:
        return a[0] & (ZERO - a[0]), ZERO
    return ZERO, a[1] & (ZERO - a[1])


@njit(cache=True)
def less(a, b):
    """``a < b`` as 128-bit numbers."""
    return a[1] < b[1] or (a[1] == b[1] and a[0] < b[0])

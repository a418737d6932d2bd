"""Tests for ``solver.wide._words``: two-word arithmetic against Python's integers."""

import random

import numpy as np
import pytest

from solver.wide import _words as w
from solver.wide._words import joined, words

MASK = (1 << 128) - 1
RNG = random.Random(52)
VALUES = [0, 1, 1 << 63, 1 << 64, MASK, (1 << 64) - 1, *(RNG.getrandbits(128) for _ in range(20))]


def test_words_and_joined_are_inverse():
    for value in VALUES:
        pair = words(value)
        assert all(isinstance(x, np.uint64) for x in pair)
        assert joined(pair) == value


@pytest.mark.parametrize("shift", range(1, 128))
def test_shifts_cross_the_word_boundary(shift):
    s = np.uint64(shift)
    for value in VALUES:
        assert joined(w.shl(words(value), s)) == (value << shift) & MASK
        assert joined(w.shr(words(value), s)) == value >> shift


def test_logic_add_and_counts():
    for a in VALUES:
        for b in VALUES[:8]:
            pa, pb = words(a), words(b)
            assert joined(w.and_(pa, pb)) == a & b
            assert joined(w.or_(pa, pb)) == a | b
            assert joined(w.xor(pa, pb)) == a ^ b
            assert joined(w.andnot(pa, pb)) == a & ~b
            assert joined(w.add(pa, pb)) == (a + b) & MASK  # the carry between the words
            assert w.less(pa, pb) == (a < b)
        pair = words(a)
        assert w.is_zero(pair) == (a == 0)
        assert w.ones(pair) == a.bit_count()
        assert w.several(pair) == (a.bit_count() > 1)
        if a:
            assert joined(w.lowest(pair)) == a & -a

"""``solver.wide.pairs``: arrays of 128-bit numbers sorted, made unique and searched, against
Python's own integers."""

import bisect
import random

import numpy as np
import pytest

from solver.wide.pairs import LARGEST, ints_of, pairs_of, searchsorted, sort_pairs, unique_sorted


def numbers(count: int, seed: int) -> list[int]:
    """Numbers of every size a key takes, and some that differ in one word alone."""
    rng = random.Random(seed)
    found = [rng.getrandbits(rng.choice([1, 11, 60, 64, 65, 72, 127, 128])) for _ in range(count)]
    low = rng.getrandbits(64)
    found += [low | high << 64 for high in (0, 1, 2, 255)]  # the high word alone differs
    found += [rng.getrandbits(64) | 7 << 64 for _ in range(20)]  # the low word alone differs
    return [*found, 0, LARGEST, (1 << 64) - 1, 1 << 64, *found[:500]]  # and repeats


def test_pairs_and_ints_round_trip():
    values = numbers(300, 1)
    pairs = pairs_of(values)
    assert pairs.shape == (len(values), 2) and pairs.dtype == np.uint64
    assert ints_of(pairs) == values
    assert pairs_of([1 << 64 | 5]).tolist() == [[5, 1]]  # a row is (low, high)
    assert pairs_of([]).shape == (0, 2) and ints_of(pairs_of([])) == []


@pytest.mark.parametrize("bad", [-1, LARGEST + 1])
def test_a_number_past_two_words_is_refused(bad):
    with pytest.raises(ValueError, match=f"{bad} is not a number of two words"):
        pairs_of([3, bad])


@pytest.mark.parametrize("bits", [128, 72, 65])
def test_sorted_and_unique_as_python_sorts_them(bits):
    values = [v % (1 << bits) for v in numbers(5000, bits)]
    ordered = sort_pairs(pairs_of(values), bits)
    assert ints_of(ordered) == sorted(values)
    assert ints_of(unique_sorted(ordered)) == sorted(set(values))


def test_sorting_the_few_and_the_same():
    for values in ([], [5], [3, 3, 3], [1 << 70, 1 << 70, 2], list(range(100)), [9, 1 << 64]):
        ordered = sort_pairs(pairs_of(values), 128)
        assert ints_of(ordered) == sorted(values)
        assert ints_of(unique_sorted(ordered)) == sorted(set(values))


def test_searchsorted_is_bisect_left():
    haystack = sorted(set(numbers(2000, 7)))
    needles = [*numbers(500, 8), *haystack[::50], 0, LARGEST]
    found = searchsorted(pairs_of(haystack), pairs_of(needles))
    assert found.tolist() == [bisect.bisect_left(haystack, n) for n in needles]
    assert searchsorted(pairs_of([]), pairs_of([4])).tolist() == [0]

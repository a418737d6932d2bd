#!/usr/bin/env python3
"""What listing keys past 64 bits costs, and why a ply there is an ``(n, 2)`` array.

Two parts; within each the cases take turns round by round, and each prints
its best round:

* **sorting**: the children of an 8x8 ply (``--wide-ply``), unsorted and with
  repeats as ``listing`` makes them, sorted and made unique three ways:
  ``solver.wide.pairs``' radix sort of ``(n, 2)`` rows ``(low, high)``;
  ``np.lexsort`` of the two words and a gather; numpy's own sort of a
  structured dtype ``(high, low)``, which orders by both words.  Then a
  binary search of a million of them in the result: ``pairs.searchsorted``
  against ``np.searchsorted`` of the structured dtype.  The yardstick: numpy's
  in-place sort of as many one-word keys (``listing``'s on 7x6).
* **listing**: one ply of 7x6 (``--narrow-ply`` to the next) expanded through
  the one-word kernels and through the two-word ones (7x6 typed wide: the
  same keys), and one ply of 8x8 (``--wide-ply`` to the next).

    python scripts/bench_wide_listing.py --wide-ply 9 --narrow-ply 11 --rounds 3
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from _args import at_least_one, parse_args
from bench_evaluate import TwoWords

from bookgen.builder.listing import expand, keys_by_ply
from solver import STANDARD, Board, Position
from solver.packed import unfinished_children as one_word_children
from solver.wide._words import words
from solver.wide.packed import WIDE_KEY_END, unfinished_children
from solver.wide.pairs import searchsorted, sort_pairs, unique_sorted

# numpy orders a structured dtype field by field: (high, low) is numeric order.
HIGH_LOW = np.dtype([("high", "<u8"), ("low", "<u8")])


def by_lexsort(pairs: np.ndarray) -> np.ndarray:
    return unique_sorted(pairs[np.lexsort((pairs[:, 0], pairs[:, 1]))])


def by_structured(pairs: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(pairs[:, ::-1]).view(HIGH_LOW).ravel()
    rows.sort()
    return unique_sorted(rows.view(np.uint64).reshape(-1, 2)[:, ::-1].copy())


def best_rounds(
    cases: dict[str, Callable[[], np.ndarray]], rounds: int
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Each case's best time over ``rounds`` rounds, the cases taking turns, and its result."""
    results = {name: run() for name, run in cases.items()}  # untimed: kernels compile or load
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(rounds):
        for name, run in cases.items():
            start = time.perf_counter()
            results[name] = run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best, results


def show(times: dict[str, float], counts: dict[str, int] | None = None) -> None:
    for name, seconds in times.items():
        count = "" if counts is None else f"  {counts[name]:,} keys"
        print(f"  {name:48s} {seconds:6.2f} s{count}")


def sorting(wide_ply: int, rounds: int) -> None:
    board = Board(8, 8)
    parents = keys_by_ply(Position(board=board), wide_ply)[wide_ply]
    children = unfinished_children(board, parents, words(0), words(WIDE_KEY_END))
    seven = keys_by_ply(Position(), 11)[11]
    end = np.uint64((1 << 64) - 1)
    narrow = one_word_children(STANDARD, seven, np.uint64(0), end)[: len(children)]
    times, results = best_rounds(
        {
            f"one word: np.sort of {len(narrow):,} (yardstick)": lambda: np.sort(narrow),
            "(n, 2) rows: pairs.sort_pairs (radix) + unique": lambda: unique_sorted(
                sort_pairs(children.copy(), board.key_bits)
            ),
            "(n, 2) rows: np.lexsort + gather + unique": lambda: by_lexsort(children),
            "structured (high, low): ndarray.sort + unique": lambda: by_structured(children),
        },
        rounds,
    )
    keys, *others = list(results.values())[1:]
    assert all(np.array_equal(keys, other) for other in others)
    print(f"8x8 ply {wide_ply + 1}: {len(children):,} children, {len(keys):,} unique")
    show(times)
    needles = children[:1_000_000].copy()
    structured = np.ascontiguousarray(keys[:, ::-1]).view(HIGH_LOW).ravel()
    wanted = np.ascontiguousarray(needles[:, ::-1]).view(HIGH_LOW).ravel()
    times, results = best_rounds(
        {
            "pairs.searchsorted": lambda: searchsorted(keys, needles),
            "structured: np.searchsorted": lambda: np.searchsorted(structured, wanted),
        },
        rounds,
    )
    first, second = results.values()
    assert np.array_equal(first, second)
    print(f"searching {len(needles):,} of them:")
    show(times)


def listing(narrow_ply: int, wide_ply: int, rounds: int) -> None:
    parents = keys_by_ply(Position(), narrow_ply)[narrow_ply]
    two = np.stack([parents, np.zeros_like(parents)], axis=1)
    wide_board = Board(8, 8)
    wide_parents = keys_by_ply(Position(board=wide_board), wide_ply)[wide_ply]
    one_word, two_words = (
        f"7x6 ply {narrow_ply + 1}, one word",
        f"7x6 ply {narrow_ply + 1}, two words",
    )
    times, results = best_rounds(
        {
            one_word: lambda: expand(parents),
            two_words: lambda: expand(two, board=TwoWords()),  # type: ignore[arg-type]  # a Board's stand-in
            f"8x8 ply {wide_ply + 1}": lambda: expand(wide_parents, board=wide_board),
        },
        rounds,
    )
    same = results[two_words]
    assert np.array_equal(results[one_word], same[:, 0]) and not same[:, 1].any()
    print("listing one ply (expand: children, sort, unique):")
    show(times, {name: len(keys) for name, keys in results.items()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wide-ply", type=at_least_one, default=9, help="8x8 parents' ply")
    parser.add_argument("--narrow-ply", type=at_least_one, default=11, help="7x6 parents' ply")
    parser.add_argument("--rounds", type=at_least_one, default=3, help="rounds; the best is kept")
    args = parse_args(parser)
    sorting(args.wide_ply, args.rounds)
    listing(args.narrow_ply, args.wide_ply, args.rounds)


if __name__ == "__main__":
    main()

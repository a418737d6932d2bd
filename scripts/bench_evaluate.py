#!/usr/bin/env python3
"""Nodes a second of the AI's evaluation search on 7x6 and on boards past 64 bits.

The evaluation search (``root_values``: every legal move searched to a fixed
depth) runs on random positions of each board, the ends of random games
stopped between a sixth and a half of the board's cells, the player to move
unable to win at once; every table is emptied before each position. 7x6
runs twice: through the one-word kernels (``solver._evaluate``) and through
the two-word ones (``solver.wide._evaluate``), the same tree node for node,
which measures what two words cost; the wide boards run through the two-word
ones alone.  The cases take turns round by round, so a slow minute on the
shared machine slows all; printed per case: positions, nodes, the best
round's seconds and nodes a second.

    python scripts/bench_evaluate.py 8x8 9x7 5x12 --depth 10 --positions 100 --rounds 3
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from _args import at_least_one, parse_args

from solver import STANDARD, Board, Position
from solver import _evaluate as narrow
from solver import _search as narrow_search
from solver.anytime import NO_KNOWN
from solver.wide import _evaluate as wide
from solver.wide import _search as wide_search
from solver.wide._board_type import WideBoardType
from solver.wide._words import words


class TwoWords:
    """7x6 typed for the two-word kernels (as ``tests/conftest.py``'s ``WideView``); its
    ``is_wide`` sends ``listing`` to them too (``bench_wide_listing.py``)."""

    _numba_type_ = WideBoardType(7, 6)
    is_wide = True
    key_bits = STANDARD.key_bits


def positions(board: Board, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position, stop = Position(board), rng.randint(board.cells // 6, board.cells // 2)
        while position.ply < stop and not position.is_game_over:
            position = position.play(rng.choice(position.legal_moves()))
        if not position.is_game_over and not any(
            map(position.is_winning_move, position.legal_moves())
        ):
            found.append(position)
    return found


class Case:
    """One board through one kernel set, with its own tables."""

    def __init__(self, name: str, board: Board, two_words: bool, todo: list[Position]):
        self.name, self.board, self.todo = name, board, todo
        self.view = TwoWords() if two_words and not board.is_wide else board
        self.kernels, search = (wide, wide_search) if two_words else (narrow, narrow_search)
        self.convert = words if two_words else np.uint64
        self.known = () if two_words else NO_KNOWN
        self.tables = (
            np.zeros((2 if two_words else 1) << 18, dtype=np.uint64),  # own table: keys
            np.zeros(1 << 18, dtype=np.uint64),  # and data
            np.zeros(1 << 20, dtype=np.uint64),  # the solver's table
            np.zeros(search.scratch_size(self.view), dtype=np.uint64),  # its near table
        )
        self.scratch = np.zeros(self.kernels.scratch_size(self.view), dtype=np.uint64)
        self.nodes, self.best = 0, float("inf")

    def run(self, depth: int) -> None:
        nodes, spent = 0, 0.0
        keys, data, table, near = self.tables
        for position in self.todo:
            for array in self.tables:
                array.fill(0)
            columns = np.array([c - 1 for c in position.legal_moves()], dtype=np.int64)
            values = np.zeros(columns.size, dtype=np.int64)
            before = int(self.scratch[narrow.NODES])
            started = time.perf_counter()
            self.kernels.root_values(
                self.view,
                self.convert(position.current),
                self.convert(position.mask),
                position.ply,
                depth,
                columns,
                values,
                keys,
                data,
                table,
                near,
                np.uint64(44),
                *self.known,
                self.scratch,
            )
            spent += time.perf_counter() - started
            nodes += int(self.scratch[narrow.NODES]) - before
        self.nodes, self.best = nodes, min(self.best, spent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("boards", nargs="*", default=["8x8", "9x7", "5x12"], help="wide boards")
    parser.add_argument("--depth", type=at_least_one, default=10, help="plies (default 10)")
    parser.add_argument("--positions", type=at_least_one, default=100, help="a board's")
    parser.add_argument("--rounds", type=at_least_one, default=3, help="best of (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parse_args(parser, argv)
    standard = positions(STANDARD, args.positions, args.seed)
    cases = [
        Case("7x6", STANDARD, False, standard),
        Case("7x6, two words", STANDARD, True, standard),
    ]
    for size in args.boards:
        board = Board.parse(size)
        cases.append(Case(size, board, True, positions(board, args.positions, args.seed)))
    for case in cases:  # load (or compile) the kernels
        Case(case.name, case.board, case.kernels is wide, case.todo[:1]).run(2)
    for _ in range(args.rounds):
        for case in cases:
            case.run(args.depth)
    print(f"depth {args.depth}, {args.positions} positions a board, best of {args.rounds}")
    for case in cases:
        rate = case.nodes / case.best / 1e6
        print(f"{case.name:16s} {case.nodes / 1e6:8.2f} M nodes {case.best:7.2f} s {rate:6.2f} M/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

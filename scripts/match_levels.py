#!/usr/bin/env python3
"""Matches between the AI's levels: are they strictly ordered?

Each match is ``--games`` games (default 100) from random openings of
``--opening`` moves (fixed seed): every opening is played twice, each level
taking each side once, so that a lopsided opening favours neither.  Each
level is matched against the next one up and against perfect play.  Levels
below perfect get a seed per game, so every game can be replayed.  The
perfect player's moves are cached by position across all games.

    python scripts/match_levels.py --db book.db --games 100
"""

from __future__ import annotations

import argparse
import random
import time

from _args import parse_args

from bookgen import Book, Player
from bookgen.play.levels import LEVELS
from solver import Position


def openings(
    count: int, plies: int, seed: int, book: Book | None = None, within: int | None = None
) -> list[str]:
    """``count`` distinct random openings of ``plies`` moves with no game over.

    With a ``book`` and ``within``, only openings whose exact score the book gives
    as at most ``within`` either way (drawn, or won only with one of the last
    stones), and no two the mirror image of each other.
    """
    rng = random.Random(seed)
    found: list[str] = []
    seen: set[int] = set()
    while len(found) < count:
        position = Position()
        while position.ply < plies and not position.is_game_over:
            position = position.play(rng.choice(position.legal_moves()))
        if position.is_game_over or position.moves in found:
            continue
        if book is not None and within is not None:
            entry = book.get(position)
            if entry is None or abs(entry.score) > within or position.canonical_key in seen:
                continue
            seen.add(position.canonical_key)
        found.append(position.moves)
    return found


class CachedPerfect:
    """Perfect play, each position answered once."""

    def __init__(self, book: Book):
        self.player = Player(book)
        self.moves: dict[str, int] = {}

    def best_move(self, position: Position) -> int:
        if position.moves not in self.moves:
            self.moves[position.moves] = self.player.best_move(position)
        return self.moves[position.moves]


def play(opening: str, first, second) -> int:
    """1 if the first player to move after the opening wins, 0 draw, -1 loss."""
    position = Position.from_moves(opening)
    players = (first, second)
    turn = 0
    while not position.is_game_over:
        position = position.play(players[turn].best_move(position))
        turn = 1 - turn
    if not position.is_won:
        return 0
    return 1 if turn == 1 else -1  # the player who just moved won


def match(
    book: Book, low: str, high: str, starts: list[str], seed: int, perfect
) -> tuple[int, int, int]:
    """(wins, draws, losses) of ``high`` against ``low`` over every opening, both ways round."""

    def make(name: str, game: int):
        return perfect if name == "perfect" else Player(book, level=name, seed=seed + game)

    wins = draws = losses = 0
    for i, opening in enumerate(starts):
        for high_first in (True, False):
            game = 2 * i + (not high_first)
            a, b = make(high, game), make(low, game)
            result = play(opening, a, b) if high_first else -play(opening, b, a)
            wins, draws, losses = wins + (result > 0), draws + (result == 0), losses + (result < 0)
    return wins, draws, losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="book.db")
    parser.add_argument("--games", type=int, default=100, help="games per match (even)")
    parser.add_argument("--opening", type=int, default=4, help="random moves per opening")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), choices=list(LEVELS))
    args = parse_args(parser)

    starts = openings(args.games // 2, args.opening, args.seed)
    names = args.levels
    pairs = [(names[i], names[i + 1]) for i in range(len(names) - 1)]
    pairs += [(name, "perfect") for name in names[:-2] if "perfect" in names]
    with Book.open(args.db) as book:
        perfect = CachedPerfect(book)
        print(
            f"{args.games} games per match, openings of {args.opening} random moves "
            f"(seed {args.seed}), each played both ways round\n"
        )
        print("| stronger | weaker | stronger wins | draws | weaker wins | minutes |")
        print("|---|---|---|---|---|---|")
        for low, high in pairs:
            started = time.perf_counter()
            wins, draws, losses = match(book, low, high, starts, args.seed, perfect)
            print(
                f"| {high} | {low} | {wins} | {draws} | {losses} | "
                f"{(time.perf_counter() - started) / 60:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

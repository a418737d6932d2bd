#!/usr/bin/env python3
"""The levels' Elo ratings: a round robin of every level, fitted by Bradley-Terry.

Every pair of levels plays from balanced openings drawn from the book: random
openings of ``--opening`` moves whose exact score is at most ``--within``
either way (drawn, or won only with one of the last stones), no two mirror
images.  Each opening is played twice, each level taking each side once.
Neighbouring levels play ``--games`` games, levels further apart ``--far``
(a lopsided pairing says less per game).  The fit (``bookgen.play.ratings``:
draws as half a win, one virtual draw between neighbours) anchors perfect
play at its rating in ``bookgen/play/levels.py``; the intervals are 95%, from
the Fisher information.  Prints the results of each pairing as it ends, then
the ratings as docs/ai.md tables them.

    python scripts/rate_levels.py --db book.db --games 1000 --far 400
"""

from __future__ import annotations

import argparse
import itertools
import time

from _args import at_least_one, parse_args
from match_levels import CachedPerfect, match, openings

from bookgen import Book
from bookgen.play.levels import LEVELS
from bookgen.play.ratings import Match, fit

ELO_DIGITS = -1  # ratings to the nearest 10: their intervals are tens of points wide


def even(text: str) -> int:
    """A number of games: even, as each opening is played both ways round."""
    value = at_least_one(text)
    if value % 2:
        raise argparse.ArgumentTypeError(f"{value} is odd: each opening is played twice")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="book.db")
    parser.add_argument("--games", type=even, default=1000, help="games between neighbours")
    parser.add_argument("--far", type=even, default=400, help="games between other levels")
    parser.add_argument("--opening", type=int, default=6, help="random moves per opening")
    parser.add_argument(
        "--within", type=int, default=2, help="largest exact score of an opening, either way"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), choices=list(LEVELS))
    args = parse_args(parser)

    names = args.levels
    started = time.perf_counter()
    matches: list[Match] = []
    with Book.open(args.db) as book:
        starts = openings(
            max(args.games, args.far) // 2, args.opening, args.seed, book, args.within
        )
        perfect = CachedPerfect(book)
        print(
            f"{args.games} games between neighbours, {args.far} between others; openings of "
            f"{args.opening} random moves scored at most {args.within} either way "
            f"(seed {args.seed}), each played both ways round\n"
        )
        print("| stronger | weaker | stronger wins | draws | weaker wins | minutes |")
        print("|---|---|---|---|---|---|")
        for (i, low), (j, high) in itertools.combinations(enumerate(names), 2):
            games = args.games if j == i + 1 else args.far
            begun = time.perf_counter()
            wins, draws, losses = match(book, low, high, starts[: games // 2], args.seed, perfect)
            matches.append(Match(high, low, wins, draws, losses))
            print(
                f"| {high} | {low} | {wins} | {draws} | {losses} | "
                f"{(time.perf_counter() - begun) / 60:.1f} |",
                flush=True,
            )
    anchor = names[-1]
    ratings = fit(names, matches, anchor, LEVELS[anchor].elo)
    print(f"\n{(time.perf_counter() - started) / 60:.1f} minutes; {anchor} anchored\n")
    print("| level | Elo (to 10) | 95% interval | games |")
    print("|---|---|---|---|")
    for rating in reversed(ratings):
        interval = "anchor" if rating.name == anchor else f"±{rating.margin:.0f}"
        print(
            f"| {rating.name} | {round(rating.elo, ELO_DIGITS):.0f} | {interval} | {rating.games} |"
        )


if __name__ == "__main__":
    main()

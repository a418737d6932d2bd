"""Elo ratings from match results: a Bradley-Terry fit with 95% confidence intervals.

A draw counts as half a win for each side (the Elo convention, not a ties
model).  The ratings maximise the likelihood of the results, plus ``prior``
virtual draws between each pair of neighbours in the players' order: a weak
prior that keeps every rating finite when a player never lost (perfect play)
or never won, and pulls a gap in by about one game's worth.  One player, the
anchor, is fixed at a stated rating; the others' intervals come from the
Fisher information of the fit (the inverse of the log-likelihood's curvature,
with the anchor held fixed), so they are intervals about the gap to the anchor.
Counting a draw as a half win with a win-or-loss variance makes them a little
wide when there are draws: on the safe side.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from solver.errors import C4Error, is_whole

ELO_SCALE = 400  # Elo points per tenfold in the odds of winning
PER_LOG_ODDS = ELO_SCALE / math.log(10)  # Elo points per unit of natural log-odds
Z95 = NormalDist().inv_cdf(0.975)  # a 95% interval is this many standard errors either side
# A Newton step this small (log-odds; 2e-5 Elo) is the last: the next would be its square,
# and the likelihood's change, about the step squared, is lost in its rounding.
_CONVERGED = 1e-7


class RatingError(C4Error, ValueError):
    """Results that cannot be rated: an unknown player, a bad count, an unrated player."""


@dataclass(frozen=True)
class Match:
    """``wins``, ``draws`` and ``losses`` of ``first`` against ``second``."""

    first: str
    second: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``first``'s points: a win is 1, a draw a half."""
        return self.wins + self.draws / 2


@dataclass(frozen=True)
class Rating:
    """A player's Elo, the half-width of its 95% interval (0 for the anchor) and its games."""

    name: str
    elo: float
    margin: float
    games: int


def expected(gap: float) -> float:
    """The expected score of a player ``gap`` Elo above the other."""
    return 1 / (1 + 10 ** (-gap / ELO_SCALE))


def fit(
    players: Sequence[str],
    matches: Iterable[Match],
    anchor: str,
    at: float,
    prior: float = 1.0,
) -> list[Rating]:
    """Each player's rating, in ``players``' order, with ``anchor`` at ``at``.

    ``prior`` virtual draws are added between ``players[i]`` and ``players[i + 1]``
    (0: none; then a player who never won or never lost raises ``RatingError``).
    """
    index = {name: i for i, name in enumerate(players)}
    if len(index) != len(players):
        raise RatingError(f"players {list(players)!r} name someone twice")
    if anchor not in index:
        raise RatingError(f"anchor {anchor!r} is not one of the players {list(players)!r}")
    if not prior >= 0:  # (NaN too)
        raise RatingError(f"prior must be a number of virtual draws of at least 0, got {prior!r}")
    games = np.zeros(len(players), dtype=np.int64)
    # Each pairing once: (i, j, games, i's score).
    pairings: list[tuple[int, int, float, float]] = []
    for match in matches:
        for name in (match.first, match.second):
            if name not in index:
                raise RatingError(f"{match!r}: {name!r} is not one of the players")
        if match.first == match.second:
            raise RatingError(f"{match!r}: a player against itself")
        counts = (match.wins, match.draws, match.losses)
        if not all(is_whole(n) and n >= 0 for n in counts):
            raise RatingError(f"{match!r}: wins, draws and losses must be whole numbers >= 0")
        i, j = index[match.first], index[match.second]
        games[[i, j]] += match.games
        pairings.append((i, j, match.games, match.score))
    if prior:
        pairings += [(i, i + 1, prior, prior / 2) for i in range(len(players) - 1)]
    apart = _unlinked(len(players), pairings, index[anchor])
    if apart:
        raise RatingError(
            f"no games link {[players[k] for k in apart]!r} to the anchor {anchor!r}: "
            "give a prior above 0"
        )
    free = [i for i in range(len(players)) if i != index[anchor]]
    theta = _maximise(len(players), free, pairings)
    if theta is None:
        raise RatingError(
            "ratings do not converge: some players won, or lost, every game against the "
            f"rest{_extremes(players, pairings)}; give a prior above 0"
        )
    covariance = np.linalg.inv(_information(len(players), theta, pairings)[np.ix_(free, free)])
    margin = np.zeros(len(players))
    margin[free] = Z95 * PER_LOG_ODDS * np.sqrt(np.diag(covariance))
    elo = at + PER_LOG_ODDS * (theta - theta[index[anchor]])
    return [
        Rating(name, float(elo[i]), float(margin[i]), int(games[i]))
        for i, name in enumerate(players)
    ]


def _probabilities(theta: np.ndarray, pairings) -> np.ndarray:
    i, j = (np.array([p[k] for p in pairings], dtype=np.int64) for k in (0, 1))
    return 1 / (1 + np.exp(theta[j] - theta[i]))


def _log_likelihood(theta: np.ndarray, pairings) -> float:
    p = _probabilities(theta, pairings)
    n, s = (np.array([q[k] for q in pairings], dtype=float) for k in (2, 3))
    # A result given no chance is -inf (a bad step); np.where computes 0 * -inf too.
    with np.errstate(divide="ignore", invalid="ignore"):
        wins = np.where(s > 0, s * np.log(p), 0.0)
        losses = np.where(n > s, (n - s) * np.log1p(-p), 0.0)
    return float(np.sum(wins + losses))


def _information(size: int, theta: np.ndarray, pairings) -> np.ndarray:
    """The Fisher information: minus the log-likelihood's second derivatives."""
    p = _probabilities(theta, pairings)
    information = np.zeros((size, size))
    for (i, j, n, _), pk in zip(pairings, p, strict=True):
        w = n * pk * (1 - pk)
        information[i, i] += w
        information[j, j] += w
        information[i, j] -= w
        information[j, i] -= w
    return information


def _gradient(size: int, theta: np.ndarray, pairings) -> np.ndarray:
    p = _probabilities(theta, pairings)
    gradient = np.zeros(size)
    for (i, j, n, s), pk in zip(pairings, p, strict=True):
        gradient[i] += s - n * pk
        gradient[j] -= s - n * pk
    return gradient


def _maximise(size: int, free: list[int], pairings) -> np.ndarray | None:
    """The log-odds strengths (the anchor's 0) of most likelihood, or ``None`` when some
    run off to infinity: Newton's method, each step halved until the likelihood grows,
    as a step from far off may overshoot."""
    theta = np.zeros(size)
    for _ in range(200):
        information = _information(size, theta, pairings)[np.ix_(free, free)]
        try:
            step = np.linalg.solve(information, _gradient(size, theta, pairings)[free])
        except np.linalg.LinAlgError:  # a win certain to float precision: a rating at infinity
            return None
        if np.max(np.abs(step)) < _CONVERGED:
            theta[free] += step
            return theta
        now = _log_likelihood(theta, pairings)
        for _ in range(60):
            trial = theta.copy()
            trial[free] += step
            if _log_likelihood(trial, pairings) >= now:
                theta = trial
                break
            step /= 2
        else:
            return None  # no step up: lost in the float precision of a runaway rating
    return None


def _unlinked(size: int, pairings, anchor: int) -> list[int]:
    """The players no games link to the anchor."""
    linked, grew = {anchor}, True
    while grew:
        before = len(linked)
        linked |= {k for i, j, n, _ in pairings if n and {i, j} & linked for k in (i, j)}
        grew = len(linked) > before
    return [k for k in range(size) if k not in linked]


def _extremes(players: Sequence[str], pairings) -> str:
    """`` (NAMES won or lost every game they played)``, when some did."""
    points = np.zeros(len(players))
    played = np.zeros(len(players))
    for i, j, n, s in pairings:
        points[[i, j]] += (s, n - s)
        played[[i, j]] += n
    names = [name for k, name in enumerate(players) if played[k] and points[k] in (0, played[k])]
    return f" ({', '.join(names)} won or lost every game they played)" if names else ""

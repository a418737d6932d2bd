"""``bookgen.play.ratings``: Bradley-Terry ratings against results whose fit is known in
closed form."""

import math
from itertools import pairwise

import pytest

from bookgen.play.ratings import PER_LOG_ODDS, Z95, Match, RatingError, expected, fit
from solver import C4Error


def gaps(ratings):
    return [round(b.elo - a.elo, 2) for a, b in pairwise(ratings)]


def test_a_75_percent_score_is_190_85_elo():
    assert round(400 * math.log10(3), 2) == 190.85
    assert expected(400 * math.log10(3)) == pytest.approx(0.75)
    weak, strong = fit(["weak", "strong"], [Match("strong", "weak", 75, 0, 25)], "strong", 2500, 0)
    assert (strong.elo, strong.margin, strong.games) == (2500, 0, 100)
    assert round(weak.elo, 2) == round(2500 - 190.85, 2)
    # The Fisher information of 100 games at p = 3/4 is 100 * 3/16 in log-odds.
    assert weak.margin == pytest.approx(Z95 * PER_LOG_ODDS / math.sqrt(100 * 3 / 16))
    assert round(weak.margin, 1) == 78.6
    assert weak.games == 100


def test_a_draw_is_half_a_win_for_each_side():
    drawn = fit(["a", "b"], [Match("a", "b", 50, 50, 0)], "a", 0, 0)  # a scores 75%
    assert gaps(drawn) == [-190.85]
    assert fit(["a", "b"], [Match("a", "b", 0, 10, 0)], "a", 0, 0)[1].elo == pytest.approx(0)


def test_three_players_whose_results_fit_the_model_exactly():
    # 75%, 75% and 90% (odds 3, 3 and 9): the results are their own expectation, so the
    # maximum likelihood puts the players exactly 190.85 apart, wherever the anchor is.
    matches = [
        Match("b", "a", 30, 0, 10),
        Match("c", "b", 20, 5, 5),  # 22.5 of 30 points: the draws count half
        Match("a", "c", 4, 0, 36),
    ]
    ratings = fit(["a", "b", "c"], matches, "c", 2500, 0)
    assert gaps(ratings) == [190.85, 190.85]
    assert ratings[2].elo == 2500
    assert [r.games for r in ratings] == [80, 70, 70]
    assert ratings[0].margin > ratings[1].margin > ratings[2].margin == 0
    # The order of the matches and of a match's sides changes nothing.
    flipped = [Match(m.second, m.first, m.losses, m.draws, m.wins) for m in reversed(matches)]
    assert gaps(fit(["a", "b", "c"], flipped, "c", 2500, 0)) == [190.85, 190.85]


def test_an_unbeaten_player_is_finite_with_the_prior():
    with pytest.raises(RatingError, match=r"do not converge.*\(a, b won or lost every game"):
        fit(["a", "b"], [Match("b", "a", 10, 0, 0)], "b", 2500, 0)
    # One virtual draw: b scores 10.5 of 11, odds 21.
    a, b = fit(["a", "b"], [Match("b", "a", 10, 0, 0)], "b", 2500)
    assert round(b.elo - a.elo, 2) == round(400 * math.log10(21), 2) == 528.89
    assert (a.games, b.games) == (10, 10)  # the virtual draw is not a game
    assert 0 < a.margin < math.inf


def test_the_prior_links_neighbours_only():
    # a-b and c-d play; nothing links them but the virtual draw between b and c.
    matches = [Match("a", "b", 5, 0, 5), Match("c", "d", 5, 0, 5)]
    ratings = fit(["a", "b", "c", "d"], matches, "d", 1000)
    assert [round(r.elo, 6) for r in ratings] == [1000] * 4
    with pytest.raises(RatingError, match=r"no games link \['a', 'b'\] to the anchor 'd'"):
        fit(["a", "b", "c", "d"], matches, "d", 1000, 0)


@pytest.mark.parametrize(
    "players, matches, anchor, prior, message",
    [
        (["a", "b"], [Match("a", "x", 1, 0, 0)], "a", 1, r"'x' is not one of the players"),
        (["a", "b"], [Match("a", "a", 1, 0, 0)], "a", 1, r"a player against itself"),
        (["a", "b"], [Match("a", "b", -1, 0, 0)], "a", 1, r"whole numbers >= 0"),
        (["a", "b"], [Match("a", "b", 1.5, 0, 0)], "a", 1, r"whole numbers >= 0"),  # type: ignore[arg-type]
        (["a", "b"], [], "c", 1, r"anchor 'c' is not one of the players \['a', 'b'\]"),
        (["a", "a"], [], "a", 1, r"name someone twice"),
        (["a", "b"], [], "a", -1, r"prior must be .* got -1"),
        (["a", "b"], [], "a", math.nan, r"prior must be .* got nan"),
    ],
)
def test_bad_input_is_named(players, matches, anchor, prior, message):
    with pytest.raises(RatingError, match=message):
        fit(players, matches, anchor, 0, prior)
    assert issubclass(RatingError, C4Error) and issubclass(RatingError, ValueError)

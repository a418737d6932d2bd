"""``bookgen.play.levels``: the level table and the near-equal choice."""

import itertools
import random
import re
from pathlib import Path

import pytest

from bookgen.play.levels import DEFAULT_LEVEL, LEVELS, LevelError, get_level, pick_near_best
from bookgen.play.ratings import expected
from solver import C4Error


def test_levels_go_from_beginner_to_perfect():
    assert list(LEVELS) == ["beginner", "casual", "club", "expert", "perfect"]
    assert DEFAULT_LEVEL == "perfect"
    evaluation = [LEVELS[name] for name in ("beginner", "casual", "club")]
    # Each sees further and accepts less than the one below.
    assert [lv.depth for lv in evaluation] == sorted(lv.depth for lv in evaluation)
    assert [lv.margin for lv in evaluation] == sorted(
        (lv.margin for lv in evaluation), reverse=True
    )
    assert LEVELS["expert"].nodes and LEVELS["expert"].depth is None
    assert (LEVELS["perfect"].nodes, LEVELS["perfect"].depth) == (None, None)
    # Only perfect play reads the book: with it every level plays its first plies perfectly.
    assert [name for name, level in LEVELS.items() if level.reads_book] == ["perfect"]


def test_get_level():
    assert get_level("club") is LEVELS["club"]
    with pytest.raises(LevelError, match=r"unknown level 'Club': choose one of beginner, "):
        get_level("Club")
    assert issubclass(LevelError, C4Error) and issubclass(LevelError, ValueError)


def test_pick_near_best_stays_within_the_margin():
    values = {1: -50, 2: 10, 3: 30, 4: 35, 5: 28, 6: -9000, 7: 0}
    rng = random.Random(4)
    picks = {pick_near_best(values, 8, rng) for _ in range(200)}
    assert picks == {3, 4, 5}
    assert {pick_near_best(values, 0, rng) for _ in range(20)} == {4}


def test_pick_near_best_is_reproducible():
    values = dict.fromkeys(range(1, 8), 0)
    first = [pick_near_best(values, 5, random.Random(9)) for _ in range(3)]
    assert first == [pick_near_best(values, 5, random.Random(9)) for _ in range(3)]


def test_each_level_says_how_it_plays_from_its_numbers():
    assert LEVELS["casual"].about == (
        "looks 4 plies ahead with the evaluation, then picks at "
        "random among the moves within 25 points of the best"
    )
    assert LEVELS["expert"].about == (
        "the anytime search with 30,000 nodes a move, without the book"
    )
    assert LEVELS["perfect"].about == "the book, then the exact solver"


def test_levels_are_rated_evenly_from_beginner_to_perfect():
    assert LEVELS["club"].rated == "club (Elo 2070)"
    ratings = [level.elo for level in LEVELS.values()]
    gaps = [high - low for low, high in itertools.pairwise(ratings)]
    assert ratings[-1] == 2500  # perfect play, the anchor
    # Evenly spaced: each step up scores 70-80% against the level below.
    assert all(0.70 < expected(gap) < 0.80 for gap in gaps), gaps


def test_docs_ai_md_tables_the_levels_in_their_own_words():
    text = (Path(__file__).resolve().parent.parent / "docs" / "ai.md").read_text()
    rows = re.findall(
        r"^\| (\w+)(?: \(default\))? \| (.+) \|$",  # the header first
        section(text, "Levels"),
        re.MULTILINE,
    )
    assert dict(rows[1:]) == {name: level.about for name, level in LEVELS.items()}


def test_docs_ai_md_rates_the_levels_as_they_are_within_50_points():
    text = (Path(__file__).resolve().parent.parent / "docs" / "ai.md").read_text()
    rows = re.findall(
        r"^\| (\w+) \| (\d+) \| (±\d+|anchor) \| (\d+) \|$", section(text, "Ratings"), re.MULTILINE
    )
    assert {name: int(elo) for name, elo, _, _ in rows} == {
        name: level.elo for name, level in LEVELS.items()
    }
    intervals = {name: interval for name, _, interval, _ in rows}
    assert intervals.pop("perfect") == "anchor"
    assert all(int(interval[1:]) <= 50 for interval in intervals.values())  # issue 53's target


def section(text: str, heading: str) -> str:
    """The text under ``## heading``, to the next heading of that rank."""
    return text.split(f"\n## {heading}\n")[1].split("\n## ", maxsplit=1)[0]

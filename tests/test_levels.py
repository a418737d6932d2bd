"""``bookgen.play.levels``: the level table and the near-equal choice."""

import random
import re
from pathlib import Path

import pytest

from bookgen.play.levels import DEFAULT_LEVEL, LEVELS, LevelError, get_level, pick_near_best
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
    assert LEVELS["expert"].about == "the book, then the anytime search with 100,000 nodes a move"


def test_docs_ai_md_tables_the_levels_in_their_own_words():
    text = (Path(__file__).resolve().parent.parent / "docs" / "ai.md").read_text()
    rows = re.findall(
        r"^\| (\w+)(?: \(default\))? \| (.+) \|$",  # the header first
        text.split("## Levels")[1],
        re.MULTILINE,
    )
    assert dict(rows[1:]) == {name: level.about for name, level in LEVELS.items()}

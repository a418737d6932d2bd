"""``bookgen.web.answer``: the explorer's answers as JSON, and a score in words."""

import orjson

from bookgen.web.answer import MoveScore, column_json, dumps, finished_json, score_words
from solver import Board, Position


def test_scores_in_words():
    assert score_words(0, 7) == "draw"
    assert score_words(1, 41) == "win in 1"  # the last cell wins
    assert score_words(-1, 40) == "loss in 1"
    assert score_words(None, 3) is None


def test_answers_are_compact_json():
    assert dumps({"a": [1, None]}) == b'{"a":[1,null]}'
    finished = finished_json(Position.from_moves("4455667"))
    assert orjson.loads(dumps(finished)) == finished


def test_a_column_says_its_score_and_whether_it_is_best():
    shown = column_json(MoveScore(4, 2, "book", False, 3), 7, True, Board())
    assert (shown["score"], shown["best"]) == (2, True)
    full = column_json(MoveScore(1, None, None, True), 7, False, Board())
    assert (full["score"], full["best"]) == (None, False)

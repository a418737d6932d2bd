"""``bookgen.book.format.scores``: packed move scores, entry codes, best-move text."""

from bookgen.book.format.scores import (
    BEST_BITS,
    BEST_TEXT,
    FULL_COLUMN,
    FULL_COLUMN_SCORE,
    SCORE_OFFSET,
    best_of,
    best_text,
    entry_code,
    pack_scores,
    sign,
    unpack_scores,
)


def test_sign_and_best_of():
    assert [sign(s) for s in (-3, 0, 5)] == [-1, 0, 1]
    assert best_of([None, 2, -1, 2, None, 0, 1]) == (2, "24")


def test_packed_scores_round_trip_and_never_meet_a_full_column():
    scores = [None, -21, 0, 21, None, -1, 1]
    packed = pack_scores(scores)
    assert packed == bytes([0, 43, 64, 85, 0, 63, 65])
    assert unpack_scores(packed) == scores and unpack_scores(None) is None
    # No score of any board (64 cells at most) packs to the full column's byte, or is the
    # compiled lookups' marker.
    top = (64 + 1) // 2
    assert FULL_COLUMN not in {s + SCORE_OFFSET for s in range(-top, top + 1)}
    assert -top > FULL_COLUMN_SCORE


def test_entry_codes_and_best_text():
    assert entry_code(-2, 0b110011) == (-2 + SCORE_OFFSET) << 7 | 0b110011 == 7987
    assert entry_code(0, 1, width=9) == 64 << 9 | 1
    assert best_text(0b1010) == "24" and BEST_BITS["24"] == 0b1010
    assert BEST_TEXT[0] == "" and BEST_TEXT[-1] == "123456789"

"""``bookgen.book.read.family``: a parent's move scores read from its children's scores.

``Family`` (one position, plain Python) and ``compiled_family.derive_many``
(compiled, many at once) must agree on every position; the expected scores come from a plain
minimax on a board of width 9 (two bytes of best-move bits), and from the
shipped books' children.
"""

import random

import numpy as np
import pytest
from conftest import PLY10, SHIPPED, minimax, open_store

from bookgen import Book, CorruptBookError
from bookgen.book.format.implied import implied
from bookgen.book.format.scores import FULL_COLUMN, SCORE_OFFSET
from bookgen.book.format.segment import Segment
from bookgen.book.read.compiled_family import derive_many
from bookgen.book.read.family import Family
from solver import Board, Position
from solver.packed import moves_of_keys
from solver.position import random_position


def score_of(below: Segment):
    """A canonical key's score in ``below``, ``None`` if it lacks it: what ``Family`` reads."""
    return dict(zip(below.keys.tolist(), below.scores.tolist(), strict=True)).get


def both_ways(
    board: Board, parents: Segment, below: Segment, ply: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(packed, best)`` of the ``parents`` at ``ply``: from ``derive_many``, after checking
    that ``Family`` gives the same for each."""
    packed, best = derive_many(board, parents.keys, parents.scores, below.keys, below.scores, ply)
    family = Family(board, ply, score_of(below))
    for i, (key, own) in enumerate(
        zip(parents.keys.tolist(), parents.scores.tolist(), strict=True)
    ):
        assert family.packed(key, own) == (packed[i].tobytes(), int(best[i])), (ply, key)
    return packed, best


def whole_ply(path, ply: int) -> Segment:
    """A ply's keys and scores as stored: not through the reader, whose slices of a parent
    ply derive its move scores from the ply below (14 M children at the shipped ply 12)."""
    store = open_store(str(path))
    try:
        keys, scores, _ = store.entries_at(ply)
    finally:
        store.close()
    return Segment(keys, scores, None)


@pytest.mark.parametrize(
    "path, plies, sample",
    [(PLY10, range(9), None), (PLY10, [9], 20_000), (SHIPPED, [10, 11], 5_000)],
    ids=["ply10 book, plies 0-8 whole", "ply10 book, ply 9", "shipped book, plies 10-11"],
)
def test_one_position_at_a_time_equals_many_at_once(path, plies, sample):
    if not path.exists():
        pytest.skip(f"no {path.name}")
    with Book.open(str(path)) as book:
        for ply in plies:
            count = book.count_by_ply()[ply]
            rng = np.random.default_rng(ply)
            at = np.arange(count) if sample is None else rng.choice(count, sample, replace=False)
            at = np.sort(at)
            view, below = whole_ply(path, ply), whole_ply(path, ply + 1)
            parents = Segment(view.keys[at], view.scores[at], None)
            packed, _best = both_ways(book.board, parents, below, ply)
            # and both are what the reader answers, whole ply derived
            _, _, _, whole = book.slice_of(ply, 0, count)
            assert (packed == whole[at]).all()


def endgames(board: Board, ply: int, count: int, seed: int) -> list[Position]:
    """Distinct canonical unfinished positions at ``ply`` of random games on ``board``."""
    rng = random.Random(seed)
    found: dict[int, Position] = {}
    while len(found) < count:
        position = random_position(rng, ply, board)
        found.setdefault(position.canonical_key, position)
    return list(found.values())


def segment_of(positions: list[Position], scores: list[int]) -> Segment:
    keys = np.array([p.canonical_key for p in positions], np.uint64)
    order = np.argsort(keys)
    return Segment(keys[order], np.array(scores, np.int8)[order], None)


def test_a_wide_board_s_move_scores_are_minimax_s_with_two_bytes_of_best_moves():
    board = Board(9, 4)  # 36 cells: 9 columns, best-move bits past the eighth
    ply = board.cells - 6
    parents = endgames(board, ply, 40, seed=9)
    children = {}
    for parent in parents:
        for col in parent.legal_moves():
            if not parent.is_winning_move(col):
                child = parent.play(col)
                children.setdefault(child.canonical_key, child)
    above = segment_of(parents, [minimax(p) for p in parents])
    below = segment_of(list(children.values()), [minimax(c) for c in children.values()])
    packed, best = both_ways(board, above, below, ply)
    assert best.dtype == np.uint16 and (best > 255).any()  # column 9 is best somewhere
    keys = above.keys.tolist()
    for parent in parents:
        at = keys.index(parent.canonical_key)
        canonical = (
            parent
            if parent.canonical_key == parent.key
            else Position.from_moves(board.mirror_moves(parent.moves), board)
        )
        expected = bytes(
            FULL_COLUMN
            if not canonical.can_play(col)
            else SCORE_OFFSET + board.win_score(ply)
            if canonical.is_winning_move(col)
            else SCORE_OFFSET - minimax(canonical.play(col))
            for col in range(1, board.width + 1)
        )
        assert packed[at].tobytes() == expected
        top = max(expected)
        assert int(best[at]) == sum(1 << c for c, b in enumerate(expected) if b == top)


def test_a_damaged_family_is_refused_one_at_a_time_and_many_at_once():
    board = Board()
    parents = endgames(board, 30, 10, seed=3)
    children = {
        parent.play(col).canonical_key: parent.play(col)
        for parent in parents
        for col in parent.legal_moves()
        if not parent.is_winning_move(col)
    }
    scores = [minimax(p) for p in parents]
    child_scores = [minimax(c) for c in children.values()]
    whole = segment_of(list(children.values()), child_scores)
    # A child gone, one whose score its stones do not give (``Family`` reads no other).
    gone = int(np.argmin(implied(whole.keys, 31, board, best=False).score_known))
    keep = np.arange(len(whole.keys)) != gone
    lacking = Segment(whole.keys[keep], whole.scores[keep], None)
    off = segment_of(parents, [s + 1 for s in scores])  # no move scores these
    for parent_segment, below, why in [
        (segment_of(parents, scores), lacking, "ply 31 lacks a child of a ply-30 position"),
        (off, whole, "a ply-30 position's score is no move's score"),
    ]:
        args = (board, parent_segment.keys, parent_segment.scores, below.keys, below.scores, 30)
        with pytest.raises(CorruptBookError, match=why):
            derive_many(*args, "some.db")
        family = Family(board, 30, score_of(below), "some.db", lambda _key: False)
        pairs = zip(parent_segment.keys.tolist(), parent_segment.scores.tolist(), strict=True)
        with pytest.raises(CorruptBookError, match=why):
            [family.packed(key, own) for key, own in pairs]


def test_a_child_whose_stones_give_its_score_is_not_looked_up():
    """The ply-10 book's ply 9: the same move scores with a lookup of only the children
    whose stones do not say their score."""
    if not PLY10.exists():
        pytest.skip(f"no {PLY10.name}")
    board = Board()
    parents, below = whole_ply(PLY10, 9), whole_ply(PLY10, 10)
    said = implied(below.keys, 10, board, best=False)
    unknown = set(below.keys[~said.score_known].tolist())
    looked_up: list[int] = []
    read = score_of(below)

    def counted(key: int) -> int | None:
        looked_up.append(key)
        return read(key)

    at = np.random.default_rng(9).choice(len(parents.keys), 3_000, replace=False)
    packed, best = derive_many(
        board, parents.keys[at], parents.scores[at], below.keys, below.scores, 9
    )
    family = Family(board, 9, counted, at_hand=lambda _key: False)  # no block read yet
    pairs = zip(parents.keys[at].tolist(), parents.scores[at].tolist(), strict=True)
    for i, (key, own) in enumerate(pairs):
        assert family.packed(key, own) == (packed[i].tobytes(), int(best[i])), key
    assert set(looked_up) <= unknown  # never a child whose stones say its score
    children = int((packed != FULL_COLUMN).sum())
    assert len(looked_up) < 0.8 * children  # 0.75 here, (len(looked_up), children)


def test_a_child_at_hand_is_looked_up_as_ever():
    """A child whose lookup reads no block (``at_hand``) is looked up, whatever its stones
    say: a cached block answers faster than the stones are read."""
    if not PLY10.exists():
        pytest.skip(f"no {PLY10.name}")
    parents, below = whole_ply(PLY10, 9), whole_ply(PLY10, 10)
    looked_up: list[int] = []
    read = score_of(below)

    def counted(key: int) -> int | None:
        looked_up.append(key)
        return read(key)

    for at_hand in (None, lambda _key: True):
        looked_up.clear()
        family = Family(Board(), 9, counted, at_hand=at_hand)
        for key, own in zip(
            parents.keys[:500].tolist(), parents.scores[:500].tolist(), strict=True
        ):
            family.packed(key, own)
        moves = sum(
            len(Position.from_moves(m).legal_moves()) for m in moves_of_keys(parents.keys[:500], "")
        )
        assert len(looked_up) == moves  # every child, the winning moves' too (then missed)


def test_the_first_best_move_in_an_order_is_the_packed_one():
    """``first_best`` reads children in the order given until one is best: the first
    column of that order among ``packed``'s best moves, whatever the order."""
    if not PLY10.exists():
        pytest.skip(f"no {PLY10.name}")
    parents, below = whole_ply(PLY10, 9), whole_ply(PLY10, 10)
    family = Family(Board(), 9, score_of(below), at_hand=lambda _key: False)
    rng = random.Random(9)
    for key, own in zip(parents.keys[:2000].tolist(), parents.scores[:2000].tolist(), strict=True):
        _, best = family.packed(key, own)
        order = rng.sample(range(7), 7)
        assert family.first_best(key, own, order) == min(
            (col for col in range(7) if best >> col & 1), key=order.index
        )

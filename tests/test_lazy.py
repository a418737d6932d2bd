"""``book.read.lazy``: sealed plies read a block at a time, through a bounded cache."""

import random

import numpy as np
import pytest

from bookgen import Book
from bookgen.book.format.implied import implied
from bookgen.book.read.lazy import CACHE_BLOCKS, BlockCache
from solver import Position

ROOT = "4444"


def test_the_cache_keeps_the_last_blocks_used():
    cache = BlockCache(2)
    assert len(cache) == 0 and cache.capacity == 2
    for number in range(3):
        cache.put(14, number, f"block {number}")
    assert cache.get(14, 0) is None and cache.get(14, 1) == "block 1"
    cache.put(13, 0, "another ply's")
    assert cache.get(14, 2) is None and cache.get(14, 1) == "block 1" and len(cache) == 2
    for bad in (0, -1, 1.5, True, "400"):
        with pytest.raises(ValueError, match=f"cache_blocks={bad!r}: give a whole number"):
            BlockCache(bad)


def _ply_14_positions(count: int) -> list[Position]:
    """Random positions of ply 14 below ``ROOT``: mostly in blocks of their own."""
    rng = random.Random(14)
    found: list[Position] = []
    while len(found) < count:
        position = Position.from_moves(ROOT)
        while position.ply < 14 and not position.is_game_over:
            position = position.play(rng.choice(position.legal_moves()))
        if not position.is_game_over:
            found.append(position)
    return found


@pytest.mark.parametrize("blocks", [3, CACHE_BLOCKS + 100])
def test_a_book_keeps_as_many_blocks_as_asked(shipped_book, blocks):
    # An empty cache is falsy: the reader once took it for none and kept 400 blocks whatever
    # cache_blocks said.
    with Book.open(shipped_book.db, cache_blocks=blocks) as book:
        cache = book._plies._plies[14]._cache  # (the cache the book's plies share)
        assert cache.capacity == blocks
        for position in _ply_14_positions(CACHE_BLOCKS + 100):
            assert book.get(position) is not None
        held = len(cache)
    assert held == blocks if blocks < CACHE_BLOCKS else held > CACHE_BLOCKS


def _played_to(ply: int, rng: random.Random) -> Position:
    """A position of ``ply`` below ``ROOT``, played at random without a winning move."""
    position = Position.from_moves(ROOT)
    while position.ply < ply:
        moves = [c for c in position.legal_moves() if not position.is_winning_move(c)]
        position = position.play(rng.choice(moves))
    return position


def test_a_parent_s_first_touch_reads_no_block_for_a_child_its_stones_settle(shipped_book):
    """At a parent ply, a first touch reads the position's block and the blocks of the
    children whose stones do not give their scores (``format.implied``): no other."""
    board = shipped_book.board
    rng = random.Random(13)
    spared = 0
    for _ in range(30):
        position = _played_to(13, rng)
        children = [position.play(c) for c in position.legal_moves()]
        children = [c for c in children if not c.is_game_over]
        keys = np.array(sorted({c.canonical_key for c in children}), np.uint64)
        unsettled = keys[~implied(keys, 14, board, best=False).score_known].tolist()
        with Book.open(shipped_book.db) as book:
            ply_14 = book._plies._plies[14]
            entry = book.get(position)
            assert entry is not None and entry == shipped_book.get(position)
            read = {number for ply, number in ply_14._cache._blocks if ply == 14}
        assert read == {ply_14.sealed.block_of(key) for key in unsettled}
        spared += len(keys) > len(unsettled)
    assert spared >= 5  # positions with a child settled by its stones


def test_a_best_move_reads_fewer_blocks_than_the_whole_entry(shipped_book):
    """``best_move`` at a parent ply reads the children in the order preferred until one
    is best: never more blocks than ``get``, and fewer over a sample."""
    rng = random.Random(12)
    fewer = 0
    for _ in range(20):
        position = _played_to(12, rng)
        read = []
        for ask in ("best_move", "get"):
            with Book.open(shipped_book.db) as book:
                answer = getattr(book, ask)(position)
                read.append(len(book._plies._plies[13]._cache))
            if ask == "best_move":
                assert answer == shipped_book.best_move(position)
        assert read[0] <= read[1]
        fewer += read[0] < read[1]
    assert fewer >= 10

"""``book.read.lazy``: sealed plies read a block at a time, through a bounded cache."""

import random

import pytest

from bookgen import Book
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

"""The frontier's missing keys, streamed in key order."""

import numpy as np
from conftest import SMALL_PLY, SMALL_ROOT

from bookgen.builder.listing import keys_by_ply
from solver import Position


def test_the_frontier_streams_in_key_order_chunks(small_book_path):
    from bookgen.book.write.store import BookStore
    from bookgen.builder.missing import MissingKeys

    root = Position.from_moves(SMALL_ROOT)
    levels = keys_by_ply(root, 13)
    store = BookStore(small_book_path, SMALL_ROOT, root.canonical_key, readonly=True)
    try:
        stream = MissingKeys(store, root, levels, SMALL_PLY, chunk=100)
        assert len(stream.take(10)) == 0 and stream.done  # the ply is all stored
        assert (stream.total, stream.stored) == (574, 574)
        stream = MissingKeys(store, root, levels, 13, chunk=100)
        first = stream.take(10)
        assert not stream.done and 0 < stream.total < 1762  # listed only so far
        rest = np.concatenate([stream.take(300) for _ in range(7)])
        assert stream.done and np.array_equal(np.concatenate([first, rest]), levels[13])
    finally:
        store.close()

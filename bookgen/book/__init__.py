"""A book: ``format`` (what is on disk), ``write`` (the builder's store, merge, pack,
upgrade) and ``read`` (``Book``).  Arrows point one way: ``write`` and ``read`` both use
``format``, and neither uses the other."""

"""The write path: the builder's store, its inserts and meta, the write lock, merge, pack and
upgrade.  Uses ``format``; never ``read``."""

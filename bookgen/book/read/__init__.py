"""The read path: ``Book`` and its lookups, a parent's move scores from its children, the
compiled lookups, and streaming every entry.  Uses ``format``; never ``write``."""

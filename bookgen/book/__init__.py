"""A book on disk: its tables and errors (``schema``), opening and writing it
(``store``), the read-only ``reader.Book``, and checking or upgrading a whole book."""

"""A book on disk: its tables and errors (``schema``), opening and writing it
(``store``), one writer at a time (``lock``), the read-only ``reader.Book``, and
checking or upgrading a whole book."""

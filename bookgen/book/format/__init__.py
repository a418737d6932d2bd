"""The book on disk, shared by the write and read paths: tables, segments, rows, checksums,
errors, score packing, and opening a book's database.  Imports nothing from ``write`` or
``read``."""

"""The search on boards past 64 bits (64 < width x (height + 1) <= 128: 8x8, 9x7, 9x9, 5x12...).

numba has no 128-bit integer, so every bitboard here is a pair of uint64
words ``(low, high)``: bit ``i`` of the layout (``bitboard``) is bit ``i`` of
``low`` below 64, bit ``i - 64`` of ``high`` above.  The kernels are a set of
their own (``_search``, ``_bounds``, ``_table``, ``_bits``, ``_words``, the
AI's ``_evaluate``, and the listing's keys: ``packed``, ``pairs``), so that the
one-word kernels and their speed stay as they are; ``engine.Solver``,
``anytime.AnytimeSearch`` and ``bookgen.builder.listing`` pick them for a board
whose ``is_wide`` is true.  docs/solver.md says what they cost.
"""

from .._kernel_cache import SOLVER, drop_stale, fingerprint

# Here, before any kernel of the package loads: they inline the one-word modules'
# helpers too (the driver, the table's work, popcount).
drop_stale(SOLVER / "wide", fingerprint(SOLVER, SOLVER / "wide"))

"""A ``Board`` as numba sees it: a type per size, whose facts are compiled-in constants.

Every kernel takes the board as its first argument.  numba compiles one
specialisation of a kernel per argument types, so per board size, and
``cache=True`` keeps each one on disk: a 6x5 build loads only its 6x5
machine code.  The board's value carries nothing at run time; reading
``board.h1`` in a kernel emits the constant itself, so LLVM folds and
unrolls exactly as it would with module constants (7x6 node counts and
times are unchanged: docs/solver.md).

Attributes, as kernels read them (uint64 for bit masks and shift counts,
int64 for counts), all taken from ``bitboard.Board``::

    width height cells key_bits column_bits max_score min_score   int64
    width_literal                   the width as a literal (a tuple's length)
    h h1 h2 bottom all_cells column column_cells top_rows
    under_top_rows centre near_centre                             uint64
    column_order                    int64 array: centre first
    ordered_column_masks            uint64 array: column_masks in column_order
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import types
from numba.core.typing.templates import AttributeTemplate
from numba.extending import (
    NativeValue,
    infer_getattr,
    lower_getattr,
    models,
    register_model,
    typeof_impl,
    unbox,
)

from ._kernel_cache import SOLVER, drop_stale, fingerprint
from .bitboard import Board, numba_types

drop_stale(SOLVER, fingerprint(SOLVER))

_INT = types.int64
_BITS = types.uint64
_INTS = types.Array(types.int64, 1, "C", readonly=True)
_MASKS = types.Array(types.uint64, 1, "C", readonly=True)


@cache
def _constants(board: Board) -> dict[str, tuple[types.Type, object]]:
    """Each attribute's numba type and value, made once per board."""
    return {
        "width": (_INT, board.width),
        "width_literal": (types.literal(board.width), board.width),  # for static tuple sizes
        "height": (_INT, board.height),
        "cells": (_INT, board.cells),
        "key_bits": (_INT, board.key_bits),
        "column_bits": (_INT, board.column_bits),
        "max_score": (_INT, board.max_score),
        "min_score": (_INT, board.min_score),
        "h": (_BITS, board.height),
        "h1": (_BITS, board.h1),
        "h2": (_BITS, board.h1 + 1),
        "bottom": (_BITS, board.bottom),
        "all_cells": (_BITS, board.all_cells),
        "column": (_BITS, (1 << board.h1) - 1),  # one column's cells and sentinel
        "column_cells": (_BITS, (1 << board.height) - 1),  # one column's cells
        "top_rows": (_BITS, board.top_rows),
        "under_top_rows": (_BITS, board.under_top_rows),
        "centre": (_BITS, _columns(board, 0, 1)),  # the middle column (two on even widths)
        "near_centre": (_BITS, _columns(board, 2, 3)),  # the columns beside those
        "column_order": (_INTS, np.array(board.column_order, dtype=np.int64)),
        "ordered_column_masks": (
            _MASKS,
            np.array([board.column_masks[c] for c in board.column_order], dtype=np.uint64),
        ),
    }


def _columns(board: Board, low: int, high: int) -> int:
    """The cells of the columns whose doubled distance from the middle is in [low, high]."""
    return sum(
        mask
        for col, mask in enumerate(board.column_masks)
        if low <= abs(2 * col - (board.width - 1)) <= high
    )


class BoardType(types.Type):
    """The numba type of one board size; equal sizes are one type."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        super().__init__(name=f"Board({width}x{height})")

    @property
    def constants(self) -> dict[str, tuple[types.Type, object]]:
        return _constants(Board(self.width, self.height))


register_model(BoardType)(models.OpaqueModel)
numba_types["board"] = BoardType  # what ``Board._numba_type_`` makes


@typeof_impl.register(Board)
def _typeof_board(board, _context):
    return board._numba_type_


@unbox(BoardType)
def _unbox_board(_typ, _obj, context):
    # Nothing to read: every fact is a constant of the type.
    return NativeValue(context.context.get_constant_null(types.voidptr))


@infer_getattr
class _BoardAttributes(AttributeTemplate):
    key = BoardType

    def generic_resolve(self, typ, attr):
        found = typ.constants.get(attr)
        return None if found is None else found[0]


def _lower(name: str) -> None:
    @lower_getattr(BoardType, name)
    def constant(context, builder, typ, _value):
        kind, value = typ.constants[name]
        if isinstance(kind, types.Array):
            return context.make_constant_array(builder, kind, value)
        if isinstance(kind, types.Literal):
            return context.get_constant(kind.literal_type, value)
        return context.get_constant(kind, value)


for _name in _constants(Board()):
    _lower(_name)


def compiled_for(kernel, *args):
    """``kernel``'s machine code for exactly these arguments' types, to call directly.

    numba's dispatcher types every argument of every call (a board through its
    ``_numba_type_``): 0.47 us a call against 0.08 for the compiled function
    itself.  For a caller whose argument types never change (a book's lookups
    in one ply), that is most of a lookup.  The kernel runs once here, to
    compile or load it; any other numba than this one gives the kernel back.
    """
    kernel(*args)
    try:
        return kernel.overloads[tuple(kernel.typeof_pyval(arg) for arg in args)].entry_point
    except (AttributeError, KeyError, TypeError):
        return kernel

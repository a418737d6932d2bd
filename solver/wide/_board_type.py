"""A wide ``Board`` as numba sees it: a type per size, facts compiled in as constants.

The twin of ``solver._board_type`` for boards past 64 bits.  A fact that is a
set of cells is a constant pair of uint64 words ``(low, high)`` (``_words``);
one column (at most 32 bits) and shift counts stay single words.  Attributes::

    width height cells key_bits column_bits max_score min_score   int64
    h h1 h2 column column_cells                                   uint64
    bottom all_cells top_rows under_top_rows centre near_centre  (uint64, uint64)
    column_order                    int64 array: centre first
    ordered_low, ordered_high       uint64 arrays: column_masks in column_order, by word
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
    unbox,
)

from .. import _board_type  # registers typeof(Board), which names this type
from ..bitboard import Board, numba_types
from ._words import WORD, words

_INT = types.int64
_BITS = types.uint64
_PAIR = types.UniTuple(types.uint64, 2)
_INTS = types.Array(types.int64, 1, "C", readonly=True)
_MASKS = types.Array(types.uint64, 1, "C", readonly=True)


@cache
def _constants(board: Board) -> dict[str, tuple[types.Type, object]]:
    """Each attribute's numba type and value, made once per board."""
    ordered = [board.column_masks[c] for c in board.column_order]
    return {
        "width": (_INT, board.width),
        "height": (_INT, board.height),
        "cells": (_INT, board.cells),
        "key_bits": (_INT, board.key_bits),
        "column_bits": (_INT, board.column_bits),
        "max_score": (_INT, board.max_score),
        "min_score": (_INT, board.min_score),
        "h": (_BITS, board.height),
        "h1": (_BITS, board.h1),
        "h2": (_BITS, board.h1 + 1),
        "column": (_BITS, (1 << board.h1) - 1),  # one column's cells and sentinel
        "column_cells": (_BITS, (1 << board.height) - 1),
        "bottom": (_PAIR, words(board.bottom)),
        "all_cells": (_PAIR, words(board.all_cells)),
        "top_rows": (_PAIR, words(board.top_rows)),
        "under_top_rows": (_PAIR, words(board.under_top_rows)),  # the evaluation's
        "centre": (_PAIR, words(_board_type._columns(board, 0, 1))),
        "near_centre": (_PAIR, words(_board_type._columns(board, 2, 3))),
        "column_order": (_INTS, np.array(board.column_order, dtype=np.int64)),
        "ordered_low": (_MASKS, np.array([m & WORD for m in ordered], dtype=np.uint64)),
        "ordered_high": (_MASKS, np.array([m >> 64 for m in ordered], dtype=np.uint64)),
    }


class WideBoardType(types.Type):
    """The numba type of one wide board size; equal sizes are one type."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        super().__init__(name=f"WideBoard({width}x{height})")

    @property
    def constants(self) -> dict[str, tuple[types.Type, object]]:
        return _constants(Board(self.width, self.height))


register_model(WideBoardType)(models.OpaqueModel)
numba_types["wide_board"] = WideBoardType  # what ``Board._numba_type_`` makes of a wide board


@unbox(WideBoardType)
def _unbox_board(_typ, _obj, context):
    # Nothing to read: every fact is a constant of the type.
    return NativeValue(context.context.get_constant_null(types.voidptr))


@infer_getattr
class _BoardAttributes(AttributeTemplate):
    key = WideBoardType

    def generic_resolve(self, typ, attr):
        found = typ.constants.get(attr)
        return None if found is None else found[0]


def _lower(name: str) -> None:
    @lower_getattr(WideBoardType, name)
    def constant(context, builder, typ, _value):
        kind, value = typ.constants[name]
        if isinstance(kind, types.Array):
            return context.make_constant_array(builder, kind, value)
        return context.get_constant_generic(builder, kind, value)


for _name in _constants(Board(8, 8)):
    _lower(_name)

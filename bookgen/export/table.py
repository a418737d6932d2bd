"""The export's columns, shared by every format: their names, and a slice's values
as arrays or text.  ``docs/data.md`` documents them.

    ply, moves, cells, key, score, outcome, best_moves, move_1 .. move_W
"""

from __future__ import annotations

import hashlib
from importlib.metadata import PackageNotFoundError, version

import numpy as np

from solver.bitboard import Board

from ..book.format.database import sqlite_path
from ..book.format.scores import BEST_TEXT, FULL_COLUMN, SCORE_OFFSET
from ..book.read.scan import DIGIT, Slice

COLUMNS = ("ply", "moves", "cells", "key", "score", "outcome", "best_moves")
OUTCOMES = ("loss", "draw", "win")  # by the score's sign + 1


def move_columns(board: Board) -> list[str]:
    """One column a move: its score, empty for a full column."""
    return [f"move_{col + 1}" for col in range(board.width)]


def names(board: Board) -> list[str]:
    return [*COLUMNS, *move_columns(board)]


def moves_text(part: Slice) -> np.ndarray:
    """``(n, ply)`` ASCII: each position's move string."""
    return part.digits + np.uint8(DIGIT)


def outcome_index(part: Slice) -> np.ndarray:
    """Each position's outcome for the player to move, as an index into ``OUTCOMES``."""
    return np.sign(part.scores).astype(np.int64) + 1


def best_texts(board: Board) -> list[str]:
    """Best-move bits -> their columns as digits, ``"35"``."""
    return list(BEST_TEXT[: 1 << board.width])


def move_scores(part: Slice, col: int) -> tuple[np.ndarray, np.ndarray]:
    """Column ``col``'s move scores (int8) and where there is none (a full column, or a
    ply without move scores)."""
    if part.move_scores is None:
        return np.zeros(part.size, np.int8), np.ones(part.size, bool)
    packed = part.move_scores[:, col]
    return (packed.astype(np.int16) - SCORE_OFFSET).astype(np.int8), packed == FULL_COLUMN


def metadata(db: str, board: Board, root: str, mirrors: bool) -> dict[str, str]:
    """What a file says of where it comes from: its board first."""
    try:
        ours = version("c4book")
    except PackageNotFoundError:  # run from a source tree
        ours = "unknown"
    path = sqlite_path(db)
    return {
        "c4book.board": str(board),
        "c4book.version": ours,
        "c4book.book_sha256": "" if path is None else file_sha256(path),
        "c4book.root": root,
        "c4book.mirrors": "yes" if mirrors else "no",
    }


def file_sha256(path: str) -> str:
    """The book file's SHA-256, as ``sha256sum`` prints it."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()

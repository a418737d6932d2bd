"""A parent's move scores, read from its children's scores in the ply below, in plain Python.

A ply whose children the book holds whole stores no best moves: each move
scores minus its child's score; a move whose child the ply below lacks must
end the game (a four, or the last cell: a draw), else the book is damaged.
This is the plain-Python form of that rule (``solver.packed.move_rule`` is the
compiled one, which ``compiled_family`` runs over many positions at once).
``Family`` reads one position: its children's keys made with a few integer
operations, then each child's score looked up in the ply below (a bisect of
its keys, or of one block of a sealed ply).  A child whose block is not read
yet is first asked of its stones: where the player to move there wins at
once, or loses at once whatever it plays (as ``format.implied`` has it),
that is its score, and no block is read for it.  Packed move scores are as
``format.scores`` says.

What is not read is not checked: a book that lacks such a child, or (for
``first_best``, which stops at the first best move) whose later children
contradict the position's score, is refused only where a lookup reads them.
Every block is still checked against its CRC as it is read, so only a
writer's mistake could make such a book; ``c4book verify`` checks every
parent against all its children.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from solver.bitboard import Board

from ..format.errors import CorruptBookError
from ..format.scores import FULL_COLUMN, SCORE_OFFSET


def missing_child(db: str, ply: int) -> CorruptBookError:
    return CorruptBookError(
        f"{db!r}: ply {ply + 1} lacks a child of a ply-{ply} position, though both are complete"
    )


def no_best_move(db: str, ply: int) -> CorruptBookError:
    return CorruptBookError(
        f"{db!r}: a ply-{ply} position's score is no move's score from the ply-{ply + 1} scores"
    )


class Family:
    """One parent ply's positions' move scores, one position at a time, from the ply
    below (``score_of``: a canonical key's score there, ``None`` if it lacks the key):
    nothing derived ahead, nothing kept."""

    def __init__(
        self,
        board: Board,
        ply: int,
        score_of: Callable[[int], int | None],
        db: str = "",
        at_hand: Callable[[int], bool] | None = None,
    ):
        self.board, self.ply, self.db = board, ply, db
        self._score_of = score_of
        # Whether a key's lookup is cheap (its block decoded already): None, always.
        self._at_hand = at_hand
        h1, width = board.h1, board.width
        self._bottom = board.bottom
        # Smearing each column's bits down, ``shift`` at a time, keeping to the column.
        self._smear = tuple(
            (shift, board.bottom * ((1 << (h1 - shift)) - 1))
            for shift in (1 << n for n in range(h1.bit_length()))
            if shift < h1
        )
        self._below_top = self._smear[0][1]  # shift 1's: all but each column's top bit
        # Per column: its cells, and how far its stone moves in the mirror image (left, right).
        self._columns = tuple(
            (cells, max(move, 0), max(-move, 0))
            for col, cells in enumerate(board.column_masks)
            for move in ((width - 1 - 2 * col) * h1,)
        )
        self._win = SCORE_OFFSET + board.win_score(ply)
        # A child's own win or loss at once, as its parent's move's byte.
        self._child_wins = SCORE_OFFSET - board.win_score(ply + 1)
        self._child_loses = SCORE_OFFSET - board.loss_score(ply + 1)
        self._last = ply + 1 == board.cells  # no four with the last stone: a draw

    def packed(self, key: int, own: int) -> tuple[bytes, int]:
        """The packed move scores and best-move bits of the canonical ``key``, whose score
        is ``own``."""
        parent = _Parent(self, key)
        packed = bytearray([FULL_COLUMN]) * len(self._columns)
        wanted = own + SCORE_OFFSET
        best = 0
        for col in range(len(self._columns)):
            byte = self._byte(parent, col)
            if byte < 0:  # a full column
                continue
            packed[col] = byte
            if byte == wanted:
                best |= 1 << col
        if not best:
            raise no_best_move(self.db, self.ply)
        return bytes(packed), best

    def first_best(self, key: int, own: int, order: Sequence[int]) -> int:
        """The first of ``order``'s columns (from 0) that is a best move of the canonical
        ``key``, whose score is ``own``: its children read in that order, until one is."""
        parent = _Parent(self, key)
        wanted = own + SCORE_OFFSET
        for col in order:
            if self._byte(parent, col) == wanted:
                return col
        raise no_best_move(self.db, self.ply)

    def _byte(self, parent: _Parent, col: int) -> int:
        """Column ``col``'s packed move score (-1 for a full column)."""
        cells, left, right = self._columns[col]
        stone = parent.nexts & cells  # 0 when the column is full
        if not stone:
            return -1
        child = min(parent.swapped + stone, parent.swapped_mirror + ((stone << left) >> right))
        at_hand = self._at_hand
        if at_hand is not None and not at_hand(child):  # its block not read: ask the stones
            if parent.stones is None:
                parent.stones = self._winning_cells(parent.current, parent.mask, parent.nexts)
            byte = self._said(parent.current, parent.mask, stone, *parent.stones)
            if byte >= 0:
                return byte
        score = self._score_of(child)
        if score is not None:
            return SCORE_OFFSET - score
        if self.board.has_four(parent.current | stone):
            return self._win
        if self._last:
            return SCORE_OFFSET
        raise missing_child(self.db, self.ply)

    def _winning_cells(self, current: int, mask: int, nexts: int) -> tuple[int, int, int]:
        """The mover's winning cells, the other's, and the playable cells."""
        board = self.board
        return (
            board.winning_cells(current, mask),
            board.winning_cells(current ^ mask, mask),
            nexts & board.all_cells,
        )

    def _said(
        self, current: int, mask: int, stone: int, wins: int, theirs: int, playable: int
    ) -> int:
        """The byte of the move that plays ``stone`` if the stones give it, else -1: the
        mover's four; the last cell, a draw; or the child's player to move (the other)
        wins at once, or loses at once whatever it plays (``format.implied``'s rules)."""
        if stone & wins:
            return self._win
        if self._last:  # the board filled without a four
            return SCORE_OFFSET
        board = self.board
        playable ^= stone | ((stone << 1) & board.all_cells)  # the column's next cell
        if theirs & playable:  # (no longer ``stone``'s cell, which the mover took)
            return self._child_wins
        threats = board.winning_cells(current | stone, mask | stone)
        forced = playable & threats
        if forced & (forced - 1):  # two to block at once
            return self._child_loses
        if not (forced or playable) & ~(threats >> 1):  # each move lets a four be played
            return self._child_loses
        return -1


class _Parent:
    """A parent's stones, as its children are made from them (``Family``)."""

    __slots__ = ("current", "mask", "nexts", "stones", "swapped", "swapped_mirror")

    def __init__(self, family: Family, key: int):
        # A column of h stones is 2**h - 1 + its stones in the key: + 1, its top bit is
        # the column's next cell (its sentinel when full), found for every column at once.
        smeared = key + family._bottom
        for shift, keep in family._smear:
            smeared |= (smeared >> shift) & keep
        self.nexts = smeared ^ ((smeared >> 1) & family._below_top)
        self.mask = self.nexts - family._bottom
        self.current = key - self.mask
        # Every child is the position with the colours swapped, plus its stone: so is
        # every child's mirror image, the swapped position mirrored plus the stone mirrored.
        self.swapped = (self.current ^ self.mask) + self.mask
        self.swapped_mirror = family.board.mirror_bits(self.swapped)
        # The winning cells and the playable cells, worked out at the first child not at hand.
        self.stones: tuple[int, int, int] | None = None

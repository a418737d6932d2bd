"""A book's plies in memory: per ply, sorted canonical keys, scores and best moves.

Read once at open from the ``segments`` table (``segment``), and the rows of
plies still being built with them, each checked (``rows.read_rows``): ten
bytes a position, a lookup a binary search in one ply's keys.  A ply whose
children the book holds whole stores no best moves; a lookup in it derives
the move scores and best moves of its chunk of positions at once, with numpy
over the ply below (seven bytes a position, as ``schema.pack_scores`` packs
them, and a best-move byte), and keeps them; many lookups at once derive the
whole ply.
"""

from __future__ import annotations

import ctypes
import sys
from bisect import bisect_left

import numpy as np
from sqlalchemy import select

from solver.bitboard import STANDARD, Board

from .keys import walker
from .rows import read_rows
from .schema import CorruptBookError, SegmentRow
from .segment import Segment, check_row, merge, unpack

# compiled_keys bakes these and entry_code into its cached kernels, and numba checks only
# compiled_keys.py's own time stamp: after changing one here, touch that file too.
FULL_COLUMN = 0  # a packed move score: no move
SCORE_OFFSET = 64  # a packed move score is the score + 64
NO_MOVE = -128  # a full column's move score in a compiled lookup's answer
# Parents whose move scores are derived at once: a lookup derives only its own chunk (a few
# ms), not its whole ply (a quarter of a second at ply 9), and the temporary arrays stay small.
CHUNK_BITS = 15


class _Ply:
    """One sealed ply: memoryviews for single lookups (``bisect`` on one beats numpy's
    per-call cost), over the numpy arrays that serve many at once."""

    def __init__(self, segment: Segment):
        self.keys = memoryview(segment.keys)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        self.scores = memoryview(segment.scores)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        self.best = None if segment.best is None else memoryview(segment.best)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        self.moves: bytes | None = None  # 7 packed move scores a position, once derived
        self.best_derived = b""  # and the best-move bits they give, once ``moves`` is set
        self.parts: dict[int, tuple[bytes, bytes]] = {}  # chunks derived before the whole
        self.view = segment

    def __len__(self) -> int:
        return len(self.keys)


class Plies:
    """Plies by number, and how many of each ply's entries were rows (``row_counts``).

    ``parents`` are the plies whose children are all here (the next ply is
    complete): their move scores are derived, not stored.
    """

    def __init__(
        self,
        segments: dict[int, Segment],
        row_counts: dict[int, int],
        complete: tuple[int, ...] = (),
        db: str = "",
        board: Board = STANDARD,
    ):
        self.board = board
        self._width = board.width
        self._plies = {ply: _Ply(s) for ply, s in segments.items()}
        self.keys = {ply: p.view.keys for ply, p in self._plies.items()}  # for compiled searches
        self.row_counts = row_counts
        self.parents = frozenset(
            p for p in complete if p + 1 in complete and p in self._plies and p + 1 in self._plies
        )
        self._db = db
        # A parent ply's keys and scores, and its children's: a compiled lookup reads a
        # position's move scores from them, with nothing derived or kept.
        self.families = {
            ply: (
                self._plies[ply].view.keys,
                self._plies[ply].view.scores,
                self._plies[ply + 1].view.keys,
                self._plies[ply + 1].view.scores,
            )
            for ply in self.parents
        }

    @classmethod
    def read(
        cls,
        conn,
        complete: tuple[int, ...] = (),
        db: str = "",
        board: Board = STANDARD,
        offset: int = 0,
    ) -> Plies:
        """Every segment and row of the book on ``conn``; ``offset`` is what a key loses
        on its way into SQL (``store.key_offset``)."""
        parts: dict[int, list[Segment]] = {}
        for ply, count, data in conn.execute(
            select(SegmentRow.ply, SegmentRow.count, SegmentRow.data).order_by(
                SegmentRow.ply, SegmentRow.id
            )
        ):
            parts.setdefault(ply, []).append(check_row(unpack(data, ply, board), ply, count, board))
        row_plies, rows = read_rows(conn, "", db, board.width, offset, board.column_set_type)
        row_counts = {}
        if len(row_plies):
            assert rows.best is not None  # read_rows gives every row's best moves
            order = np.argsort(row_plies, kind="stable")  # by ply, each in key order
            held, starts = np.unique(row_plies[order], return_index=True)
            for ply, part in zip(held.tolist(), np.split(order, starts[1:]), strict=True):
                parts.setdefault(ply, []).append(
                    Segment(rows.keys[part], rows.scores[part], rows.best[part])
                )
                row_counts[ply] = len(part)
        del rows, row_plies
        plies = cls(
            {ply: merge(p, ply) for ply, p in parts.items()}, row_counts, complete, db, board
        )
        del parts
        _return_freed_memory()
        return plies

    @property
    def segments(self) -> dict[int, Segment]:
        return {ply: p.view for ply, p in self._plies.items()}

    def find(self, canonical: int, ply: int) -> int | tuple[int, bytes] | None:
        """What the book holds of a canonical key at ``ply``, in the canonical orientation:
        ``entry_code(score, best, width)``, and at a parent ply its packed move scores too
        (``(code, a byte a column)``); ``None`` if the ply lacks the key."""
        at_ply = self._plies.get(ply)
        if at_ply is None:
            return None
        keys = at_ply.keys
        at = bisect_left(keys, canonical)
        if at == len(keys) or keys[at] != canonical:
            return None
        return self.at(ply, at)

    def at(self, ply: int, at: int) -> int | tuple[int, bytes]:
        """What ``find`` gives for the ``at``-th position of ``ply``."""
        at_ply = self._plies[ply]
        # A parent ply first: one may still hold stored best moves (the ply below was
        # packed in parts while it was built, and is complete but not yet sealed).
        if ply in self.parents:
            best: bytes | memoryview
            if at_ply.moves is not None:
                moves, best, part_at = at_ply.moves, at_ply.best_derived, at
            else:
                chunk = at >> CHUNK_BITS
                moves, best = at_ply.parts.get(chunk) or self._derive_part(ply, chunk)
                part_at = at - (chunk << CHUNK_BITS)
            width = self._width
            if width > 8:  # two bytes of best-move bits a position
                best = memoryview(best).cast("H")
            return (
                entry_code(at_ply.scores[at], best[part_at], width),
                moves[width * part_at : width * part_at + width],
            )
        return entry_code(
            at_ply.scores[at], 0 if at_ply.best is None else at_ply.best[at], self._width
        )

    def find_many(self, keys: np.ndarray, plies: np.ndarray, floors=None):
        """For keys in any orientation at the given plies: ``(found, index, scores, best,
        flipped)``; ``index`` is the position's place in its ply, ``best`` the canonical
        orientation's best-move bits (stored, or derived at a parent ply).  ``floors``,
        if given, is ``compiled_keys.floors_many``: faster than ``searchsorted``."""
        canonical = np.minimum(keys, self.board.mirror_bits(keys))
        # Searched in key order, each search starts where the last ended: a quarter of the
        # time of random order, sorting included.
        order = np.argsort(canonical)
        ordered_plies = plies[order]
        found = np.zeros(len(keys), dtype=bool)
        index = np.zeros(len(keys), dtype=np.int64)
        scores = np.zeros(len(keys), dtype=np.int8)
        best = np.zeros(len(keys), dtype=self.board.column_set_type)
        for ply, at_ply in self._plies.items():
            at = order[ordered_plies == ply]
            if not len(at) or not len(at_ply):
                continue
            view = at_ply.view
            wanted = canonical[at]
            where = (
                floors(view.keys, wanted)
                if floors is not None
                else np.minimum(view.keys.searchsorted(wanted), len(at_ply) - 1)
            )
            hit = view.keys[where] == wanted
            at, where = at[hit], where[hit]
            found[at], index[at], scores[at] = True, where, view.scores[where]
            if ply in self.parents:
                best[at] = np.frombuffer(self.best_of(ply), best.dtype)[where]
            elif view.best is not None:
                best[at] = view.best[where]
        return found, index, scores, best, canonical != keys

    def slice_of(
        self, ply: int, start: int, end: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The ``start``-th to ``end``-th positions of ``ply`` in key order: ``(keys, scores,
        best-move bits, packed move scores)``; the move scores, ``(n, width)`` bytes as
        ``moves_of`` packs them, only at a parent ply.  Derived where the ply keeps none,
        and not kept: reading a whole book holds one slice at a time."""
        at_ply = self._plies[ply]
        keys, scores = at_ply.view.keys[start:end], at_ply.view.scores[start:end]
        if ply not in self.parents:
            best = at_ply.view.best
            return keys, scores, None if best is None else best[start:end], None
        kind, width = self.board.column_set_type, self._width
        if at_ply.moves is not None:  # derived whole already: sliced
            return (
                keys,
                scores,
                np.frombuffer(at_ply.best_derived, kind)[start:end],
                np.frombuffer(at_ply.moves, np.uint8).reshape(-1, width)[start:end],
            )
        moves, derived = self._derive_chunk(keys, scores, ply)
        return (
            keys,
            scores,
            np.frombuffer(derived, kind),
            np.frombuffer(moves, np.uint8).reshape(-1, width),
        )

    def moves_of(self, ply: int) -> bytes:
        """The packed move scores of a parent ply, a byte a column a position in key order."""
        return self._plies[ply].moves or self._derive(ply)

    def best_of(self, ply: int) -> bytes:
        """The best-move bits of a parent ply, in key order (``Board.column_set_type``)."""
        if self._plies[ply].moves is None:
            self._derive(ply)
        return self._plies[ply].best_derived

    def _derive(self, ply: int) -> bytes:
        """Every position's move scores and best moves at ``ply``, from the scores of the
        ply below: the chunks not derived yet, then all of them joined."""
        at_ply = self._plies[ply]
        chunks = [
            at_ply.parts.get(chunk) or self._derive_part(ply, chunk)
            for chunk in range(-(-len(at_ply) >> CHUNK_BITS))
        ]
        at_ply.best_derived = b"".join(best for _, best in chunks)
        at_ply.moves = b"".join(moves for moves, _ in chunks)
        at_ply.parts = {}
        return at_ply.moves

    def _derive_part(self, ply: int, chunk: int) -> tuple[bytes, bytes]:
        """One chunk of a parent ply's move scores and best moves, kept."""
        at_ply = self._plies[ply]
        start, end = chunk << CHUNK_BITS, (chunk + 1) << CHUNK_BITS
        part = at_ply.parts[chunk] = self._derive_chunk(
            at_ply.view.keys[start:end], at_ply.view.scores[start:end], ply
        )
        return part

    def _derive_chunk(self, keys: np.ndarray, own: np.ndarray, ply: int) -> tuple[bytes, bytes]:
        below = self._plies[ply + 1].view
        board = self.board
        walk = walker(board)
        current, mask = walk.boards_of_keys(keys)
        children, stones = walk.child_keys_many(current, mask)
        children = np.minimum(children, board.mirror_bits(children))
        where = np.minimum(below.keys.searchsorted(children), max(len(below.keys) - 1, 0))
        hit = below.keys[where] == children if len(below.keys) else np.zeros_like(children, bool)
        # An empty ply below (the last: every game there is over) has no score to index.
        scores = below.scores[where] if len(below.keys) else np.zeros(children.shape, np.int8)
        packed = (SCORE_OFFSET - scores.astype(np.int64)).astype(np.uint8)
        playable = stones != 0
        ended = playable & ~hit  # not in the book: the move must end the game
        if ended.any():
            wins = board.fours((current[:, None] | stones)[ended]) != 0
            last = ply + 1 == board.cells
            if not (wins | last).all():
                raise CorruptBookError(
                    f"{self._db!r}: ply {ply + 1} lacks a child of a "
                    f"ply-{ply} position, though both are complete"
                )
            packed[ended] = np.where(wins, SCORE_OFFSET + board.win_score(ply), SCORE_OFFSET)
        packed[~playable] = FULL_COLUMN
        # A best move scores the position's own score (no full column's 0 ever does),
        # and some move must: else the ply's scores and its children's disagree.
        kind = board.column_set_type
        best = (
            (
                (packed == (own.astype(np.int64) + SCORE_OFFSET)[:, None]).astype(kind)
                << np.arange(board.width, dtype=kind)
            )
            .sum(axis=1)
            .astype(kind)
        )
        if not best.all():
            raise CorruptBookError(
                f"{self._db!r}: a ply-{ply} position's score is no move's "
                f"score from the ply-{ply + 1} scores"
            )
        return packed.tobytes(), best.tobytes()

    def count_by_ply(self) -> dict[int, int]:
        return {ply: len(p) for ply, p in sorted(self._plies.items())}

    def score_counts(self) -> dict[int, dict[int, int]]:
        """``{ply: {wdl: count}}``."""
        counts: dict[int, dict[int, int]] = {}
        for ply, at_ply in sorted(self._plies.items()):
            signs = np.bincount(np.sign(at_ply.view.scores.astype(np.int64)) + 1, minlength=3)
            counts[ply] = {wdl: int(n) for wdl, n in zip((-1, 0, 1), signs, strict=True) if n}
        return counts


def _return_freed_memory() -> None:
    """Give the system back the heap that decoding freed.  glibc keeps large freed blocks
    for reuse: a third of an open book's resident memory.  Elsewhere, nothing to do."""
    if not sys.platform.startswith("linux"):
        return
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc (musl has no malloc_trim)
        return
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    trim(0)


def entry_code(score: int, best: int, width: int = STANDARD.width) -> int:
    """A score and its best-move bits in one small integer (0 to 13,695 on 7x6): the index
    of its decoded form in the reader's table."""
    return (score + SCORE_OFFSET) << width | best

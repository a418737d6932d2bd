"""A book's plies: per ply, sorted canonical keys, scores and best moves.

A sealed ply is opened by its index and read a block at a time (``lazy``).
A ply still being built is read whole at open, from its segments
(``segment``) and rows, each checked (``rows.read_rows``): ten bytes a
position, a lookup a binary search in its keys.  A ply whose
children the book holds whole stores no best moves: a lookup there reads
its position's move scores from its children (``family``), and many lookups
at once derive those of the positions asked, or of the whole ply when they
ask for much of it (then kept).
"""

from __future__ import annotations

import ctypes
import sys
import threading
from bisect import bisect_left
from collections.abc import Callable, Sequence

import numpy as np

from solver.bitboard import STANDARD, Board

from ..format.errors import damaged_ply
from ..format.rows import read_rows
from ..format.scores import entry_code
from ..format.sealed import read_sealed, sealed_and_more, sealed_plies
from ..format.segment import Segment, merge, segments_of
from ..format.wide_keys import KeyList
from .family import Family
from .lazy import BlockCache, BlockSource, LazyPly

# A whole parent ply is derived a chunk at a time, so that the temporary arrays stay small.
CHUNK_BITS = 15
# get_many derives a parent ply whole (and keeps it) once it asks for a half of it or
# more: the whole costs about as much a position as the part, and no later call pays again.
WHOLE_SHARE = 2
# A sealed ply is read whole for lookups that would touch a quarter of its blocks or more
# (in key order, a block at a time would read as much, more slowly).
BLOCKWISE_SHARE = 4


class _Ply:
    """One sealed ply: memoryviews for single lookups (``bisect`` on one beats numpy's
    per-call cost), over the numpy arrays that serve many at once."""

    def __init__(self, segment: Segment):
        self.keys: memoryview | KeyList = (
            KeyList(segment.keys) if segment.keys.ndim == 2 else memoryview(segment.keys)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        )
        self.scores = memoryview(segment.scores)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        self.best = None if segment.best is None else memoryview(segment.best)  # type: ignore[arg-type]  # numpy: a Buffer from 3.12 on
        self.moves: bytes | None = None  # 7 packed move scores a position, once derived whole
        self.best_derived = b""  # and the best-move bits they give, once ``moves`` is set
        self.family: Family | None = None  # a parent ply's: one position's move scores
        self.view = segment

    def __len__(self) -> int:
        return len(self.keys)

    def find(self, key: int) -> int | None:
        """The place of ``key`` in the ply, or ``None`` if the ply lacks it."""
        keys = self.keys
        at = bisect_left(keys, key)
        return at if at < len(keys) and keys[at] == key else None

    def score_of(self, key: int) -> int | None:
        at = self.find(key)
        return None if at is None else self.scores[at]

    def key_at(self, at: int) -> int:
        return self.keys[at]

    def entry(self, at: int) -> tuple[int, int]:
        """``(score, best-move bits)`` of the ``at``-th position (bits 0 where none kept)."""
        return self.scores[at], 0 if self.best is None else self.best[at]

    def slice(self, start: int, end: int) -> Segment:
        view = self.view
        best = None if view.best is None else view.best[start:end]
        return Segment(view.keys[start:end], view.scores[start:end], best)


class _Sealed(LazyPly):
    """A sealed ply, read a block at a time, with what ``Plies`` keeps of a ply."""

    moves: bytes | None = None
    best_derived = b""
    family: Family | None = None

    @property
    def view(self) -> Segment:
        return self.whole()


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
        sealed: dict[int, _Sealed] | None = None,
        source: BlockSource | None = None,
    ):
        self.board = board
        self._width = board.width
        eager = {ply: _Ply(s) for ply, s in segments.items()}
        self._plies: dict[int, _Ply | _Sealed] = {**(sealed or {}), **eager}
        self._source = source
        # The plies read whole, for compiled searches; a sealed ply is searched in Python,
        # as is every ply past 64 bits (the compiled lookups take keys of one word).
        self.keys = {} if board.is_wide else {ply: p.view.keys for ply, p in eager.items()}
        self.row_counts = row_counts
        self.parents = frozenset(
            p for p in complete if p + 1 in complete and p in self._plies and p + 1 in self._plies
        )
        self._db = db
        # A parent ply's keys and scores, and its children's: a compiled lookup reads a
        # position's move scores from them, with nothing derived or kept.
        self.families = {
            ply: (eager[ply].view.keys, eager[ply].view.scores, below.keys, below.scores)
            for ply in self.parents
            if ply in eager and ply + 1 in eager and not board.is_wide
            for below in (eager[ply + 1].view,)
        }
        for ply in self.parents:  # made now: a first lookup never waits for one
            below = self._plies[ply + 1]
            at_hand = below.at_hand if isinstance(below, LazyPly) else None
            self._plies[ply].family = Family(board, ply, below.score_of, db, at_hand)

    @classmethod
    def read(
        cls,
        conn,
        complete: tuple[int, ...] = (),
        db: str = "",
        board: Board = STANDARD,
        offset: int = 0,
        source: BlockSource | None = None,
        cache: BlockCache | None = None,
    ) -> Plies:
        """The book on ``conn``: its sealed plies' indexes, read through ``source`` into
        ``cache`` a block at a time, and every segment and row of the others; ``offset`` is
        what a key loses on its way into SQL (``store.key_offset``)."""
        lock = threading.Lock()
        cache = BlockCache() if cache is None else cache  # (an empty cache is falsy)
        opened = sealed_plies(conn, board, db)
        parts = segments_of(conn, board, db)
        if source is None:  # no source to read blocks through later: read them now
            for ply, whole in opened.items():
                parts.setdefault(ply, []).insert(0, read_sealed(conn, whole, board, db))
            opened = {}
        sealed = {
            ply: _Sealed(one, source, cache, lock, board, db)  # type: ignore[arg-type]
            for ply, one in opened.items()
        }
        row_plies, rows = read_rows(
            conn, "", db, board.width, offset, board.column_set_type, board.is_wide
        )
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
        if missing := sorted(set(complete) - set(parts) - set(sealed)):  # a deleted ply, say
            raise damaged_ply(
                missing[0],
                "the meta lists it complete, but the book holds none of its positions",
                db,
            )
        if both := sorted(set(parts) & set(sealed)):  # (a reader holds one or the other)
            raise sealed_and_more(both[0], db)
        plies = cls(
            {ply: merge(p, ply, db) for ply, p in parts.items()},
            row_counts,
            complete,
            db,
            board,
            sealed,
            source,
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
        at = at_ply.find(canonical)
        return None if at is None else self.at(ply, at)

    def reads_children(self, ply: int) -> bool:
        """Whether a lookup at ``ply`` reads its move scores from its children one by one
        (``Family``): a parent ply, sealed, not derived whole."""
        at_ply = self._plies.get(ply)
        return ply in self.parents and isinstance(at_ply, _Sealed) and at_ply.moves is None

    def first_best(self, canonical: int, ply: int, order: Sequence[int]) -> tuple[int, int] | None:
        """``(column from 0, score)``: the first of ``order``'s columns that is a best move of
        the canonical key at ``ply``, a ply that ``reads_children``; ``None`` if the ply
        lacks the key.  Its children are read in that order until one is best."""
        at_ply = self._plies[ply]
        at = at_ply.find(canonical)
        if at is None:
            return None
        own = at_ply.entry(at)[0]
        assert at_ply.family is not None  # every parent ply has one, from the open
        return at_ply.family.first_best(canonical, own, order), own

    def at(self, ply: int, at: int) -> int | tuple[int, bytes]:
        """What ``find`` gives for the ``at``-th position of ``ply``."""
        at_ply = self._plies[ply]
        # A parent ply first: one may still hold stored best moves (the ply below was
        # packed in parts while it was built, and is complete but not yet sealed).
        if ply in self.parents:
            width = self._width
            own = at_ply.entry(at)[0]
            if at_ply.moves is None:  # read from its children: nothing derived, nothing kept
                assert at_ply.family is not None  # every parent ply has one, from the open
                moves, bits = at_ply.family.packed(at_ply.key_at(at), own)
                return entry_code(own, bits, width), moves
            best: bytes | memoryview = at_ply.best_derived
            if width > 8:  # two bytes of best-move bits a position
                best = memoryview(best).cast("H")
            return (
                entry_code(own, best[at], width),
                at_ply.moves[width * at : width * at + width],
            )
        return entry_code(*at_ply.entry(at), self._width)

    def find_many(self, keys: np.ndarray, plies: np.ndarray, compiled: bool = False):
        """For keys in any orientation at the given plies: ``(found, index, scores, best,
        flipped, moves)``; ``index`` is the position's place in its ply, ``best`` the
        canonical orientation's best-move bits (stored, or derived at a parent ply), and
        ``moves`` its packed move scores (``(n, width)`` bytes, as ``moves_of``; zeros
        but at a parent ply).  ``compiled``: search with the compiled kernels
        (``compiled_keys``), which the caller has loaded."""
        search: Callable[[np.ndarray, np.ndarray], np.ndarray] = np.searchsorted
        if compiled:
            from .compiled_keys import lower_bounds

            search = lower_bounds

        canonical = np.minimum(keys, self.board.mirror_bits(keys))
        # Searched in key order, each search starts where the last ended: a quarter of the
        # time of random order, sorting included.
        order = np.argsort(canonical)
        ordered_plies = plies[order]
        found = np.zeros(len(keys), dtype=bool)
        index = np.zeros(len(keys), dtype=np.int64)
        scores = np.zeros(len(keys), dtype=np.int8)
        best = np.zeros(len(keys), dtype=self.board.column_set_type)
        moves = np.zeros((len(keys), self._width), dtype=np.uint8)
        for ply, at_ply in self._plies.items():
            at = order[ordered_plies == ply]
            if not len(at) or not len(at_ply):
                continue
            wanted = canonical[at]
            if isinstance(at_ply, _Sealed) and not at_ply.is_whole and not self._bulk(ply, len(at)):
                # A few positions of a sealed ply: each looked up in its block.
                places = [at_ply.find(key) for key in wanted.tolist()]
                hit = np.array([p is not None for p in places], dtype=bool)
                at, where = at[hit], np.array([p for p in places if p is not None], np.int64)
                read = [at_ply.entry(p) for p in where.tolist()]
                found[at], index[at] = True, where
                scores[at] = [score for score, _ in read]
                if ply in self.parents:
                    moves[at], best[at] = self.families_of(ply, where, compiled)
                else:
                    best[at] = [bits for _, bits in read]
                continue
            view = self._whole(ply, compiled)
            where = np.minimum(search(view.keys, wanted), len(at_ply) - 1)
            hit = view.keys[where] == wanted
            at, where = at[hit], where[hit]
            found[at], index[at], scores[at] = True, where, view.scores[where]
            if ply in self.parents:
                moves[at], best[at] = self.families_of(ply, where, compiled)
            elif view.best is not None:
                best[at] = view.best[where]
        return found, index, scores, best, canonical != keys, moves

    def families_of(
        self, ply: int, where: np.ndarray, compiled: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """The packed move scores (``(n, width)`` bytes) and best-move bits of the
        ``where``-th positions of the parent ``ply`` (``where`` ascending, as ``find_many``
        has it): derived for them alone, or for the whole ply (kept) when they are a large
        share of it.  Without ``compiled`` numba stays out: each read in Python (``Family``)."""
        at_ply = self._plies[ply]
        if compiled and at_ply.moves is None and len(where) * WHOLE_SHARE >= len(at_ply):
            self._derive(ply)
        if at_ply.moves is not None:
            return (
                np.frombuffer(at_ply.moves, np.uint8).reshape(-1, self._width)[where],
                np.frombuffer(at_ply.best_derived, self.board.column_set_type)[where],
            )
        # Each position once (np.unique would sort again, and load numpy.ma: 40 ms).
        first = np.empty(len(where), dtype=bool)
        first[:1] = True
        np.not_equal(where[1:], where[:-1], out=first[1:])
        if compiled and self._bulk(ply + 1, len(where) * self._width):
            view = self._whole(ply, compiled)
            where = where[first]
            moves, best = self._derive_many(ply, view.keys[where], view.scores[where])
        else:
            moves, best = self._read_families(ply, where[first])
        back = np.cumsum(first) - 1
        return moves[back], best[back]

    def _read_families(self, ply: int, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``_derive_many``'s answer, one position at a time in plain Python (``Family``)."""
        at_ply = self._plies[ply]
        assert at_ply.family is not None  # every parent ply has one, from the open
        read = [
            at_ply.family.packed(at_ply.key_at(at), at_ply.entry(at)[0]) for at in where.tolist()
        ]
        moves = np.frombuffer(b"".join(m for m, _ in read), np.uint8).reshape(-1, self._width)
        best = np.array([b for _, b in read], dtype=self.board.column_set_type)
        return moves, best

    def slice_of(
        self, ply: int, start: int, end: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The ``start``-th to ``end``-th positions of ``ply`` in key order: ``(keys, scores,
        best-move bits, packed move scores)``; the move scores, ``(n, width)`` bytes as
        ``moves_of`` packs them, only at a parent ply.  Derived where the ply keeps none,
        and not kept: reading a whole book holds one slice at a time."""
        at_ply = self._plies[ply]
        part = at_ply.slice(start, end)
        keys, scores = part.keys, part.scores
        if ply not in self.parents:
            return keys, scores, part.best, None
        kind, width = self.board.column_set_type, self._width
        if at_ply.moves is not None:  # derived whole already: sliced
            return (
                keys,
                scores,
                np.frombuffer(at_ply.best_derived, kind)[start:end],
                np.frombuffer(at_ply.moves, np.uint8).reshape(-1, width)[start:end],
            )
        if self.board.is_wide:  # no compiled rule past 64 bits yet: each read in Python
            moves, best = self._read_families(ply, np.arange(start, start + len(keys)))
        else:
            moves, best = self._derive_many(ply, keys, scores)
        return keys, scores, best, moves

    def derived_whole(self, ply: int) -> bool:
        """Whether a parent ply's move scores are derived whole and kept (else each lookup
        reads its position's from the children)."""
        return self._plies[ply].moves is not None

    def moves_of(self, ply: int) -> bytes:
        """The packed move scores of a parent ply, a byte a column a position in key order."""
        return self._plies[ply].moves or self._derive(ply)

    def best_of(self, ply: int) -> bytes:
        """The best-move bits of a parent ply, in key order (``Board.column_set_type``)."""
        if self._plies[ply].moves is None:
            self._derive(ply)
        return self._plies[ply].best_derived

    def _whole(self, ply: int, compiled: bool) -> Segment:
        """Ply ``ply`` whole (a sealed ply decoded, by numba's kernels if ``compiled``)."""
        at_ply = self._plies[ply]
        return at_ply.whole(compiled) if isinstance(at_ply, _Sealed) else at_ply.view

    def _derive(self, ply: int) -> bytes:
        """Every position's move scores and best moves at ``ply``, from the scores of the
        ply below, a chunk at a time; kept."""
        view = self._whole(ply, compiled=True)  # (``_derive_many`` loads numba)
        step = 1 << CHUNK_BITS
        chunks = [
            self._derive_many(
                ply, view.keys[start : start + step], view.scores[start : start + step]
            )
            for start in range(0, len(view.keys), step)
        ]
        at_ply = self._plies[ply]
        at_ply.best_derived = b"".join(best.tobytes() for _, best in chunks)
        at_ply.moves = b"".join(moves.tobytes() for moves, _ in chunks)
        return at_ply.moves

    def _derive_many(
        self, ply: int, keys: np.ndarray, scores: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``compiled_family.derive_many`` of positions of ``ply`` (their ``keys`` and
        ``scores``): bulk work, so numba's kernels, loaded at the first, and the ply below
        read whole."""
        from .compiled_family import derive_many

        below = self._whole(ply + 1, compiled=True)
        return derive_many(
            self.board,
            keys,
            scores,
            below.keys,
            below.scores,
            ply,
            self._db,
        )

    def _bulk(self, ply: int, lookups: int) -> bool:
        """Whether ``lookups`` in ``ply`` are better served by the ply read whole: it is
        (not sealed, or read already), or they would touch most of its blocks."""
        at_ply = self._plies[ply]
        return (
            not isinstance(at_ply, _Sealed)
            or at_ply.is_whole
            or lookups * BLOCKWISE_SHARE >= at_ply.sealed.blocks
        )

    def close(self) -> None:
        if self._source is not None:
            self._source.close()

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

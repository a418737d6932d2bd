"""``Book``: a small, read-only, dict-like view of a book.

    with Book.open() as book:            # ./book.db, else the book installed with c4book
        entry = book.get("4453")         # BookEntry or None
        book.get_many(["4453", "44531"])  # a list of the same, many at once
        "4453" in book, len(book), book.info

Lookups take a move string or a ``Position``, find a mirror image through the
canonical key, and return columns in the asker's orientation.  Opening reads
the meta and each sealed ply's block index (``lazy``); a lookup reads and
decodes the one block that holds its key, kept in a bounded cache
(``cache_blocks``).  A ply still being built is read whole at open, each row
checked (``plies``).  A position's move scores and best moves come from its
children's scores when the book holds the ply below it complete (seven
lookups there); at the book's last ply its best moves are stored.  Every
kind of score and best moves is decoded once, at import, in either
orientation: a lookup indexes that table.

Opening never writes, and loads neither Ray nor numba: a lookup runs in
Python.  Bulk work (``get_many`` of thousands, a whole ply's move scores)
loads numba's compiled kernels when it first needs them, unless
``compiled=False``.  Importing bookgen loads neither.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from solver import Position
from solver.bitboard import Board
from solver.errors import ArgumentTypeError

from ..format.collector import paused as _collector_paused
from ..format.database import check_sqlite_file, key_offset, make_engine, read_meta, sqlite_path
from ..format.errors import BookError, board_of_meta, read_failed
from ..format.keys import walker
from ..format.location import find_book
from ..format.names import SCHEMA_VERSION, SEARCH_SECONDS
from ..format.scores import FULL_COLUMN, FULL_COLUMN_SCORE, SCORE_OFFSET
from ..format.sql import open_readonly
from ..format.wide_keys import stones_of
from . import scan
from .entry import (
    SCORE_OBJECTS,
    SCORE_OF_BYTE,
    SIGNED,
    BookEntry,
    BookInfo,
    BookMove,
    as_position,
    codes,
    new_entry,
    preference,
)
from .lazy import CACHE_BLOCKS, BlockCache, BlockSource
from .plies import Plies

if TYPE_CHECKING:
    from os import PathLike

    from typing_extensions import Self  # typing's own from Python 3.11

_LARGE = 64  # from this many strings on, get_many works on numpy arrays
_BULK = 4096  # and from this many, with numba's kernels (loaded then, if allowed)


_compiled: ModuleType | bool | None = None  # bookgen.book.read.compiled_keys, once loaded
_loaded: set[Board] = set()  # the boards whose compiled lookups this process has loaded


def _kernels():
    """The compiled lookups once this process has numba loaded, else ``None``."""
    global _compiled  # noqa: PLW0603 - one module loaded once a process, on first use
    if _compiled is None and "numba" in sys.modules:
        try:
            from . import compiled_keys as _compiled
        except ImportError:  # numba there but unusable: the Python walk, from now on
            _compiled = False
    return _compiled or None


def _load_kernels(board: Board) -> None:
    """Load the compiled lookups of ``board``'s books, for bulk work."""
    global _compiled  # noqa: PLW0603 - one module loaded once a process
    try:
        from . import compiled_family, compiled_keys

        compiled_keys.load(board)
        compiled_family.load(board)
    except Exception:  # noqa: BLE001 - numba unusable here: the Python walk answers the same
        _compiled = False
        return
    _compiled = compiled_keys
    _loaded.add(board)


def _read_plies(
    connection, complete: tuple[int, ...], db: str, board: Board, source, cache
) -> Plies:
    """The book's plies (``Plies.read``) on ``connection``: an engine's, or SQLite's own,
    whose refusals are named here as the engine's are (``database.make_engine``)."""
    offset = key_offset(board)
    if isinstance(connection, sqlite3.Connection):
        try:
            return Plies.read(connection, complete, db, board, offset, source, cache)
        except sqlite3.Error as error:
            raise read_failed(db, error) from None
    with connection.connect() as conn:
        return Plies.read(conn, complete, db, board, offset, source, cache)


class BookClosedError(BookError, ValueError):
    """A lookup in a book already closed."""


class _Closed:
    """A closed book's plies: any use raises ``BookClosedError``, naming the book."""

    def __init__(self, db: str):
        self.db = db

    def __getattr__(self, name: str):
        raise BookClosedError(f"the book {self.db!r} is closed: open it again to read it")


class Book:
    """Read-only access to a book; use ``Book.open``."""

    def __init__(
        self,
        db: str | PathLike[str] | None = None,
        *,
        board: Board | str | None = None,
        compiled: bool = True,
        cache_blocks: int = CACHE_BLOCKS,
    ):
        db = find_book(db)
        path = sqlite_path(db)
        if path is not None:
            check_sqlite_file(path, must_exist=True)
        self.db = db
        cache = BlockCache(cache_blocks)
        # A SQLite file is read through sqlite3 alone (``format.sql``); a server through
        # SQLAlchemy.  Either way ``source`` holds it open until ``close``.
        connection = make_engine(db, readonly=True) if path is None else open_readonly(path)
        source = BlockSource(connection, db)
        try:
            meta = read_meta(connection, db, board=None if board is None else Board.parse(board))
            self.board = board_of_meta(meta, db)
            complete = tuple(json.loads(meta.get("complete_plies", "[]")))
            self._plies: Plies | _Closed = _read_plies(
                connection, complete, db, self.board, source, cache
            )
        except BaseException:
            source.close()
            raise
        self._bulk_compiled = compiled
        self._walk = walker(self.board)
        self._codes = codes(self.board)
        self._heads = self._codes.heads
        self.info = BookInfo(
            width=self.board.width,
            height=self.board.height,
            root=meta["root"],
            plies_complete=complete,
            schema_version=SCHEMA_VERSION,
            max_ply=int(meta.get("ply", 0)),
            search_core_seconds=float(meta.get(SEARCH_SECONDS, 0)),
        )
        # A ply read whole: its compiled lookup, bound to its arrays, made at its first
        # lookup once numba's kernels are loaded.
        self._compiled: dict[int, Callable[..., Any]] = {}

    @classmethod
    def open(
        cls,
        db: str | PathLike[str] | None = None,
        *,
        board: Board | str | None = None,
        compiled: bool = True,
        cache_blocks: int = CACHE_BLOCKS,
    ) -> Book:
        """Open and check a book; raises a ``BookError`` naming what is wrong.

        With no ``db``: ``./book.db`` if there is one, else the book installed
        with c4book.  The book says its board (``book.board``); a ``board`` given
        here must be that one.  Opening reads each sealed ply's index; a lookup
        reads a block, and the last ``cache_blocks`` blocks read stay decoded
        (about 10 kB each on 7x6).  ``compiled`` lets bulk work load numba's
        kernels when it first needs them (about 0.3 s and 100 MB; the first time
        after an install compiles them, about 5 s); ``False`` keeps numba out.
        """
        return cls(db, board=board, compiled=compiled, cache_blocks=cache_blocks)

    @property
    def compiled(self) -> bool:
        """Whether lookups run numba's compiled kernels (bound to this book's plies)."""
        return bool(self._compiled)

    def close(self) -> None:
        if isinstance(self._plies, Plies):
            self._plies.close()  # the file is let go
        self._plies = _Closed(self.db)  # later lookups fail, saying so

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Book.open({self.db!r})"

    # -- one position ------------------------------------------------------
    def get(self, moves: str | Position) -> BookEntry | None:
        """The entry for a position, or ``None`` when the book does not hold it."""
        text = (
            moves
            if type(moves) is str
            else moves.moves
            if type(moves) is Position and moves.board is self.board
            else None
        )
        if (
            text is not None
            and (kernels := _kernels()) is not None
            and (keys := self._plies.keys.get(ply := len(text))) is not None
        ):
            family = self._plies.families.get(ply)
            lookup = self._compiled.get(ply) or self._compile(kernels, ply, keys, family)
            if family is not None:  # a parent: its move scores read from its children
                found = lookup(self.board, text.encode("ascii", "replace"), *family)
                if found[0] >= 0:
                    code = found[1]
                    if code < 0 or not code & self._codes.all_best:  # a damaged book: this
                        # raises, saying what is damaged (or, should the kernel be wrong, answers)
                        return self._entry(
                            text, ply, self._plies.at(ply, found[0] >> 1), found[0] & 1 == 1
                        )
                    scores = found[2]  # already the asker's way
                    if FULL_COLUMN_SCORE in scores:
                        scores = tuple(None if s == FULL_COLUMN_SCORE else s for s in scores)
                    return new_entry(
                        BookEntry, (text, ply, *self._heads[False][code], scores, self.board)
                    )
            else:
                where = lookup(self.board, text.encode("ascii", "replace"), keys)
                if where >= 0:
                    return self._entry(text, ply, self._plies.at(ply, where >> 1), where & 1 == 1)
            # Else the walk below: a miss to explain.
        key, asked = self._key_of(moves)
        if key is None:  # not a plain move string: let Position name what is wrong
            return self.get(as_position(moves, self.board))
        ply = len(asked)
        mirror = self.board.mirror_bits(key)
        flip = mirror < key
        found = self._plies.find(mirror if flip else key, ply)
        if found is None:
            as_position(moves, self.board)  # raises, naming the input, if not a legal game
            return None
        return self._entry(asked, ply, found, flip)

    def best_move(
        self, moves: str | Position, prefer: Sequence[int] | None = None
    ) -> BookMove | None:
        """The position's best move that comes first in ``prefer`` (every column once,
        from 1; by default the centre first, as ``Player`` plays), and its score; ``None``
        where the book lacks the position or keeps no best move for it.  The answer is
        ``min(get(moves).best_moves, key=prefer.index)`` and the score, at less cost: at a
        ply whose move scores come from its children, it reads them in that order until
        one is best, not all of them."""
        width = self.board.width
        order = preference(prefer, self.board)
        key, asked = self._key_of(moves)
        ply = len(asked)
        if key is None or not self._plies.reads_children(ply):
            entry = self.get(moves)  # (raises, naming it, if it is no position of the board)
            if entry is None or not entry.best_moves:
                return None
            return BookMove(min(entry.best_moves, key=order.index), entry.score)
        mirror = self.board.mirror_bits(key)
        flip = mirror < key
        columns = [width - c if flip else c - 1 for c in order]  # the canonical way, from 0
        found = self._plies.first_best(mirror if flip else key, ply, columns)
        if found is None:
            as_position(moves, self.board)  # raises, naming the input, if not a legal game
            return None
        column, score = found
        return BookMove(width - column if flip else column + 1, score)

    def _key_of(self, moves: str | Position) -> tuple[int | None, str]:
        """``(key, moves)`` of a move string or a ``Position`` of the book's board, by the
        walk that skips ``Position``'s checks; ``(None, "")`` for anything else, or a string
        the walk cannot play (``Position`` then names what is wrong)."""
        if type(moves) is str:
            return self._walk.key_of(moves), moves
        if isinstance(moves, Position) and moves.board is self.board:
            return moves.key, moves.moves
        return None, ""

    def _compile(self, kernels, ply: int, keys, family):
        """The ply's compiled lookup, called directly (``compiled_for``): made at its first
        lookup, with the ply's own arrays, whose types every later lookup shares."""
        from solver._board_type import compiled_for

        if family is not None:
            found = compiled_for(kernels.locate_parent, self.board, b"", *family)
        else:
            found = compiled_for(kernels.locate, self.board, b"", keys)
        self._compiled[ply] = found
        return found

    def _entry(self, asked: str, ply: int, found: int | tuple[int, bytes], flip: bool) -> BookEntry:
        """The entry of what ``Plies.find`` found, in the asker's orientation."""
        if isinstance(found, int):
            head = self._heads[flip][found]
            return new_entry(BookEntry, (asked, ply, *head, None, self.board))
        code, packed = found
        head = self._heads[flip][code]
        if flip:
            packed = packed[::-1]
        # The signed bytes unpacked in C: a quarter of the time of a byte at a time.
        scores = self._codes.unpack_scores(packed.translate(SIGNED))
        if FULL_COLUMN in packed:
            scores = tuple(map(SCORE_OF_BYTE.__getitem__, packed))
        return new_entry(BookEntry, (asked, ply, *head, scores, self.board))

    # -- many positions ----------------------------------------------------
    def get_many(self, moves_list: Sequence[str | Position]) -> list[BookEntry | None]:
        """``[book.get(m) for m in moves_list]``, with numpy over the whole list: each
        field is made for every hit at once, and the entries zipped from the fields."""
        if isinstance(moves_list, (str, bytes)) or not isinstance(moves_list, Iterable):
            # (a bare "4453" would be read as four one-move positions)
            raise ArgumentTypeError(
                f"moves_list must be a list of move strings or Positions, "
                f"got {moves_list!r}: for one position, use get"
            )
        moves_list = list(moves_list)
        if self.board.is_wide and len(moves_list) >= _LARGE:
            return self._in_key_order(moves_list)
        if len(moves_list) < _LARGE or set(map(type, moves_list)) != {str}:
            return [self.get(m) for m in moves_list]
        texts = cast("list[str]", moves_list)  # (every one a str: checked just above)
        plies = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        if self._bulk_compiled and len(texts) >= _BULK and self.board not in _loaded:
            _load_kernels(self.board)
        kernels = _kernels()
        if kernels is not None:
            # One byte a character ("replace" keeps it so): the strings' ends are the plies'.
            keys, usable = kernels.keys_of_many(
                self.board, "".join(texts).encode("ascii", "replace"), np.cumsum(plies)
            )
        else:
            current, mask, usable = self._walk.boards_of_many(texts)
            keys = current + mask
        found, _, scores, best, flips, packed = self._plies.find_many(
            keys, plies, compiled=kernels is not None
        )
        hits = np.flatnonzero(found & usable)
        plies, flips, packed = plies[hits], flips[hits], packed[hits]
        scores = scores[hits].astype(np.int64)
        # Best moves in the asker's orientation: the table of either orientation.
        best_moves = list(
            map(
                self._codes.best_of.__getitem__,
                (best[hits] + flips.astype(np.int64) * (1 << self.board.width)).tolist(),
            )
        )
        with _collector_paused():
            got: list[BookEntry | None] = list(
                map(
                    new_entry,
                    repeat(BookEntry),
                    zip(
                        [moves_list[i] for i in hits.tolist()]
                        if len(hits) < len(moves_list)
                        else moves_list,
                        plies.tolist(),
                        scores.tolist(),
                        np.sign(scores).tolist(),
                        best_moves,
                        self._move_scores_many(plies, packed, flips),
                        repeat(self.board),
                    ),
                )
            )
        if len(hits) == len(moves_list):
            return got
        entries: list[BookEntry | None] = [None] * len(moves_list)
        for i, entry in zip(hits.tolist(), got, strict=True):
            entries[i] = entry
        for i in np.flatnonzero(~(found & usable)).tolist():
            entries[i] = self.get(moves_list[i])  # a miss or an odd string: checked one by one
        return entries

    def _in_key_order(self, moves_list: list) -> list[BookEntry | None]:
        """``get`` of each, in the order of their plies and canonical keys, so that each block
        is read once while its neighbours are asked (past 64 bits: numpy's walk takes keys
        of one word); a string that is not a game sorts first, and ``get`` says why."""
        board, walk = self.board, self._walk

        def place(moves) -> tuple[int, int]:
            key = walk.key_of(moves) if type(moves) is str else getattr(moves, "key", None)
            if key is None:
                return -1, 0
            return len(moves) if type(moves) is str else moves.ply, min(key, board.mirror_bits(key))

        order = sorted(range(len(moves_list)), key=lambda i: place(moves_list[i]))
        entries: list[BookEntry | None] = [None] * len(moves_list)
        for i in order:
            entries[i] = self.get(moves_list[i])
        return entries

    def _move_scores_many(self, plies: np.ndarray, packed: np.ndarray, flips: np.ndarray) -> list:
        """Each found position's move scores (a tuple, ``None`` at a ply without them), in
        the asker's orientation, from its ply and its packed move scores (canonical)."""
        move_scores = np.full(len(plies), None, dtype=object)
        width = self.board.width
        asked = np.flatnonzero(np.bincount(plies)).tolist()  # (np.unique loads numpy.ma: 40 ms)
        for ply in self._plies.parents.intersection(asked):
            at = np.flatnonzero(plies == ply)
            part = np.where(flips[at, None], packed[at, ::-1], packed[at])
            # The columns of scores zipped into rows: the tuples are made in C.
            rows = zip(*(SCORE_OBJECTS[part[:, col]].tolist() for col in range(width)), strict=True)
            move_scores[at] = np.fromiter(rows, dtype=object, count=len(at))
        return move_scores.tolist()

    # -- canonical keys ----------------------------------------------------
    def entries_of_keys(self, keys: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
        """``(keys, scores, best-move bits)`` of the canonical ``keys`` the book holds,
        in the canonical orientation (bit c: column c + 1), sorted by key."""
        found: tuple[list[int], list[int], list[int]] = ([], [], [])
        keys = sorted(set(map(int, keys)))
        if self.board.is_wide:
            plies = [stones_of(key, self.board) for key in keys]
        else:
            _, masks = self._walk.boards_of_keys(np.array(keys, dtype=np.uint64))
            plies = [mask.bit_count() for mask in masks.tolist()]
        for key, ply in zip(keys, plies, strict=True):
            code = self._plies.find(key, ply)
            if code is None:
                continue
            if isinstance(code, tuple):
                code = code[0]
            found[0].append(key)
            found[1].append((code >> self.board.width) - SCORE_OFFSET)
            found[2].append(code & self._codes.all_best)
        return found

    # -- the whole book ----------------------------------------------------
    def __contains__(self, moves: str | Position) -> bool:
        return self.get(moves) is not None

    def __len__(self) -> int:
        return sum(self.count_by_ply().values())

    def count_by_ply(self) -> dict[int, int]:
        return self._plies.count_by_ply()

    def score_counts(self) -> dict[int, dict[int, int]]:
        """``{ply: {wdl: count}}`` over the whole book."""
        return self._plies.score_counts()

    def entries(self, ply: int | Iterable[int] | None = None) -> Iterator[BookEntry]:
        """Every position the book stores, or those of ``ply`` (a ply or a range): a
        ``BookEntry`` each, ply by ply in key order, one of each mirror pair, its ``moves``
        the smallest move string that reaches it.  Streams, a slice of a ply at a time
        (``scan``); a ``PlyError`` names a ply the book lacks.

            for entry in book.entries(ply=10): ...
        """
        return scan.entries(self, ply)

    def slice_of(
        self, ply: int, start: int, end: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The ``start``-th to ``end``-th positions of ``ply`` in key order, as arrays:
        ``(keys, scores, best-move bits, packed move scores)``.  The best moves are ``None``
        where the book keeps none (a ply sealed above the last, without the ply below), the
        move scores but at a ply whose children the book holds (``format.scores``)."""
        return self._plies.slice_of(ply, start, end)

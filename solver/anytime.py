"""``AnytimeSearch``: the best move found within a time or node budget.

An exact solve of a position past the opening can take seconds.  Within a
budget the search protects the game's result first, then improves the move:

1. **Weak search.**  Up to ``WEAK_END`` of the budget on the [-1;1]
   search, far cheaper than the exact score: it says whether the position is
   won, drawn or lost.
2. **Null-window checks of the candidate moves**, best-looking first, with
   node caps that grow eightfold per pass (the table keeps what each pass
   proved, so the passes cost little more than the last one): a move that
   keeps the known result, or, when the result is unknown, a winning move, a
   drawing one, and the moves that lose.
3. **The exact score**, if time is left: the strong search inside the sign's
   interval, then one null-window test per move for a best move.
4. **Iterative deepening** alpha-beta with a depth cutoff and the static
   evaluation of ``_evaluate`` (threats with row parity, open lines, centre),
   over the moves not proven to lose, when no move is yet known to keep the
   result.  Its leaves read the exact solver's table, its static bounds
   (claimeven, dead lines) and the caller's known scores (book entries).
5. **The chosen move checked**: one null-window test of whether it throws
   the result away (loses, or with a known win, does not win).  A refuted
   move is dropped, the evaluation picks among the rest, and so on: a proof
   about the one move to be played is far cheaper than proofs about all.

On a board past 64 bits (``Board.is_wide``) the evaluation search is
``wide._evaluate``, the same kernels over two words, as ``Solver`` plays
``wide._search``; the caller's known scores (one-word book keys) are none.

Never does it play a move that loses at once while another does not.  Once
the position is proven won -- by its own weak search, or by an earlier proof
the caller passes on (``low >= 1`` with ``keep_win``) -- it plays only a move
proven to win, and finds one past the budget if need be: that is cheap, since
the proof of the win went through it and the solver's table still holds it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _evaluate as ev
from .alarm import Alarm
from .bitboard import Board
from .budget import BudgetClock
from .engine import Solver, kernel_args
from .errors import ArgumentError, GameOverError
from .position import Position, position_on

# Checkpoints, as shares of the budget, tuned with scripts/bench_anytime.py:
# the evaluation search alone keeps the result in most positions, so the
# exact steps get only what it can spare.
WEAK_END = 0.20  # the weak search, when the result is unknown
PROBE_END = 0.30  # then probing each move's result
CHECK_END = 0.60  # with the result known: finding a move that keeps it
EXACT_END = 0.65  # the exact score, when no move keeping the result is known yet
DEEPEN_END = 0.70  # the evaluation search, when its move is to be checked after
VERIFY_EVAL_NODES = 20_000  # cap of the evaluation that picks the next move after a refuted one
LAST_END = 0.95  # everything; the rest is margin for answering
FIRST_CAP = 2_000  # nodes per candidate check in the first pass
ORDER_DEPTH = 4  # depth of the evaluation that orders the candidates
ORDER_NODES = 5_000  # and its cap
EVAL_TABLE_LOG2 = 18  # the evaluation search's own table: 2**18 entries, 4 MiB
NO_KNOWN = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64))


class AnytimeAnswer(NamedTuple):
    """A move and what is proven about it.

    ``score`` is the position's exact score when proven; ``result`` its
    proven sign (1 won, 0 drawn, -1 lost) when known; ``proven`` says the
    column is exactly optimal, ``keeps_result`` that it keeps ``result``;
    ``depth`` is the deepest evaluation search completed (0: none was needed).
    """

    column: int
    score: int | None
    result: int | None
    proven: bool
    keeps_result: bool
    depth: int
    nodes: int


class AnytimeSearch:
    """The anytime player's search; keeps the solver's and its own tables across moves.

    ``AnytimeSearch(Solver()).choose(Position.from_moves("4453"), seconds=0.02)``

    Threads may share it: its searches take the solver's lock, so they run one
    at a time (the solver's limit and its own scratch serve one search).
    """

    def __init__(self, solver: Solver | None = None, eval_table_log2: int = EVAL_TABLE_LOG2):
        self.solver = solver if solver is not None else Solver()
        self.board = board = self.solver.board
        self._ev = _kernels(board)
        # np.full, not np.zeros: pages are touched now, not in the first timed search.
        # A wide board's table keeps a key's two words (``wide._evaluate``).
        key_words = 2 if board.is_wide else 1
        self._tt_keys = np.full(key_words << eval_table_log2, 0, dtype=np.uint64)
        self._tt_data = np.full(1 << eval_table_log2, 0, dtype=np.uint64)
        self._scratch = np.zeros(self._ev.scratch_size(board), dtype=np.uint64)
        self._alarm = Alarm()
        # The leaves read the solver's proofs: its big table, and the near table in its scratch.
        self._table, self._near, self._shift = self.solver.search_tables()
        # Load (or compile) every kernel now, so that no budget pays for it.
        middle = str(board.column_order[0] + 1)
        warm = Position.from_moves(middle * board.height + str(board.column_order[1] + 1), board)
        self.evaluate_moves(warm, 2)
        if board.is_wide:  # a search of ``warm`` would take minutes there
            self.solver.load_kernels()
        else:
            self.solver.solve_window(warm.play(board.column_order[1] + 1), -1, 1)

    def __repr__(self) -> str:
        return f"AnytimeSearch({self.solver!r})"

    def _bits(self, flags: int) -> list[int]:
        """The columns (from 1) whose bits are set in ``flags``."""
        return [col + 1 for col in range(self.board.width) if flags >> col & 1]

    def _centre_first(self, columns) -> list[int]:
        return [col + 1 for col in self.board.column_order if col + 1 in columns]

    def _known(self, known) -> tuple:
        """``known`` as the evaluation kernels take it: none on a wide board."""
        if not self.board.is_wide:
            return known
        if len(known[0]):
            raise ArgumentError(
                f"known scores take one-word keys: none on board {self.board}, got {len(known[0])}"
            )
        return ()

    def _columns(self, kernel, position: Position) -> list[int]:
        """The columns (from 1) that ``kernel`` (``safe_columns``, ``winning_columns``) finds."""
        return self._bits(kernel(self.board, *kernel_args(self.board, position)[:2]))

    # -- the evaluation search -----------------------------------------------
    def evaluate_moves(
        self,
        position: Position,
        depth: int,
        columns=None,
        known=NO_KNOWN,
        node_limit: int | None = None,
    ) -> dict[int, int]:
        """Evaluation-search values (see ``_evaluate``) of moves (1-7), ``depth`` plies deep.

        Only moves that cannot be answered by an immediate win are searched;
        values after the first are upper bounds once they fall below the best.
        Fewer moves come back if ``node_limit`` or the clock stopped the search.
        """
        cols = list(columns or self._centre_first(self._columns(self._ev.safe_columns, position)))
        if not cols:
            return {}
        known = self._known(known)
        with self.solver.lock:  # (see the class)
            values = np.zeros(len(cols), dtype=np.int64)
            scratch = self._scratch
            scratch[ev.STOPPED] = 0
            scratch[ev.LIMIT] = 0 if node_limit is None else scratch[ev.NODES] + max(1, node_limit)
            done = self._ev.root_values(
                self.board,
                *kernel_args(self.board, position),
                depth,
                np.array([c - 1 for c in cols], dtype=np.int64),
                values,
                self._tt_keys,
                self._tt_data,
                self._table,
                self._near,
                self._shift,
                *known,
                scratch,
            )
            scratch[ev.LIMIT] = scratch[ev.STOPPED] = 0
            return {cols[i]: int(values[i]) for i in range(done)}

    def move_values(self, position: Position, depth: int) -> dict[int, int]:
        """Every legal move's value (column: value), each searched ``depth`` plies deep in full.

        A move that wins at once, or lets the opponent win at once, gets its
        proven value.
        """
        ply = position.ply
        wins = self._columns(self._ev.winning_columns, position)
        safe = self._columns(self._ev.safe_columns, position)
        values = {}
        for col in position.legal_moves():
            if col in wins:
                values[col] = ev.BIG + self.board.win_score(ply)
            elif col not in safe:
                values[col] = -ev.BIG - self.board.win_score(ply + 1)
            else:
                values[col] = self.evaluate_moves(position, depth, [col])[col]
        return values

    # -- the anytime move ----------------------------------------------------
    def choose(
        self,
        position: Position,
        seconds: float | None = None,
        nodes: int | None = None,
        low: int | None = None,
        high: int | None = None,
        known=NO_KNOWN,
        keep_win: bool = True,
        started: float | None = None,
    ) -> AnytimeAnswer:
        """The best move found within ``seconds`` and/or ``nodes``.

        ``low``/``high`` are bounds on the position's score the caller already
        knows (from a book, or an earlier proof); ``known`` is a pair of arrays,
        sorted canonical keys and their exact scores, for the search's leaves.
        With ``keep_win``, a position known to be won (``low >= 1``) is answered
        with a move proven to win, past the budget if need be: right for a win
        the caller proved itself, whose proof the solver's table still holds.
        ``started`` (``time.perf_counter()``) is when the budget began (default: now).
        """
        if seconds is None and nodes is None:
            raise ArgumentError("an anytime search needs a budget: seconds, nodes or both")
        board = self.board
        position_on(position, board, "this search plays")
        if position.is_game_over:
            raise GameOverError(
                f"the game is over after {position.moves!r}: no move to play", position.moves
            )
        low = -board.cells if low is None else low
        high = board.cells if high is None else high
        ply = position.ply
        wins = self._columns(self._ev.winning_columns, position)
        if wins:
            return AnytimeAnswer(
                self._centre_first(wins)[0], board.win_score(ply), 1, True, True, 0, 0
            )
        safe = self._centre_first(self._columns(self._ev.safe_columns, position))
        if not safe:  # every move loses at once: block one threat, lose a move later
            return AnytimeAnswer(
                self._centre_first(position.legal_moves())[0],
                board.loss_score(ply),
                -1,
                True,
                True,
                0,
                0,
            )
        with self.solver.lock:  # (see the class)
            clock = BudgetClock(self.solver, self._scratch, self._alarm, seconds, nodes, started)
            try:
                if len(safe) == 1:
                    return self._only_move(position, safe[0], clock, low, high)
                return self._choose(position, safe, clock, low, high, known, keep_win)
            finally:
                clock.disarm()

    def _only_move(self, position, column, clock, low, high) -> AnytimeAnswer:
        """The only move that does not lose at once is the best one; its score if time allows."""
        child = position.play(column)
        score = None
        if child.is_full:
            score = 0
        elif clock.phase(LAST_END):
            child_score = clock.solve(child, -high, -low)
            score = None if child_score is None else -child_score
        result = _result(low, high) if score is None else (score > 0) - (score < 0)
        return self._answer(column, score, result, True, result is not None, 0, clock)

    def _choose(self, position, safe, clock, low, high, known, keep_win) -> AnytimeAnswer:
        ply = position.ply
        low = max(low, self.board.loss_score(ply))
        high = min(high, self.board.win_score(ply))
        # A quick shallow evaluation orders the candidates for every later step.
        clock.phase(CHECK_END)
        order = self._ordered(position, safe, ORDER_DEPTH, known)

        # 1. the result
        result = _result(low, high)
        weak_proof = False  # the weak search proved the result: its proof is in the table
        if result is None and clock.phase(WEAK_END):
            result = clock.solve(position, max(low, -1), min(high, 1))
            weak_proof = result is not None

        # 2. candidate checks
        keeping: int | None = None  # a move proven to keep the result
        losing: set[int] = set()  # moves proven not to keep the result (or, unknown, to lose)
        drawing: int | None = None  # with the result unknown: a move proven to draw at least
        if result == 1:
            keeping = self._find(
                position,
                order,
                -1,
                clock,
                CHECK_END,
                losing=losing,
                must=weak_proof or (keep_win and low >= 1),
            )
        elif result == 0:
            keeping = self._find(position, order, 0, clock, CHECK_END, losing=losing)
            if keeping is not None:
                return self._answer(keeping, 0, 0, True, True, 0, clock)
        elif result is None:
            keeping, drawing = self._probe(position, order, clock, losing)
            if keeping is not None:
                result = 1

        # 3. the exact score
        score = None
        if result in (1, -1) and clock.phase(LAST_END if keeping is not None else EXACT_END):
            window = (max(low, 1), high) if result == 1 else (low, min(high, -1))
            score = clock.solve(position, *window)
            if score is not None:
                first = [keeping] if keeping is not None else []
                for col in first + [c for c in order if c != keeping]:
                    reached = self._reaches(position, col, score, clock)
                    if reached:
                        return self._answer(col, score, result, True, True, 0, clock)
                    if reached is None:
                        break
        if keeping is not None:
            return self._answer(keeping, score, result, False, True, 0, clock)
        if result == -1:
            losing = set()  # every move loses: play the one that resists best

        # 4. iterative deepening over the moves not proven to lose
        candidates = [c for c in order if c not in losing] or order
        verify = result != -1 and drawing is None and len(candidates) > 1
        need = -1 if result == 1 else 0  # the most a good move's child may score
        clock.phase(DEEPEN_END if verify else LAST_END)
        column, depth, value = self._deepen(position, candidates, known, clock)
        if value > ev.HEURISTIC_MAX:  # the evaluation search proved this move wins
            return self._answer(column, None, 1, False, True, depth, clock)
        # 5. the chosen move checked: does it throw the result away?
        first_choice = column
        while verify and clock.phase(LAST_END):
            keeps = self._child_at_most(position, column, need, clock)
            if keeps is None:
                break
            if keeps:
                if result is not None:  # it keeps the known result (a draw: exactly)
                    return self._answer(
                        column, 0 if result == 0 else None, result, result == 0, True, depth, clock
                    )
                drawing = column
                break
            candidates.remove(column)
            if not candidates:  # every move loses: the evaluation's choice resists best
                column, result = first_choice, -1
                break
            if len(candidates) == 1:
                column = candidates[0]
                continue
            values = self._counted_values(
                position,
                max(depth, 2),
                candidates,
                known,
                clock,
                clock.node_limit(VERIFY_EVAL_NODES),
            )
            if not values:
                column = candidates[0]
                continue
            column = max(values, key=lambda c: values[c])
        if drawing is not None:
            column = drawing  # a proven draw rather than an unproven hope
        return self._answer(column, score, result, False, result == -1, depth, clock)

    def _answer(self, column, score, result, proven, keeps, depth, clock) -> AnytimeAnswer:
        return AnytimeAnswer(column, score, result, proven, keeps, depth, clock.used)

    def _ordered(self, position, safe, depth, known) -> list[int]:
        # A few thousand nodes at most: not counted against the budget.
        values = self.evaluate_moves(position, depth, safe, known, node_limit=ORDER_NODES)
        return sorted(safe, key=lambda c: -values.get(c, -ev.INFINITY))

    def _find(self, position, order, target, clock, share, must=False, losing=None) -> int | None:
        """A move whose child scores at most ``target`` (child's view), by widening passes.

        ``must``: such a move exists (the position is proven won), so the
        search goes on past the budget until it has one.
        """
        cap, left = FIRST_CAP, list(order)
        while left:
            if not clock.phase(share):
                if not must:
                    return None
                clock.phase(None)
            for col in list(left):
                keeps = self._child_at_most(position, col, target, clock, cap)
                if keeps is None:
                    continue
                if keeps:
                    return col
                left.remove(col)
                if losing is not None:
                    losing.add(col)
            cap *= 8
        return None

    def _probe(self, position, order, clock, losing) -> tuple[int | None, int | None]:
        """With the result unknown: (a winning move, a drawing move), each or None.

        Moves proven to lose go into ``losing``.
        """
        cap, left, drawing = FIRST_CAP, list(order), None
        while left and clock.phase(PROBE_END):
            for col in list(left):
                child = position.play(col)
                r = 0 if child.is_full else clock.solve(child, -1, 1, cap)
                if r is None:
                    continue
                left.remove(col)
                if r < 0:
                    return col, drawing
                if r == 0 and drawing is None:
                    drawing = col
                elif r > 0:
                    losing.add(col)
            if clock.stopped:
                break
            cap *= 8
        return None, drawing

    def _reaches(self, position, col, score, clock) -> bool | None:
        """Whether ``col`` reaches the known exact ``score``; ``None`` when out of budget."""
        if position.is_winning_move(col):
            return self.board.win_score(position.ply) >= score
        return self._child_at_most(position, col, -score, clock)

    def _child_at_most(self, position, col, target, clock, cap=None) -> bool | None:
        """Whether ``col``'s child scores at most ``target`` (its own view): one
        null-window test; ``None`` when out of budget or ``cap``."""
        child = position.play(col)
        if child.is_full:
            return target >= 0
        r = clock.solve(child, target, target + 1, cap)
        return None if r is None else r <= target

    def _counted_values(self, position, depth, columns, known, clock, limit) -> dict[int, int]:
        """``evaluate_moves`` within ``limit`` nodes, counted against the clock."""
        before = int(self._scratch[ev.NODES])
        values = self.evaluate_moves(position, depth, columns, known, node_limit=limit)
        clock.used += int(self._scratch[ev.NODES]) - before
        return values

    def _deepen(self, position, candidates, known, clock) -> tuple[int, int, int]:
        """Iterative deepening: (best column, depth completed, its value)."""
        best, best_value, completed = candidates[0], -ev.INFINITY, 0
        order = list(candidates)
        empties = self.board.cells - position.ply
        for depth in range(2, empties + 1, 2):
            limit = clock.node_limit()
            if clock.stopped or (limit is not None and limit <= 0):
                break
            values = self._counted_values(position, depth, order, known, clock, limit)
            if not values:
                break
            top = max(values, key=lambda c: values[c])
            if len(values) == len(order):
                completed, best, best_value = depth, top, values[top]
            elif values[top] > values[order[0]] or top == order[0]:
                best, best_value = top, values[top]  # the first move was searched in full
            if len(values) < len(order) or abs(best_value) > ev.HEURISTIC_MAX:
                break
            order = [best] + [c for c in order if c != best]
        return best, completed, best_value


def _result(low: int, high: int) -> int | None:
    """The sign of a score known to lie in ``[low, high]``, if that fixes it."""
    return 1 if low >= 1 else -1 if high <= -1 else 0 if low >= 0 and high <= 0 else None


def _kernels(board: Board):
    """The evaluation kernels of ``board``: ``_evaluate``, or past 64 bits ``wide._evaluate``
    (loaded only by a process that plays such a board), as ``engine._kernels`` picks."""
    if board.is_wide:
        from .wide import _evaluate as wide

        return wide
    return ev

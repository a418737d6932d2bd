"""Tests for ``solver.engine.Solver`` against Pascal Pons' benchmark sets and a brute force.

The default run checks three whole sets and samples of two more (well under a
minute); ``-m slow`` runs all 6000 lines strong and weak plus the empty board.
"""

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import minimax, random_endgames, scores_by_children

from solver import (
    STANDARD,
    Board,
    BoardSizeError,
    C4Error,
    GameOverError,
    IllegalMoveError,
    Position,
    Solver,
)
from solver.bitboard import MAX_THREADS
from solver.errors import ArgumentError
from solver.position import random_position

DATA = Path(__file__).parent / "data"
SETS = {
    "Test_L3_R1": "End-Easy",
    "Test_L2_R1": "Middle-Easy",
    "Test_L2_R2": "Middle-Medium",
    "Test_L1_R1": "Begin-Easy",
    "Test_L1_R2": "Begin-Medium",
    "Test_L1_R3": "Begin-Hard",
}
DRAWN_GAME = "547125662261271266215743771576315353334444"  # full board, no four


def load(name):
    """The ``(moves, score)`` pairs of one benchmark set, in file order."""
    pairs = []
    for line in (DATA / name).read_text().splitlines():
        moves, score = line.split()
        pairs.append((moves, int(score)))
    assert len(pairs) == 1000
    return pairs


def sign(x):
    return (x > 0) - (x < 0)


def mismatches(solver, pairs, weak=False):
    """Lines whose answer differs from the file, as ``(moves, expected, got)``."""
    bad = []
    for moves, score in pairs:
        expected = sign(score) if weak else score
        got = solver.solve(Position.from_moves(moves), weak=weak)
        if got != expected:
            bad.append((moves, expected, got))
    return bad


@pytest.fixture(scope="module")
def solver():
    # One table for the whole module, as in Pons' benchmark: later lines reuse it.
    return Solver(table_log2=22)


@pytest.fixture(scope="module")
def end_easy():
    return load("Test_L3_R1")


@pytest.fixture(scope="module")
def middle_easy():
    return load("Test_L2_R1")


@pytest.fixture(scope="module")
def begin_easy():
    return load("Test_L1_R1")


@pytest.fixture(scope="module")
def sample(end_easy, middle_easy, begin_easy):
    """A mixed handful of positions with known scores, all quick to solve."""
    return end_easy[::50] + middle_easy[::50] + begin_easy[::100]


# -- exactness on the benchmark sets ------------------------------------------------


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L1_R1"])
def test_strong_whole_easy_sets(solver, name):
    assert mismatches(solver, load(name)) == []


@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R2"])
def test_strong_every_tenth_line_of_medium_sets(solver, name):
    pairs = load(name)[::10]
    assert len(pairs) == 100
    assert mismatches(solver, pairs) == []


BENCH = {"ply8-150.txt": 150, "ply10-random-200.txt": 200, "ply12-random-200.txt": 200}


def load_bench(name):
    """A bench file of book positions (tests/data/bench), in file order."""
    pairs = [
        (moves, int(score))
        for moves, score in (
            line.split() for line in (DATA / "bench" / name).read_text().splitlines()
        )
    ]
    assert len(pairs) == BENCH[name]
    return pairs


def test_strong_every_fourth_ply12_position(solver):
    assert mismatches(solver, load_bench("ply12-random-200.txt")[::4]) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BENCH))
def test_strong_all_bench_files(big_solver, name):
    assert mismatches(big_solver, load_bench(name)) == []


def test_weak_signs_begin_easy(solver, begin_easy):
    assert mismatches(solver, begin_easy, weak=True) == []


def test_small_table_still_exact(end_easy, middle_easy):
    # 1024 slots: constant replacement must cost time, never correctness.
    tiny = Solver(table_log2=10)
    assert mismatches(tiny, end_easy[::5] + middle_easy[::10]) == []


@pytest.fixture(scope="module")
def big_solver():
    return Solver(table_log2=24)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETS))
def test_strong_all_sets(big_solver, name):
    assert mismatches(big_solver, load(name)) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETS))
def test_weak_all_sets(big_solver, name):
    assert mismatches(big_solver, load(name), weak=True) == []


@pytest.mark.slow
def test_empty_board(big_solver):
    # Known since Allis (1988): the first player wins, only by starting in the centre.
    empty = Position()
    assert big_solver.analyze(empty) == [-2, -1, 0, 1, 0, -1, -2]
    assert big_solver.solve(empty) == 1
    assert big_solver.solve(empty, weak=True) == 1


# -- a brute force to compare with --------------------------------------------------


def minimax_analyze(p):
    return scores_by_children(p, minimax)


@pytest.fixture(scope="module")
def endgames(end_easy):
    """End-Easy lines with at most 12 empty cells plus random play-outs."""
    from_file = [Position.from_moves(m) for m, _ in end_easy[::5] if len(m) >= 30]
    return from_file + random_endgames(200, seed=2024)


def test_minimax_agrees_with_file(end_easy):
    # The brute force itself must reproduce Pons' scores before it can judge the solver.
    pairs = [(m, s) for m, s in end_easy[::5] if len(m) >= 30]
    assert len(pairs) > 100
    assert [minimax(Position.from_moves(m)) for m, _ in pairs] == [s for _, s in pairs]


def test_solve_matches_minimax(solver, endgames):
    expected = [minimax(p) for p in endgames]
    assert [solver.solve(p) for p in endgames] == expected
    assert [solver.solve(p, weak=True) for p in endgames] == [sign(s) for s in expected]
    # The random positions cover wins, draws and losses.
    assert {sign(s) for s in expected} == {-1, 0, 1}


def test_solve_matches_minimax_with_fresh_table(endgames):
    fresh = Solver(table_log2=12)
    assert [fresh.solve(p) for p in endgames[::3]] == [minimax(p) for p in endgames[::3]]


def test_analyze_matches_minimax(solver, endgames):
    for p in endgames[::4]:
        assert solver.analyze(p) == minimax_analyze(p), p.moves


# -- analyze and self-consistency ---------------------------------------------------


def test_analyze_is_children_scores(solver, sample):
    for moves, score in sample:
        p = Position.from_moves(moves)
        expected = scores_by_children(p, solver.solve)
        scores = solver.analyze(p)
        assert scores == expected, moves
        # score(P) = max over moves of -score(child)
        assert max(s for s in scores if s is not None) == score == solver.solve(p), moves


def test_analyze_marks_full_columns(solver):
    # An End-Easy line whose columns 4 and 6 are full; its file score is 2.
    p = Position.from_moves("427566236745127177115664464254")
    assert solver.analyze(p) == [2, 2, 1, None, 2, None, 2]
    assert solver.solve(p) == 2


def test_analyze_accepts_move_string(solver):
    p = "427566236745127177115664464254"
    assert solver.analyze(p) == solver.analyze(Position.from_moves(p))


# -- symmetry --------------------------------------------------------------------------


def test_mirror_symmetry(solver, end_easy, middle_easy, begin_easy):
    for moves, score in end_easy[::50] + middle_easy[::25] + begin_easy[::10]:
        p = Position.from_moves(moves)
        assert solver.solve(p.mirror()) == score, moves
    # analyze of Begin-Easy lines explores bad moves with long games: keep to later plies.
    for moves, _ in end_easy[::50] + middle_easy[::25]:
        p = Position.from_moves(moves)
        assert solver.analyze(p.mirror()) == solver.analyze(p)[::-1], moves


# -- windows, negamax, best moves ------------------------------------------------------


def clamp(x, low, high):
    return min(max(x, low), high)


def test_solve_window_clamps(solver, sample):
    for moves, score in sample:
        p = Position.from_moves(moves)
        windows = [
            (-42, 42),
            (-1, 1),
            (0, 0),
            (score, score),
            (score - 1, score + 1),
            (score + 1, score + 5),
            (score - 5, score - 1),
            (-30, -25),
            (25, 30),
            (-3, 2),
            (3, 3),
            (-18, -18),
            (18, 18),
        ]
        for low, high in windows:
            assert solver.solve_window(p, low, high) == clamp(score, low, high), (moves, low, high)


def test_solve_window_on_immediate_win(solver):
    p = Position.from_moves("121212")  # the first player wins at once in column 1
    assert solver.solve(p) == 18
    assert solver.solve_window(p, -5, 5) == 5
    assert solver.solve_window(p, 19, 30) == 19
    assert solver.solve(p, weak=True) == 1


def test_solve_window_rejects_empty_window(solver):
    with pytest.raises(ArgumentError, match=r"empty window \[2; 1\]"):
        solver.solve_window("4453", 2, 1)


def check_fail_soft(r, score, alpha, beta):
    """What ``negamax``'s docstring promises about its result ``r``."""
    if r <= alpha:
        return score <= r
    if r >= beta:
        return score >= r
    return score == r


def test_negamax_fail_soft(solver, sample):
    for moves, score in sample:
        p = Position.from_moves(moves)
        windows = [(a, a + 1) for a in range(-8, 8)]
        windows += [
            (-42, 42),
            (-3, 3),
            (score - 2, score + 2),
            (score, score + 1),
            (score - 1, score),
            (score + 3, score + 9),
            (score - 9, score - 3),
        ]
        for alpha, beta in windows:
            r = solver.negamax(p, alpha, beta)
            assert check_fail_soft(r, score, alpha, beta), (moves, alpha, beta, r)
        # A window wide open on both sides leaves no room to fail: the exact score.
        assert solver.negamax(p, -42, 42) == score


def test_negamax_fail_soft_fresh_table(endgames):
    fresh = Solver(table_log2=12)
    for p in endgames[::5]:
        score = minimax(p)
        for alpha in range(-6, 6):
            fresh.clear()
            r = fresh.negamax(p, alpha, alpha + 1)
            assert check_fail_soft(r, score, alpha, alpha + 1), (p.moves, alpha, r)


def test_negamax_immediate_win_and_bad_window(solver):
    assert solver.negamax("121212", -1, 1) == 18
    with pytest.raises(ArgumentError, match="empty window"):
        solver.negamax("4453", 1, 1)


def test_is_best_move_agrees_with_analyze(solver, sample):
    for moves, score in sample:
        p = Position.from_moves(moves)
        scores = solver.analyze(p)
        assert [solver.is_best_move(p, c, score) for c in range(1, 8)] == [
            s == score for s in scores
        ], moves
        # Each move reaches its own score and no more.
        for col, s in enumerate(scores, start=1):
            if s is not None:
                assert solver.is_best_move(p, col, s), (moves, col)
                assert not solver.is_best_move(p, col, s + 1), (moves, col)


def test_is_best_move_edge_cases(solver):
    assert solver.is_best_move("121212", 1, 18)  # winning now
    assert not solver.is_best_move("121212", 2, 18)
    assert not solver.is_best_move("444444", 4, -42)  # full column
    assert not solver.is_best_move("444444", 8, -42)  # off the board
    last = Position.from_moves(DRAWN_GAME[:-1])  # the last move fills the board
    assert solver.solve(last) == 0
    assert solver.is_best_move(last, 4, 0)
    assert not solver.is_best_move(last, 4, 1)
    assert solver.analyze(last) == [None, None, None, 0, None, None, None]


# -- regression: the empty board's key is 0 ----------------------------------------------


def test_empty_board_not_confused_with_empty_slot():
    # key = current + mask is 0 for the empty board, the same as an unused
    # table slot; reading that slot as an entry gave an upper bound of -19.
    fresh = Solver(table_log2=16)
    assert fresh.solve_window(Position(), -19, -18) == -18
    fresh.clear()
    assert fresh.negamax(Position(), -10, -9) >= -9


# -- node counter and table ----------------------------------------------------------------


def test_node_counter(solver, middle_easy):
    solver.reset_nodes()
    assert solver.nodes == 0
    solver.solve(middle_easy[0][0])
    first = solver.nodes
    assert first > 0
    solver.solve(middle_easy[1][0])
    assert solver.nodes > first
    solver.reset_nodes()
    assert solver.nodes == 0


def test_node_counts_exact(solver):
    solver.reset_nodes()
    # The player to move wins at once: no search at all.
    assert solver.solve("121212") == 18
    assert solver.nodes == 0
    # The opponent threatens columns 1 and 5: one node proves the loss.
    assert solver.solve("627364") == -18
    assert solver.nodes == 1


def test_clear_empties_table():
    s = Solver(table_log2=18)
    moves, expected = load("Test_L2_R2")[0]
    p = Position.from_moves(moves)
    assert s.solve(p) == expected
    cold = s.nodes
    s.reset_nodes()
    assert s.solve(p) == expected
    warm = s.nodes
    assert warm < cold  # the table remembered the first search
    s.clear()
    s.reset_nodes()
    assert s.solve(p) == expected
    assert s.nodes == cold  # same search as from a new table, node for node


def test_fork_shares_the_table_but_counts_its_own_nodes():
    s = Solver(table_log2=18)
    moves, expected = load("Test_L2_R2")[0]
    assert s.solve(moves) == expected
    twin = s.fork()
    assert repr(twin) == repr(s) and twin.nodes == 0
    assert twin.solve(moves) == expected
    assert 0 < twin.nodes < s.nodes  # it found the first search's bounds in the shared table
    twin.set_node_limit(1)
    assert s.solve(moves) == expected  # a fork's limit does not stop its parent
    twin.clear()  # one table: clearing it through either clears it for both
    s.reset_nodes()
    assert s.solve(moves) == expected and s.nodes > twin.nodes


def test_forks_in_parallel_threads_stay_exact(middle_easy):
    from concurrent.futures import ThreadPoolExecutor

    # 2048 slots for two threads: constant concurrent overwrites of each other's entries.
    first = Solver(table_log2=11)
    solvers = [first, first.fork()]
    pairs = load("Test_L2_R2")[::20] + middle_easy[::10]

    def run(half):
        solver, chunk = half
        return mismatches(solver, chunk)

    with ThreadPoolExecutor(2) as pool:
        bad = list(pool.map(run, [(solvers[0], pairs[0::2]), (solvers[1], pairs[1::2])]))
    assert bad == [[], []]


# -- several threads on one position -----------------------------------------------------


def test_threads_give_the_same_exact_scores():
    # Begin-Medium lines take far more nodes than a thread's solo start, so
    # these positions are really raced by two threads sharing one table.
    pairs = load("Test_L1_R2")[:12:3] + load("Test_L2_R2")[:40:10]
    one, two = Solver(table_log2=20), Solver(table_log2=20, threads=2)
    assert mismatches(one, pairs) == [] and mismatches(two, pairs) == []
    assert mismatches(two, pairs, weak=True) == []
    assert two.nodes > 0 and two._helpers  # the race ran: helper threads exist
    assert not two._busy.any()  # every thread unmarked each node it left


def test_a_child_another_thread_searches_is_put_off_not_skipped(begin_easy):
    import numpy as np

    from solver import STANDARD as B
    from solver import _search
    from solver._bits import winning_cells
    from solver._key import table_key
    from solver._table import new_table

    # Mark each child in turn as "being searched by another thread": the
    # search must put it off, still search it, and give the lone answer.
    deferred_somewhere = False
    for moves, score in begin_easy[:40:4]:
        position = Position.from_moves(moves)
        assert position.ply < B.cells - _search.BUSY_EMPTIES
        if any(position.is_winning_move(col) for col in range(1, 8)):
            continue
        current, mask = np.uint64(position.current), np.uint64(position.mask)
        args = (
            B,
            current,
            mask,
            position.ply,
            score - 1,
            score + 1,
            np.uint64(winning_cells(B, current ^ mask, mask)),
        )
        alone_scratch = np.zeros(_search.scratch_size(B), dtype=np.uint64)
        alone = _search.negamax(*args, new_table(16), alone_scratch, np.uint64(48), None)
        assert alone == score
        for col in position.legal_moves():
            child = position.play(col)
            if child.is_game_over:
                continue
            busy = np.zeros(1 << _search.BUSY_LOG2, dtype=np.uint64)
            key, _ = table_key(B, np.uint64(child.current), np.uint64(child.mask))
            slot = _search.busy_slot(key)
            busy[slot] = key
            scratch = np.zeros(_search.scratch_size(B), dtype=np.uint64)
            assert _search.negamax(*args, new_table(16), scratch, np.uint64(48), busy) == score
            deferred_somewhere |= scratch[_search.NODES] != alone_scratch[_search.NODES]
            # Each node searched unmarked itself on leaving; the other thread's mark may stay.
            assert busy[slot] in (0, key) and np.count_nonzero(busy) <= 1
    assert deferred_somewhere  # a put-off child changed the order, so the count


def test_threads_with_a_tiny_table_stay_exact():
    # 1024 slots for two threads racing: constant overwrites of each other's entries.
    two = Solver(table_log2=10, threads=2)
    pairs = load("Test_L1_R2")[1:3]
    assert mismatches(two, pairs) == []
    assert [two.analyze(m) for m, _ in pairs] == [
        Solver(table_log2=16).analyze(m) for m, _ in pairs
    ]


def test_threads_respect_a_node_limit():
    from solver import SearchLimitError

    two = Solver(table_log2=16, threads=2)
    two.set_node_limit(1000)
    with pytest.raises(SearchLimitError):
        two.solve(load("Test_L1_R3")[0][0])
    two.set_node_limit(None)
    moves, expected = load("Test_L2_R2")[0]
    assert two.solve(moves) == expected


def test_threads_argument():
    from solver.engine import machine_threads

    assert Solver(table_log2=10, threads=None).threads == machine_threads() >= 1
    assert repr(Solver(table_log2=10, threads=2)) == "Solver(table_log2=10, threads=2)"
    for bad in (0, -1, 1.5, True, "2", MAX_THREADS + 1, 10**6):
        with pytest.raises(
            ArgumentError,
            match=f"threads must be a whole number from 1 to {MAX_THREADS}, got {bad!r}",
        ):
            Solver(table_log2=10, threads=bad)
    assert issubclass(ArgumentError, C4Error) and issubclass(ArgumentError, ValueError)


def test_kernels_release_the_gil():
    from solver import _search

    # Without this, a worker's solver threads would take turns instead of running at once.
    assert _search.solve_window.targetoptions["nogil"] and _search.negamax.targetoptions["nogil"]


def test_repr_and_table_size():
    assert repr(Solver(table_log2=10)) == "Solver(table_log2=10)"
    for bad in (9, 33, "20", 20.0, None):
        with pytest.raises(ArgumentError, match=f"table_log2 must be in 10..32, got {bad!r}"):
            Solver(table_log2=bad)


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("moves", ["1212121", DRAWN_GAME])
def test_finished_game_raises(solver, moves):
    p = Position.from_moves(moves)
    for call in (
        lambda: solver.solve(p),
        lambda: solver.solve(p, weak=True),
        lambda: solver.solve_window(p, -1, 1),
        lambda: solver.negamax(p, -1, 1),
        lambda: solver.analyze(p),
        lambda: solver.is_best_move(p, 4, 0),
        lambda: solver.solve(moves),
    ):
        with pytest.raises(GameOverError, match="game is over"):
            call()


@pytest.mark.parametrize("bad", [42, None, 4.5, b"4453", ["4", "4"]])
def test_bad_type_raises(solver, bad):
    with pytest.raises(IllegalMoveError, match="expected a Position or a move string"):
        solver.solve(bad)
    with pytest.raises(IllegalMoveError):
        solver.analyze(bad)


def test_bad_move_string_raises(solver):
    with pytest.raises(IllegalMoveError, match=r"illegal move '8' at position 2 of '48'"):
        solver.solve("48")
    with pytest.raises(GameOverError):
        solver.solve("12121212")


# -- the window's driver ---------------------------------------------------------------


def probes_until_exact(score: int, lo: int, hi: int, board: Board = STANDARD) -> list[int]:
    """The values ``solve_window``'s driver tests, against a position of score
    ``score`` whose searches answer with the tightest fail-hard bound."""
    from solver._search import next_guess, next_test

    tested, guess = [], 0
    while lo < hi:
        med = next_test(board, lo, hi, guess)
        result = med + 1 if score > med else med
        guess = next_guess(board, lo, hi, med, result, guess)
        lo, hi = (result, hi) if result > med else (lo, result)
        tested.append(med)
    assert lo == score
    return tested


def test_the_driver_bisects_a_wide_window_then_steps_from_a_draw():
    # The empty board (score 1): halfway toward zero while the window is wide,
    # then from a draw: 0 and 1, where bisecting went on with 2, -1, 1, 0.
    assert probes_until_exact(1, -21, 21) == [-10, 10, -4, 5, 0, 1]
    assert probes_until_exact(0, -1, 1) == [0, -1]  # a weak solve of a draw
    assert probes_until_exact(-15, -21, 21) == [-10, -16, -13, -14, -15]  # lopsided: bisects
    assert probes_until_exact(1, 1, 21) == [11, 1]  # a win's strong solve
    for score in range(-21, 22):  # always exact, never long
        assert len(probes_until_exact(score, -21, 21)) <= 12


def test_the_driver_steps_from_a_draw_sooner_on_boards_four_wide_or_high():
    # The empty 4x10 board (a draw): after the two wide tests, the window
    # [-9, 10] is narrow enough on width 4 to step from a draw, with no test at -4.
    wide = Board.parse("4x10")
    assert probes_until_exact(0, -20, 20, wide) == [-10, 10, 0, -1]
    # The empty 8x4 board (-1): likewise four high, with no test at -3.
    assert probes_until_exact(-1, -16, 16, Board(8, 4)) == [-8, 8, 0, -1, -2]
    assert probes_until_exact(-1, -16, 16) == [-8, 8, -3, 0, -1, -2]  # as on 7x6
    assert probes_until_exact(0, -20, 20) == [-10, 10, -4, 5, 0, -1]  # as on 7x6
    assert probes_until_exact(-15, -20, 20, wide) == [-10, -15, -18, -16]  # lopsided: bisects
    for score in range(-20, 21):  # always exact, never long
        assert len(probes_until_exact(score, -20, 20, wide)) <= 12


# -- other boards: every size exact ------------------------------------------------


def every_position(board):
    """Every unfinished position of ``board`` reachable by play, one per key: for small boards."""
    found, stack = {}, [Position(board)]
    while stack:
        p = stack.pop()
        if p.key in found:
            continue
        found[p.key] = p
        stack.extend(
            child for child in (p.play(c) for c in p.legal_moves()) if not child.is_game_over
        )
    return list(found.values())


@pytest.fixture(scope="module")
def four_by_four():
    return every_position(Board(4, 4))


def test_every_4x4_position_is_exact(four_by_four):
    """Every position of the 4x4 board, strong and weak, against plain minimax."""
    assert len(four_by_four) == 134_289
    solver = Solver(board="4x4", table_log2=16)
    expected = {p.key: minimax(p) for p in four_by_four}
    assert minimax(Position("4x4")) == 0  # a draw: 4x4 ends full
    for p in four_by_four:
        assert solver.solve(p) == expected[p.key], p.moves
    for p in four_by_four[::7]:
        assert solver.solve(p, weak=True) == sign(expected[p.key]), p.moves
    assert {sign(s) for s in expected.values()} == {-1, 0, 1}


# One board of each kind (each compiles its kernels once, about 20-30 s cold): width 8 and
# keys of 64 bits, hashed in the table (8x7).  The slow run adds small (5x4), narrow and tall
# (4x9), width 8 with whole keys (8x5), keys of 56 bits (7x7), of 63 (9x6) and of 64 on
# width 4 (4x15).  Empty boards
# are solved whole, against the published table, in tests/test_solve_boards.py.
@pytest.mark.parametrize(
    "size",
    ["8x7"]
    + [
        pytest.param(size, marks=pytest.mark.slow)
        for size in ("5x4", "4x9", "8x5", "7x7", "9x6", "4x15")
    ],
)
def test_other_boards_match_minimax_past_the_middle(size):
    """Random positions of every kind of board (keys stored whole, and too wide for the table's
    word: 7x7 and wider), at depths where plain minimax still finishes."""
    board = Board.parse(size)
    solver = Solver(board=board, table_log2=18)
    positions = random_endgames(40, seed=board.cells, min_empty=4, max_empty=11, board=board)
    expected = [minimax(p) for p in positions]
    assert [solver.solve(p) for p in positions] == expected
    assert [solver.solve(p, weak=True) for p in positions] == [sign(s) for s in expected]
    for p in positions[:8]:
        assert solver.analyze(p) == scores_by_children(p, minimax), p.moves


# 4x4's kernels are compiled by the test above; 4x8 and 4x10 each compile their own (30 s).
@pytest.mark.parametrize(
    "size", ["4x4", *(pytest.param(size, marks=pytest.mark.slow) for size in ("4x8", "4x10"))]
)
def test_width_four_child_bounds_stay_exact(size):
    """On width 4 a node bounds its children statically and narrows their windows
    (``_search.negamax``, step 2): strong, weak and fail-soft answers in every
    null window and a few wide ones must match plain minimax, with a fresh table
    for each window so that nothing is answered from an earlier search."""
    board = Board.parse(size)
    positions = random_endgames(30, seed=board.cells + 1, min_empty=8, max_empty=13, board=board)
    solver = Solver(board=board, table_log2=14)
    for p in positions:
        score = minimax(p)
        assert solver.solve(p) == score, p.moves
        assert solver.solve(p, weak=True) == sign(score), p.moves
        for alpha, beta in [(a, a + 1) for a in range(-4, 4)] + [(-3, 3), (-40, 40), (1, 6)]:
            solver.clear()
            r = solver.negamax(p, alpha, beta)
            assert check_fail_soft(r, score, alpha, beta), (p.moves, alpha, beta, r)
    # Two threads share the table, so a child's bounds may come from the other's entries.
    two = Solver(board=board, table_log2=14, threads=2)
    assert [two.solve(p) for p in positions[:10]] == [minimax(p) for p in positions[:10]]


def test_keys_are_handed_down_only_where_they_fit_a_shifted_word():
    """A width-4 parent hands each child its table key shifted left by one (with the
    orientation in bit 0): not on 4x15, whose keys take all 64 bits."""
    from solver._search import _hands_keys_down

    assert [_hands_keys_down(Board(4, h)) for h in (4, 10, 14, 15)] == [True] * 3 + [False]
    assert not _hands_keys_down(Board(7, 6)) and Board(4, 15).key_bits == 64


@pytest.mark.slow
def test_4x15_keys_past_2_63_stay_exact():
    """4x15 positions whose outer columns are full (keys of at least 2**63) at plies the
    enhanced transposition cutoff probes (46 and 47 of 60): the solver against minimax."""
    rng = random.Random(15)

    def outer_columns_full() -> Position | None:
        p = Position("4x15")
        for columns, ply in (((1, 4), 30), ((2, 3), rng.choice((46, 47)))):
            while p.ply < ply:
                column = rng.choice([c for c in columns if p.can_play(c)])
                if p.is_winning_move(column):
                    return None  # (a finished game: drawn again)
                p = p.play(column)
        return p

    positions: list[Position] = []
    while len(positions) < 20:
        if (p := outer_columns_full()) is not None:
            positions.append(p)
    assert all(p.canonical_key >= 1 << 63 for p in positions)
    solver = Solver(board="4x15", table_log2=18)
    for p in positions:
        assert solver.solve(p) == minimax(p), p.moves


def test_threads_and_a_fresh_solver_agree_on_another_board():
    board = Board(6, 5)
    one, two = Solver(board=board, table_log2=18), Solver(board=board, table_log2=18, threads=2)
    for moves in ("", "3", "34", "3443", "1122", "615243"):
        p = Position.from_moves(moves, board)
        assert one.solve(p) == two.solve(p) == Solver(board=board, table_log2=16).solve(p), moves


def test_a_solver_refuses_a_position_of_another_board():
    with pytest.raises(BoardSizeError, match="6x5 board; this solver plays 7x6"):
        Solver(table_log2=10).solve(Position.from_moves("4", "6x5"))
    # A move string is read on the solver's own board.
    assert Solver(board="4x4", table_log2=10).solve("1234") == minimax(
        Position.from_moves("1234", "4x4")
    )
    assert repr(Solver(board="6x5", table_log2=12)) == "Solver(table_log2=12, board='6x5')"


def test_wide_keys_need_a_table_whose_index_names_them():
    """On 7x7 and wider an entry keeps 48-49 bits of a 56-64-bit key: the bucket's index
    must give the rest, so tables smaller than that are refused."""
    with pytest.raises(ValueError, match=r"table_log2 must be in 16\.\.32 on 7x7"):
        Solver(board="7x7", table_log2=15)
    with pytest.raises(ValueError, match=r"in 17\.\.32 on 8x7"):
        Solver(board="8x7", table_log2=16)
    Solver(board="6x7", table_log2=10)  # 48-bit keys fit the entry whole


# -- one solver shared by threads ------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
def test_a_solver_shared_by_eight_threads_gives_each_the_lone_answer(threads):
    # Issue 48: 8 threads on one Solver(table_log2=22) gave 13 wrong scores in 80 (seed 5,
    # e.g. 22545622762661), each search writing over the others' node count and near table.
    rng = random.Random(5)
    positions = [random_position(rng, rng.randint(14, 23)) for _ in range(80)]
    lone = Solver(table_log2=22)
    alone = [(lone.solve(p), lone.solve(p, weak=True), lone.analyze(p)) for p in positions]
    shared = Solver(table_log2=22, threads=threads)

    def answers(position):
        return shared.solve(position), shared.solve(position, weak=True), shared.analyze(position)

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(answers, positions)) == alone

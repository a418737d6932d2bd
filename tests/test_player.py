"""``bookgen.play.player``: the AI, with the real small book and the real solver.

Best moves are checked against ``Solver.analyze``; whole games are played out
and must end exactly as the starting score says.
"""

import random
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import SMALL_PLY, SMALL_ROOT, book_moves

from bookgen import Book, BookNotFoundError, Decision, Player
from bookgen.limits import MAX_TIME_BUDGET
from bookgen.play.levels import LEVELS, LevelError
from solver import (
    C4Error,
    GameOverError,
    IllegalMoveError,
    Position,
    SearchLimitError,
    Solver,
    win_score,
)
from solver.errors import ArgumentError, ArgumentTypeError, BoardSizeError
from solver.position import random_position

DATA = Path(__file__).parent / "data"


def pons_lines(name: str, step: int, limit: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in (DATA / name).read_text().split("\n") if line.strip()]
    return [(moves, int(score)) for moves, score in lines[::step][:limit]]


END_EASY = pons_lines("Test_L3_R1", 41, 24)  # lines 1, 42, 83, ...: 24 positions
MIDDLE_EASY = pons_lines("Test_L2_R1", 97, 10)  # lines 1, 98, 195, ...: 10 positions


@pytest.fixture(scope="module")
def solver():
    solver = Solver(table_log2=20)
    solver.solve("4444443315")  # load the compiled kernels before anything is timed
    return solver


@pytest.fixture(scope="module")
def book(small_book_path):
    with Book.open(small_book_path) as opened:
        yield opened


def best_columns(solver: Solver, moves: str) -> tuple[int, set[int]]:
    scores = solver.analyze(Position.from_moves(moves))
    score = max(s for s in scores if s is not None)
    return score, {col for col, s in enumerate(scores, start=1) if s == score}


def play_out(moves: str, players: tuple[Player, Player]) -> tuple[Position, list]:
    """Both players alternate from ``moves`` to the end; players[0] moves first."""
    position = Position.from_moves(moves)
    start = position.ply
    decisions = []
    while not position.is_game_over:
        decision = players[(position.ply - start) % 2].choose(position)
        assert position.can_play(decision.column)
        decisions.append((position.ply, decision))
        position = position.play(decision.column)
    return position, decisions


def check_game(moves: str, score: int, final: Position, decisions: list) -> None:
    """The game ended as ``score`` (for the player to move at ``moves``) says."""
    start = len(moves)
    assert final.moves.startswith(moves)
    if score == 0:
        assert final.is_full and not final.is_won, final.moves
    else:
        assert final.is_won, final.moves
        winner_parity = (final.ply - 1) % 2  # ply before the winning move
        assert winner_parity == (start % 2 if score > 0 else 1 - start % 2), final.moves
        assert (final.ply + 1) // 2 == 22 - abs(score), final.moves  # winner's stone count
    # perfect play keeps the score: each decision's score is minus the previous one
    expected = score
    for ply, decision in decisions:
        assert decision.proven and decision.score == expected, (final.moves, ply)
        expected = -expected


# -- best moves ---------------------------------------------------------------


def test_best_move_from_the_book_is_a_best_move(book, solver, small_book_path):
    player = Player(book, table_log2=10)
    picked = [
        SMALL_ROOT,
        *book_moves(small_book_path, 9),
        *book_moves(small_book_path, 10)[::7],
        *book_moves(small_book_path, 11)[::23],
        *book_moves(small_book_path, SMALL_PLY)[::97],
    ]
    assert len(picked) >= 20
    for moves in picked:
        column = player.best_move(moves)
        assert column in best_columns(solver, moves)[1], moves
        assert player.last.source == "book" and player.last.proven
        assert player.last.score == book.get(moves).score


def test_root_answer_is_centre_most_of_the_best(book):
    # 2 and 5 both win with the 6th stone; the centre-most is 5.
    assert Player(book).best_move(SMALL_ROOT) == 5
    assert Player(book).best_move("44444455") == 3  # the mirror image


@pytest.mark.parametrize("moves, score", END_EASY[:8] + MIDDLE_EASY[:4])
def test_best_move_without_a_book(solver, moves, score):
    player = Player(None, table_log2=20)
    column = player.best_move(moves)
    expected_score, best = best_columns(solver, moves)
    assert expected_score == score
    assert 1 <= column <= 7 and column in best


def test_best_move_outside_the_book_searches(book, solver):
    moves = "44444431627"  # column 3 holds one stone: not in the book
    assert book.get(moves) is None
    decision = Player(book, table_log2=20).choose(moves)
    score, best = best_columns(solver, moves)
    assert decision.source == "search" and decision.proven
    assert decision.score == score and decision.column in best


# -- decisions ----------------------------------------------------------------


def test_choose_from_the_book(book):
    player = Player(book)
    decision = player.choose(SMALL_ROOT)
    assert isinstance(decision, Decision)
    assert (decision.column, decision.score, decision.source, decision.proven) == (
        5,
        16,
        "book",
        True,
    )
    assert 0 <= decision.seconds < 1.0
    assert player.last is decision
    data = decision.to_json()
    assert set(data) == {"column", "score", "source", "proven", "seconds", "depth", "keeps"}
    assert (data["column"], data["score"], data["source"], data["proven"]) == (5, 16, "book", True)


def test_choose_by_search(solver):
    moves, score = END_EASY[3]
    decision = Player(None, table_log2=20).choose(Position.from_moves(moves))
    assert decision.source == "search" and decision.proven
    assert decision.score == score
    assert decision.column in best_columns(solver, moves)[1]
    assert decision.seconds >= 0


def test_takes_the_immediate_win_rather_than_blocking(book):
    # x has three in column 1, o three in column 2: x wins at once with 1.
    for player in (Player(None, table_log2=10), Player(book, table_log2=10)):
        decision = player.choose("121212")
        assert (decision.column, decision.score, decision.source, decision.proven) == (
            1,
            win_score(6),
            "search",
            True,
        )
        assert decision.score == 18


def test_immediate_win_in_an_end_game(solver):
    # Children of End-Easy positions where the player to move can win at once.
    wins = []
    for moves, _ in END_EASY:
        position = Position.from_moves(moves)
        for col in position.legal_moves():
            child = position.play(col)
            if not child.is_game_over and any(child.is_winning_move(c) for c in range(1, 8)):
                wins.append(child)
                break
    assert len(wins) >= 5
    player = Player(None, table_log2=10)
    for child in wins:
        decision = player.choose(child)
        assert child.is_winning_move(decision.column), child.moves
        assert decision.score == 22 - (child.ply // 2 + 1)  # wins with its next stone
        assert decision.score == solver.solve(child)
        assert (decision.source, decision.proven) == ("search", True)


# -- whole games --------------------------------------------------------------


def test_self_play_end_easy_ends_as_scored():
    players = (Player(None, table_log2=20), Player(None, table_log2=20))
    assert len(END_EASY) >= 20
    for moves, score in END_EASY:
        final, decisions = play_out(moves, players)
        check_game(moves, score, final, decisions)


def test_self_play_middle_easy_ends_as_scored():
    players = (Player(None, table_log2=20), Player(None, table_log2=20))
    for moves, score in MIDDLE_EASY:
        final, decisions = play_out(moves, players)
        check_game(moves, score, final, decisions)


@pytest.mark.parametrize(
    "moves", [SMALL_ROOT, "444444331", "444444333", "4444443332", "44444455", "44444433127"]
)
def test_self_play_inside_the_book(book, solver, moves):
    entry = book.get(moves)
    assert entry is not None
    assert entry.score == solver.solve(moves)  # the book's score, checked independently
    players = (Player(book, table_log2=20), Player(book, table_log2=20))
    final, decisions = play_out(moves, players)
    check_game(moves, entry.score, final, decisions)
    for ply, decision in decisions:
        assert decision.source == ("book" if ply <= SMALL_PLY else "search"), (final.moves, ply)
    assert decisions[0][1].column in entry.best_moves


# -- time budget --------------------------------------------------------------


@pytest.mark.parametrize("moves", ["", "4"])
def test_time_budget_on_an_opening_position(solver, moves):
    budget = 0.25
    solver.solve("4444443")  # compile or load the kernels outside the timing
    player = Player(None, time_budget=budget, table_log2=20)
    player.choose("4444443312")
    for _ in range(2):
        started = time.perf_counter()
        decision = player.choose(moves)
        elapsed = time.perf_counter() - started
        assert elapsed < 8 * budget, elapsed
        assert decision.seconds <= elapsed
        assert (decision.source, decision.proven, decision.score) == ("anytime", False, None)
        assert decision.depth >= 4  # the evaluation search looked ahead
        assert Position.from_moves(moves).can_play(decision.column)


def test_time_budget_still_proves_what_it_can(solver):
    moves, score = END_EASY[5]
    decision = Player(None, time_budget=5.0, table_log2=20).choose(moves)
    assert (decision.source, decision.proven, decision.score) == ("search", True, score)
    assert decision.column in best_columns(solver, moves)[1]


def test_time_budget_blocks_an_immediate_threat():
    # x to move; o has three in column 1 and x no win: the only move that does
    # not lose at once is 1, so it is the best move, proven without a search.
    moves = "212171"
    position = Position.from_moves(moves)
    assert position.is_opponent_winning_move(1)
    assert not any(position.is_winning_move(c) for c in range(1, 8))
    decision = Player(None, time_budget=1e-9, table_log2=10).choose(moves)
    assert (decision.column, decision.source, decision.proven) == (1, "search", True)


def test_node_budget_is_the_same_on_any_machine():
    # "4444443" needs millions of nodes: half a million never proves it, under any load.
    decisions = [
        Player(None, table_log2=20, node_budget=500_000).choose("4444443") for _ in range(2)
    ]
    assert [(d.column, d.source, d.proven, d.depth) for d in decisions] == [
        (decisions[0].column, "anytime", False, decisions[0].depth)
    ] * 2
    moves, score = END_EASY[5]
    decision = Player(None, table_log2=20, node_budget=500_000).choose(moves)
    assert (decision.source, decision.proven, decision.score) == ("search", True, score)


def test_node_budget_and_time_budget_together_take_the_smaller():
    player = Player(None, time_budget=60.0, table_log2=20, node_budget=1000)
    started = time.perf_counter()
    assert player.choose("4444443").source == "anytime"
    assert time.perf_counter() - started < 30  # not the minute (compiling may count)
    assert repr(player) == "Player(book=None, time_budget=60.0, node_budget=1000)"


def test_threads_are_the_exact_searches_and_a_budget_keeps_to_one():
    assert Player(None, threads=2)._get_solver().threads == 2
    assert Player(None)._get_solver().threads >= 1  # one per core
    assert Player(None, time_budget=0.05, threads=2)._get_solver().threads == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, 10**6])
def test_bad_threads(bad):
    with pytest.raises(ArgumentError, match=f"threads must be a whole number .* got {bad!r}"):
        Player(None, threads=bad)


@pytest.mark.parametrize("bad", [0, -5, 2.5, "many", True, 10**30])
def test_bad_node_budget(bad):
    with pytest.raises(ArgumentError, match="node_budget must be a positive whole number"):
        Player(None, node_budget=bad)


# Each bad argument: the error (a C4Error and the builtin a caller would catch), and what
# its message names.
BAD_ARGUMENTS = [
    ({"time_budget": "1"}, ArgumentError, ValueError, "time_budget .* got '1'"),
    ({"time_budget": 1e308}, ArgumentError, ValueError, "at most 86400 .* got 1e\\+308"),
    ({"time_budget": float("nan")}, ArgumentError, ValueError, "time_budget .* got nan"),
    ({"time_budget": 0}, ArgumentError, ValueError, "time_budget"),
    ({"time_budget": True}, ArgumentError, ValueError, "time_budget"),
    ({"book": 5}, ArgumentTypeError, TypeError, "book must be a Book, a book's path or None"),
    ({"book": {}}, ArgumentTypeError, TypeError, "book must be"),
    ({"seed": [1]}, ArgumentTypeError, TypeError, "seed must be"),
    ({"level": "grandmaster"}, LevelError, ValueError, "'grandmaster'"),
    ({"board": 5}, BoardSizeError, ValueError, "got 5"),
]


@pytest.mark.parametrize("kwargs, error, builtin, words", BAD_ARGUMENTS)
def test_a_bad_argument_is_a_c4error_naming_it(kwargs, error, builtin, words):
    with pytest.raises(error, match=words) as raised:
        Player(**kwargs)
    assert isinstance(raised.value, C4Error) and isinstance(raised.value, builtin)


def test_a_path_opens_the_book(small_book_path, tmp_path):
    for path in (small_book_path, Path(small_book_path)):
        player = Player(path, time_budget=1.0)
        assert isinstance(player.book, Book) and player.book.db == str(small_book_path)
        decision = player.choose(SMALL_ROOT)
        assert (decision.column, decision.score, decision.source) == (5, 16, "book")
        player.book.close()
    with pytest.raises(BookNotFoundError, match="no book at"):
        Player(tmp_path / "none.db")
    with pytest.raises(BoardSizeError, match="not 6x5"):
        Player(small_book_path, board="6x5")


def test_a_day_is_the_longest_budget():
    assert Player(None, time_budget=86_400).time_budget == 86_400
    assert MAX_TIME_BUDGET == 86_400


def test_book_answers_despite_a_tiny_budget(book):
    decision = Player(book, time_budget=1e-9).choose(SMALL_ROOT)
    assert (decision.column, decision.source, decision.proven) == (5, "book", True)


# -- never throwing the game away ----------------------------------------------

SHIPPED = Path(__file__).resolve().parent.parent / "book.db"


def loses_at_once(position: Position, col: int) -> bool:
    child = position.play(col)
    return not child.is_game_over and any(child.is_winning_move(c) for c in range(1, 8))


def test_budgeted_move_never_loses_at_once_when_another_does_not():
    player = Player(None, node_budget=1, table_log2=16)
    rng = random.Random(11)
    checked = 0
    while checked < 300:
        position = Position()
        for _ in range(rng.randrange(6, 36)):
            position = position.play(rng.choice(position.legal_moves()))
            if position.is_game_over:
                break
        if position.is_game_over:
            continue
        safe = [c for c in position.legal_moves() if not loses_at_once(position, c)]
        decision = player.choose(position)
        if safe:
            checked += 1
            assert decision.column in safe, position.moves


# From a ply-8 book position the mover wins, the budgeted player plays the book's
# move and the opponent replies: the player knows it still wins (the book proved
# it), but proving a winning move here takes 400,000 to 1,100,000 nodes, far
# past the 10,000-node budget.  Winning columns from Solver.analyze.
LONG_WINS = [
    ("74322465", "7432246544", {5}),
    ("41171256", "4117125667", {1, 2, 3, 6, 7}),
    ("22616315", "2261631556", {2, 4, 5, 6}),
]


@pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")
@pytest.mark.parametrize("book_moves, moves, wins", LONG_WINS)
def test_a_proven_win_is_never_thrown_away_when_it_takes_long_to_prove(book_moves, moves, wins):
    with Book.open(str(SHIPPED)) as shipped:
        player = Player(shipped, node_budget=10_000, table_log2=20)
        assert player.choose(book_moves).source == "book"
        assert moves.startswith(book_moves + str(player.last.column))
        proving = Solver(table_log2=20)
        proving.set_node_limit(10_000)
        with pytest.raises(SearchLimitError):
            proving.solve(moves, weak=True)
        decision = player.choose(moves)
        assert decision.column in wins
        assert decision.keeps == 1  # proven to keep the win, if not proven the fastest


# -- levels -------------------------------------------------------------------


def play_levels(first: Player, second: Player, opening: str = "") -> str:
    position = Position.from_moves(opening, first.board)
    while not position.is_game_over:
        player = first if position.ply % 2 == len(opening) % 2 else second
        position = position.play(player.best_move(position))
    return position.moves


def test_levels_are_reproducible_with_a_seed():
    games = {
        play_levels(
            Player(None, level="beginner", seed=seed),
            Player(None, level="casual", seed=seed + 100),
            "44",
        )
        for seed in (1, 1, 2, 3, 4)
    }
    replay = play_levels(
        Player(None, level="beginner", seed=1), Player(None, level="casual", seed=101), "44"
    )
    assert replay in games
    assert len(games) >= 3  # other seeds, other games


def test_a_level_decision_says_how_it_was_made():
    decision = Player(None, level="club", seed=5).choose("4453")
    assert (decision.source, decision.proven, decision.score, decision.depth) == (
        "level",
        False,
        None,
        LEVELS["club"].depth,
    )
    assert (
        repr(Player(None, level="club", seed=5))
        == "Player(book=None, time_budget=None, level='club', seed=5)"
    )


def test_levels_take_an_immediate_win_and_block_one():
    for name in ("beginner", "casual", "club"):
        for seed in range(5):
            assert Player(None, level=name, seed=seed).best_move("121212") == 1
            assert Player(None, level=name, seed=seed).best_move("212171") == 1


def test_expert_plays_a_budgeted_search_without_the_book(book):
    expert = Player(book, level="expert")
    assert expert.node_budget == LEVELS["expert"].nodes
    assert Player(book).choose(SMALL_ROOT).source == "book"
    assert expert.choose(SMALL_ROOT).source in ("anytime", "search")


@pytest.mark.parametrize("bad", ["grandmaster", "", None, 3])
def test_unknown_level(bad):
    with pytest.raises(LevelError, match="unknown level") as caught:
        Player(None, level=bad)
    assert isinstance(caught.value, C4Error) and isinstance(caught.value, ValueError)
    assert "beginner, casual, club, expert, perfect" in str(caught.value)


# -- bad input ----------------------------------------------------------------


@pytest.mark.parametrize(
    "moves, error",
    [
        ("4a", IllegalMoveError),
        ("0", IllegalMoveError),
        ("8", IllegalMoveError),
        ("44 4", IllegalMoveError),
        ("4444444", IllegalMoveError),
        ("12121212", GameOverError),
        ("1212121", GameOverError),
    ],
)
@pytest.mark.parametrize("method", ["choose", "best_move"])
def test_bad_input_raises_naming_it(book, moves, error, method):
    player = Player(book, table_log2=10)
    with pytest.raises(error) as caught:
        getattr(player, method)(moves)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, C4Error)
    assert repr(moves) in str(caught.value)


def test_full_column_message_says_so():
    with pytest.raises(IllegalMoveError, match=r"column 4 is full at move 7 of '4444444'"):
        Player(None).choose("4444444")


def test_finished_board_has_no_move():
    moves, _ = next((m, s) for m, s in pons_lines("Test_L3_R1", 1, 1000) if len(m) == 41)
    position = Position.from_moves(moves)
    last = position.legal_moves()[0]
    full = position.play(last)
    assert full.is_full
    with pytest.raises(GameOverError, match=repr(full.moves)):
        Player(None).choose(full)


def test_not_a_move_string():
    with pytest.raises(IllegalMoveError, match="42"):
        Player(None).best_move(42)


# -- other boards ------------------------------------------------------------------------


def test_a_player_plays_its_book_board_and_without_a_book_the_board_given(six_by_five):
    from solver import Board, BoardSizeError

    board = Board(6, 5)
    solver = Solver(board=board, table_log2=20)
    with Book.open(six_by_five) as book:
        player = Player(book)
        assert player.board is board
        for moves in ("", "34", "616161", "343434"):  # in the book (to ply 6) and past it
            decision = player.choose(moves)
            position = Position.from_moves(moves, board)
            score = solver.solve(position)
            assert decision.score == score and decision.proven, moves
            assert solver.is_best_move(position, decision.column, score), moves
        assert player.choose("34").source == "book"
        assert player.choose("3456345").source == "search"
        with pytest.raises(BoardSizeError, match="not the book's"):
            Player(book, board="7x6")
    alone = Player(board="4x4", table_log2=16)
    assert alone.board is Board(4, 4) and "board='4x4'" in repr(alone)
    assert alone.choose("33").proven
    casual = Player(board="6x5", level="casual", seed=3, table_log2=16)
    assert Position.from_moves("3", board).can_play(casual.best_move("3"))


@pytest.mark.parametrize("level", list(LEVELS))
def test_past_64_bits_every_level_plays_without_a_book(level):
    # 8x8: the two-word kernels (solver.wide), the solver's and the evaluation's.
    from conftest import endgames_without_wins, hands_a_win

    from solver import Board

    board = Board(8, 8)
    exact = Solver(board=board, table_log2=20)
    budget = 0.5 if level == "perfect" else None  # (exact play at ply 2: out of reach)
    player = Player(board="8x8", level=level, seed=4, time_budget=budget)
    assert player.board is board and "board='8x8'" in repr(player)
    first = player.choose("45")
    assert Position.from_moves("45", board).can_play(first.column) and not first.proven
    for position in endgames_without_wins(6, 5, 14, board):
        decision = player.choose(position)
        assert position.can_play(decision.column), position.moves
        safe = [c for c in position.legal_moves() if not hands_a_win(position.play(c))]
        if safe and decision.column not in safe:  # a level's pick among lost moves only
            assert decision.source == "level" and exact.solve(position) < 0, position.moves
        if decision.proven:
            score = exact.solve(position)
            assert decision.score == score, position.moves
            assert exact.is_best_move(position, decision.column, score), position.moves
    assert player.best_move("121212") == 1  # the win at once


def test_past_64_bits_perfect_play_without_a_budget_is_exact_and_levels_replay():
    from conftest import endgames_without_wins

    from solver import Board

    board = Board(8, 8)
    exact = Solver(board=board, table_log2=20)
    player = Player(board="8x8", table_log2=20)
    for position in endgames_without_wins(4, 6, 16, board):
        decision = player.choose(position)
        score = exact.solve(position)
        assert (decision.source, decision.proven, decision.score) == ("search", True, score)
        assert exact.is_best_move(position, decision.column, score), position.moves
    games = [
        play_levels(
            Player(board=board, level="beginner", seed=seed),
            Player(board=board, level="club", seed=seed),
            "45",
        )
        for seed in (1, 1)
    ]
    assert games[0] == games[1] and Position.from_moves(games[0], board).is_game_over


def test_past_64_bits_just_past_a_book_the_parents_bound_the_search(wide_book_path):
    # One stone past the 8x8 book along its best line: the parent's entry gives the exact
    # score (``knowledge.book_bound``), and the anytime search keeps to it.
    from conftest import WIDE_PLY, WIDE_ROOT

    from bookgen.play.knowledge import book_bound
    from solver import Board

    board = Board(8, 8)
    exact = Solver(board=board, table_log2=20)
    player = Player(book=wide_book_path, time_budget=0.5, table_log2=20)
    assert player.board == board
    with Book.open(wide_book_path) as book:
        position = Position.from_moves(WIDE_ROOT, board)
        while position.ply <= WIDE_PLY:
            position = position.play(int(book.get(position).best_moves[0]))
        bound = book_bound(book, position)
    score = exact.solve(position)
    assert bound == (score, True)
    decision = player.choose(position)
    assert decision.source != "book" and position.can_play(decision.column)
    assert exact.is_best_move(position, decision.column, score), position.moves
    if decision.proven:
        assert decision.score == score


# -- one player shared by threads ------------------------------------------------------


@pytest.mark.parametrize("budget", [None, 2.0])
def test_a_player_shared_by_eight_threads_gives_each_the_lone_answer(shipped_book, budget):
    # Issue 48: a Player(Book.open(), time_budget=2) shared by 6 threads answered
    # 3366171612616723331 with proven=True, score=7; alone it says -2, its score.
    rng = random.Random(7)
    positions = [Position.from_moves("3366171612616723331")]
    positions += [random_position(rng, rng.randint(9, 22)) for _ in range(47)]
    lone = Solver(table_log2=22)
    truth = [lone.analyze(p) for p in positions]
    shared = Player(shipped_book, time_budget=budget, table_log2=22)
    with ThreadPoolExecutor(8) as pool:
        decisions = list(pool.map(shared.choose, positions))
    for position, scores, decision in zip(positions, truth, decisions, strict=True):
        best = max(s for s in scores if s is not None)
        assert decision.proven, (position, decision)  # each solves in milliseconds alone
        assert (decision.score, scores[decision.column - 1]) == (best, best), (position, decision)

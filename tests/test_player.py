"""``bookgen.player``: the AI, with the real small book and the real solver.

Best moves are checked against ``Solver.analyze``; whole games are played out
and must end exactly as the starting score says.
"""

import time
from pathlib import Path

import pytest

from bookgen import Book, Decision, Player
from solver import C4Error, GameOverError, IllegalMoveError, Position, Solver, win_score

from conftest import SMALL_PLY, SMALL_ROOT, book_moves

DATA = Path(__file__).parent / "data"


def pons_lines(name: str, step: int, limit: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in (DATA / name).read_text().split("\n") if line.strip()]
    return [(moves, int(score)) for moves, score in lines[::step][:limit]]


END_EASY = pons_lines("Test_L3_R1", 41, 24)      # lines 1, 42, 83, ...: 24 positions
MIDDLE_EASY = pons_lines("Test_L2_R1", 97, 10)   # lines 1, 98, 195, ...: 10 positions


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
        winner_parity = (final.ply - 1) % 2          # ply before the winning move
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
    picked = [SMALL_ROOT] + book_moves(small_book_path, 9) + book_moves(small_book_path, 10)[::7] \
        + book_moves(small_book_path, 11)[::23] + book_moves(small_book_path, SMALL_PLY)[::97]
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
    assert (decision.column, decision.score, decision.source, decision.proven) == (5, 16, "book", True)
    assert 0 <= decision.seconds < 1.0
    assert player.last is decision
    data = decision.to_json()
    assert set(data) == {"column", "score", "source", "proven", "seconds"}
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
        assert (decision.column, decision.score, decision.source, decision.proven) == \
            (1, win_score(6), "search", True)
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


@pytest.mark.parametrize("moves", [SMALL_ROOT, "444444331", "444444333", "4444443332",
                                   "44444455", "44444433127"])
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
    for _ in range(2):  # the second call uses the measured search speed
        started = time.perf_counter()
        decision = player.choose(moves)
        elapsed = time.perf_counter() - started
        assert elapsed < 8 * budget, elapsed
        assert decision.seconds <= elapsed
        assert (decision.source, decision.proven, decision.score) == ("heuristic", False, None)
        assert decision.column == 4  # centre first: nothing to block, nothing handed over
        assert Position.from_moves(moves).can_play(decision.column)


def test_time_budget_still_proves_what_it_can(solver):
    moves, score = END_EASY[5]
    decision = Player(None, time_budget=5.0, table_log2=20).choose(moves)
    assert (decision.source, decision.proven, decision.score) == ("search", True, score)
    assert decision.column in best_columns(solver, moves)[1]


def test_time_budget_heuristic_blocks_an_immediate_threat():
    # x to move; o has three in column 1 and x no win: the only safe move is 1.
    moves = "212171"
    position = Position.from_moves(moves)
    assert position.is_opponent_winning_move(1)
    assert not any(position.is_winning_move(c) for c in range(1, 8))
    decision = Player(None, time_budget=1e-9, table_log2=10).choose(moves)
    assert (decision.column, decision.source, decision.proven) == (1, "heuristic", False)


def test_node_budget_is_the_same_on_any_machine():
    # "4444443" needs millions of nodes: half a million never proves it, under any load.
    for _ in range(2):
        decision = Player(None, table_log2=20, node_budget=500_000).choose("4444443")
        assert (decision.column, decision.source, decision.proven) == (3, "heuristic", False)
    moves, score = END_EASY[5]
    decision = Player(None, table_log2=20, node_budget=500_000).choose(moves)
    assert (decision.source, decision.proven, decision.score) == ("search", True, score)


def test_node_budget_and_time_budget_together_take_the_smaller():
    player = Player(None, time_budget=60.0, table_log2=20, node_budget=1000)
    assert player.choose("4444443").source == "heuristic"
    assert repr(player) == "Player(book=None, time_budget=60.0, node_budget=1000)"


@pytest.mark.parametrize("bad", [0, -5, 2.5, "many", True])
def test_bad_node_budget(bad):
    with pytest.raises(ValueError, match="node_budget must be a positive whole number"):
        Player(None, node_budget=bad)


def test_book_answers_despite_a_tiny_budget(book):
    decision = Player(book, time_budget=1e-9).choose(SMALL_ROOT)
    assert (decision.column, decision.source, decision.proven) == (5, "book", True)


# -- bad input ----------------------------------------------------------------

@pytest.mark.parametrize("moves, error", [
    ("4a", IllegalMoveError),
    ("0", IllegalMoveError),
    ("8", IllegalMoveError),
    ("44 4", IllegalMoveError),
    ("4444444", IllegalMoveError),
    ("12121212", GameOverError),
    ("1212121", GameOverError),
])
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


def test_a_position_missing_from_the_book_is_answered_from_its_children(small_book_copy):
    # A build stopped before deriving the root: all its children are in the book.
    with closing(sqlite3.connect(small_book_copy)) as conn:
        conn.execute("DELETE FROM positions WHERE ply = 8")
        conn.commit()
    with Book.open(small_book_copy) as book:
        assert book.get(SMALL_ROOT) is None
        decision = Player(book).choose(SMALL_ROOT)
    # The root's known entry: score 16, best moves 2 and 5; centre-most is 5.
    assert (decision.column, decision.score, decision.source, decision.proven) == \
        (5, 16, "book", True)

"""Tests for ``solver.position.Position``: rules, identity, display and bad input."""

import itertools
import random

import pytest

from solver import Board, GameOverError, IllegalMoveError, Position
from solver.position import random_position

# A whole game that fills the board without anyone making four (found by random play).
DRAWN_GAME = "547125662261271266215743771576315353334444"


# -- building and playing --------------------------------------------------------


def test_empty_board():
    p = Position.from_moves("")
    assert p == Position()
    assert p.moves == "" and p.ply == 0
    assert p.current == 0 and p.mask == 0
    assert p.legal_moves() == [1, 2, 3, 4, 5, 6, 7]
    assert not p.is_won and not p.is_full and not p.is_game_over


def test_from_moves_records_moves_and_ply():
    p = Position.from_moves("4453")
    assert p.moves == "4453"
    assert p.ply == 4
    assert p.mask.bit_count() == 4
    # Player to move is the first player again: two stones each.
    assert p.current.bit_count() == 2


def test_play_returns_new_position_and_leaves_original():
    p = Position.from_moves("44")
    q = p.play(5)
    assert q.moves == "445" and q.ply == 3
    assert p.moves == "44" and p.ply == 2
    assert q == Position.from_moves("445")


def test_play_chain_equals_from_moves():
    p = Position()
    for col in (4, 4, 5, 3, 3, 6):
        p = p.play(col)
    assert p == Position.from_moves("445336")
    assert p.moves == "445336"


def test_can_play():
    p = Position.from_moves("444444")
    assert not p.can_play(4)
    assert [c for c in range(1, 8) if p.can_play(c)] == [1, 2, 3, 5, 6, 7]
    assert not p.can_play(0) and not p.can_play(8) and not p.can_play(-1)
    assert not Position.from_moves("44444").play(4).can_play(4)
    assert Position.from_moves("44444").can_play(4)


def test_legal_moves():
    assert Position.from_moves("444444").legal_moves() == [1, 2, 3, 5, 6, 7]
    assert Position.from_moves("111111777777").legal_moves() == [2, 3, 4, 5, 6]
    assert Position.from_moves("1212121").legal_moves() == []  # won
    assert Position.from_moves(DRAWN_GAME).legal_moves() == []  # full


@pytest.mark.parametrize(
    "moves, winning",
    [
        ("121212", [1]),  # vertical
        ("112233", [4]),  # horizontal, column 4 is the only open end
        ("223347", [1, 5]),  # horizontal, open at both ends
        ("7273146", [5]),  # the second player to move
        ("1223343446", [4]),  # rising diagonal
        ("7665545442", [4]),  # falling diagonal (mirror of the above)
        ("2233447", []),  # threats, but none playable now
    ],
)
def test_is_winning_move(moves, winning):
    p = Position.from_moves(moves)
    assert [c for c in range(1, 8) if p.is_winning_move(c)] == winning
    for col in winning:
        assert p.play(col).is_won
        assert p.play(col).is_game_over


def test_is_winning_move_false_when_full_or_off_board_or_over():
    p = Position.from_moves("121212")
    assert not p.is_winning_move(0) and not p.is_winning_move(8)
    won = p.play(1)
    assert won.is_won
    assert not any(won.is_winning_move(c) for c in range(1, 8))


def test_is_game_over():
    assert Position.from_moves("1212121").is_game_over
    assert Position.from_moves("1212121").is_won
    drawn = Position.from_moves(DRAWN_GAME)
    assert drawn.ply == 42
    assert drawn.is_full and not drawn.is_won and drawn.is_game_over
    # One move before the end the game is still on.
    before = Position.from_moves(DRAWN_GAME[:-1])
    assert not before.is_game_over
    assert before.legal_moves() == [4]


# -- identity: key, mirror ---------------------------------------------------------


def _all_sequences(max_ply):
    """Every legal move string of length <= max_ply (no game ends before ply 7)."""
    for n in range(max_ply + 1):
        yield from ("".join(s) for s in itertools.product("1234567", repeat=n))


def test_key_same_iff_same_board_up_to_ply_4():
    by_key = {}
    for moves in _all_sequences(4):
        p = Position.from_moves(moves)
        board = (str(p), p.ply)  # the drawn board (x/o per cell) is the ground truth
        assert by_key.setdefault(p.key, board) == board, moves
    # Distinct positions at ply 0..4: 1 + 7 + 49 + 238 + 1120 (OEIS A212693).
    assert len(by_key) == 1415
    assert len(set(by_key.values())) == 1415


def test_key_equal_for_transposed_orders():
    a, b = Position.from_moves("4453"), Position.from_moves("5344")
    assert a == b and a.key == b.key and hash(a) == hash(b)
    assert a.moves != b.moves
    # Same stones but other player to move: different positions.
    assert Position.from_moves("44").key != Position.from_moves("4").key
    assert Position.from_moves("12").key != Position.from_moves("21").key


# 7x6, and boards past 64 bits (keys of two words in the kernels, Python ints here): 8x8's
# and 9x7's last columns straddle bit 64, and a full last column of 5x12 takes bit 64.
BOARDS = ["7x6", "8x8", "9x7", "5x12"]


@pytest.mark.parametrize("size", BOARDS)
def test_key_matches_board_on_random_games(size):
    rng = random.Random(7)
    board_of, key_of = {}, {}
    for _ in range(500):
        p = Position(size)
        while not p.is_game_over:
            assert board_of.setdefault(p.key, str(p)) == str(p), p.moves
            assert key_of.setdefault(str(p), p.key) == p.key, p.moves
            p = p.play(rng.choice(p.legal_moves()))
    assert len(board_of) == len(key_of) > 5000
    board, bits = Position(size).board, max(board_of).bit_length()
    assert bits <= board.key_bits and (bits > 64) == board.is_wide  # past one word, and met


def test_mirror():
    p = Position.from_moves("4453")
    m = p.mirror()
    assert m == Position.from_moves("4435")
    assert m.moves == "4435"
    assert m.mirror() == p and m.mirror().moves == p.moves
    assert m.key == p.mirror_key and p.key == m.mirror_key
    assert p.canonical_key == m.canonical_key == min(p.key, m.key)
    assert p.is_canonical != m.is_canonical  # not symmetric, so exactly one is canonical


def test_mirror_of_symmetric_position_is_itself():
    p = Position.from_moves("4444")
    assert p.mirror() == p
    assert p.key == p.mirror_key == p.canonical_key
    assert p.is_canonical


@pytest.mark.parametrize("size", BOARDS)
def test_mirror_on_random_games(size):
    rng = random.Random(11)
    for _ in range(300):
        p = Position(size)
        for _ in range(rng.randrange(0, 30)):
            if p.is_game_over:
                break
            p = p.play(rng.choice(p.legal_moves()))
        m = p.mirror()
        assert m.mirror() == p
        assert m.canonical_key == p.canonical_key == min(p.key, m.key)
        assert m.key == p.mirror_key and p.key == m.mirror_key
        assert m == Position.from_moves(m.moves, size)
        assert m.is_won == p.is_won
        # The drawing is the same board read right to left.
        rows = str(p).split("\n")[:-1]
        assert str(m).split("\n")[:-1] == [" ".join(reversed(r.split())) for r in rows]


# -- display ------------------------------------------------------------------------


def test_repr_pastes_back():
    for moves in ("", "4", "4453", DRAWN_GAME, "1212121"):
        p = Position.from_moves(moves)
        assert repr(p) == f"Position.from_moves({moves!r})"
        q = eval(repr(p), {"Position": Position})  # noqa: S307 - the repr is code: run it
        assert q == p and q.moves == p.moves


def test_str_draws_board():
    expected = (
        ". . . . . . .\n"
        ". . . . . . .\n"
        ". . . . . . .\n"
        ". . . . . . .\n"
        ". . . o . . .\n"
        ". . o x x . .\n"
        "1 2 3 4 5 6 7"
    )
    assert str(Position.from_moves("4453")) == expected
    # x always marks the first player, whoever is to move.
    assert str(Position.from_moves("445")).split("\n")[5] == ". . . x x . ."


def test_str_empty_board():
    assert str(Position()) == "\n".join([". . . . . . ."] * 6 + ["1 2 3 4 5 6 7"])


def test_positions_are_hashable():
    assert len({Position.from_moves(m) for m in ("4453", "5344", "4435", "")}) == 3


def test_eq_with_other_types():
    assert Position() != "4453"
    assert (Position() == 0) is False


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "moves, error, index, fragments",
    [
        ("4a", IllegalMoveError, 1, ["'a'", "position 2", "'4a'"]),
        ("abc", IllegalMoveError, 0, ["'a'", "position 1", "'abc'"]),
        ("0", IllegalMoveError, 0, ["'0'", "position 1", "'0'"]),
        ("448", IllegalMoveError, 2, ["'8'", "position 3", "'448'"]),
        ("4 4", IllegalMoveError, 1, ["' '", "position 2", "'4 4'"]),
        ("4444444", IllegalMoveError, 6, ["column 4 is full", "move 7", "'4444444'"]),
        ("12121212", GameOverError, 7, ["move 2", "position 8", "'12121212'", "won"]),
        (DRAWN_GAME + "1", GameOverError, 42, ["move 1", "position 43", "full"]),
    ],
)
def test_from_moves_rejects(moves, error, index, fragments):
    with pytest.raises(error) as info:
        Position.from_moves(moves)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message
    assert info.value.moves == moves
    assert info.value.index == index


def test_game_over_is_not_plain_illegal_move():
    # A full column is not "game over"; a move after a win is.
    with pytest.raises(IllegalMoveError) as info:
        Position.from_moves("4444444")
    assert not isinstance(info.value, GameOverError)


@pytest.mark.parametrize("bad", [44, None, 4.0, b"44", ["4", "4"]])
def test_from_moves_rejects_non_string(bad):
    with pytest.raises(IllegalMoveError) as info:
        Position.from_moves(bad)
    assert "string" in str(info.value)
    assert repr(bad) in str(info.value)
    assert info.value.index is None


@pytest.mark.parametrize("col", [0, 8, -1, True, False, "4", 4.0, None])
def test_play_rejects_bad_column(col):
    p = Position.from_moves("44")
    with pytest.raises(IllegalMoveError) as info:
        p.play(col)
    assert not isinstance(info.value, GameOverError)
    message = str(info.value)
    assert f"illegal column {col!r}" in message
    assert "'44" in message  # names the moves it was played after
    assert info.value.index == 2


def test_play_full_column():
    with pytest.raises(IllegalMoveError, match=r"column 4 is full at move 7 of '4444444'"):
        Position.from_moves("444444").play(4)


def test_play_after_win_and_after_full_board():
    with pytest.raises(
        GameOverError, match=r"move 3 at position 8 of '12121213' comes after the game was won"
    ):
        Position.from_moves("1212121").play(3)
    with pytest.raises(GameOverError, match="after the board is full"):
        Position.from_moves(DRAWN_GAME).play(4)


def test_errors_are_value_errors():
    assert issubclass(IllegalMoveError, ValueError)
    assert issubclass(GameOverError, ValueError)
    assert issubclass(GameOverError, IllegalMoveError)
    with pytest.raises(ValueError, match="illegal move '9'"):
        Position.from_moves("9")


def test_fast_parse_agrees_with_move_by_move_replay():
    """from_moves' bit-arithmetic fast path gives what replaying each move gives,
    errors included, on random strings: legal, finished, overfull and garbled."""
    import random

    rng = random.Random(2026)

    def outcome(build, moves):
        try:
            p = build(moves)
        except Exception as error:  # noqa: BLE001 - the same type and message on both paths
            return (type(error).__name__, str(error))
        return ("ok", p.current, p.mask, p.moves, p.is_won)

    for _ in range(3000):
        moves = "".join(rng.choice("12345674444") for _ in range(rng.randrange(0, 44)))
        if rng.random() < 0.05:
            moves += rng.choice("08x ")
        assert outcome(Position.from_moves, moves) == outcome(Position._replay, moves), moves


def test_move_scores_is_one_ply_of_negamax():
    position = Position.from_moves("444444121212")  # column 4 full; x wins in column 1
    asked = []

    def child_score(child):
        asked.append(child.moves[-1])
        return 3 if child.moves.endswith("2") else -1

    scores = position.move_scores(child_score)
    assert scores == [(43 - 12) // 2, -3, 1, None, 1, 1, 1]
    assert asked == ["2", "3", "5", "6", "7"]  # never the win, never the full column


def test_move_scores_of_the_last_cell_is_a_draw_without_asking():
    position = Position.from_moves("74165632431323324112217251554435576647667")  # 41 stones
    assert position.legal_moves() == [7] and not position.is_winning_move(7)
    assert position.move_scores(lambda child: pytest.fail("asked")) == [None] * 6 + [0]


def test_random_position_is_an_unfinished_position_at_its_ply_and_repeats_with_its_seed():
    for board, ply in ((Board(), 0), (Board(), 12), (Board(6, 5), 20)):
        first = random_position(random.Random(7), ply, board)
        assert (first.ply, first.board, first.is_game_over) == (ply, board, False)
        assert random_position(random.Random(7), ply, board).moves == first.moves

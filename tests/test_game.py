"""``c4book play`` (``bookgen.play.game``): games in the terminal, with scripted input.

``play_game`` takes its input and output streams, so whole games are played
in-process against the real ``Player`` (the small book, and a node budget for
the opening moves that no book covers).  The command itself is driven
through a subprocess.
"""

import io
import re
import subprocess
from pathlib import Path

import pytest
from conftest import SMALL_ROOT, c4book_command

from bookgen import Book, BookNotFoundError, Player
from bookgen.play.game import board_text, play_game, run_play
from bookgen.play.levels import LEVELS
from solver import Board, Position, Solver

EMPTY_BOARD = "\n".join([". . . . . . ."] * 6 + ["1 2 3 4 5 6 7"])
PROMPT = "your move (1-7): "
# A line of 4,301 digits or more is more than int() reads; '٣' is 3 to int().
NOISE = ["x", "0", "8", "", "-1", "9" * 5000, "٣", "00", "0" * 5000 + "8"]
NOISE_REPLIES = [
    "'x' is not a column: type a number from 1 to 7\n",
    "there is no column 0: columns are 1 to 7\n",
    "there is no column 8: columns are 1 to 7\n",
    "",  # a bare Enter asks again, with no complaint
    "'-1' is not a column: type a number from 1 to 7\n",
    "there is no column 99999999999999999999...: columns are 1 to 7\n",
    "'٣' is not a column: type a number from 1 to 7\n",
    "there is no column 0: columns are 1 to 7\n",
    "there is no column 8: columns are 1 to 7\n",
]
FULL_REPLY = "column 4 is full: choose another\n"
# Nodes per AI search outside the book: never enough to prove an opening move
# ("4444443" takes millions), always enough past the small book (at most 230,000).
# Counted in nodes, not seconds, so that games go the same way under any load.
NODE_BUDGET = 1_000_000


def c4book(*args: str, stdin: str, timeout: float = 120):
    return subprocess.run(
        [*c4book_command(), *args], input=stdin, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def book(small_book_path):
    with Book.open(small_book_path) as opened:
        yield opened


class ScriptedHuman:
    """A stdin for ``play_game``: types some bad lines first, then plays.

    It follows the game from what ``play_game`` writes ("AI plays N"),
    tries the full column 4 once, then plays ``script`` (ply -> column),
    else the perfect ``brain``.
    """

    def __init__(
        self,
        out: io.StringIO,
        human_first: bool,
        brain: Player,
        noise=(),
        script=None,
        start: str = SMALL_ROOT,
    ):
        self.out, self.human_first, self.brain = out, human_first, brain
        self.start = start
        self.pending = list(noise)
        self.script = script or {}
        self.mine: list[int] = []
        self.typed: list[str] = []
        self.tried_full = False

    def position(self) -> Position:
        ai = [int(c) for c in re.findall(r"AI plays ([1-7])", self.out.getvalue())]
        first, second = (self.mine, ai) if self.human_first else (ai, self.mine)
        moves = []
        for i in range(len(first)):
            moves.append(first[i])
            if i < len(second):
                moves.append(second[i])
        return Position.from_moves(self.start + "".join(map(str, moves)))

    def readline(self) -> str:
        if self.pending:
            line = self.pending.pop(0)
        else:
            position = self.position()
            if not position.can_play(4) and not self.tried_full:
                self.tried_full = True
                line = "4"
            else:
                col = self.script.get(position.ply) or self.brain.best_move(position)
                self.mine.append(col)
                line = str(col)
        self.typed.append(line)
        return line + "\n"


def boards_in_order(output: str, moves: str, start: int = 0) -> None:
    """The board after every move is printed, in the order of the game."""
    at = output.index(board_text(Position.from_moves(moves[:start])))
    for ply in range(start + 1, len(moves) + 1):
        board = board_text(Position.from_moves(moves[:ply]))
        found = output.find(f"\n{board}\n", at)
        assert found >= 0, moves[:ply]
        at = found + 1


def play_scripted(book, human_first: bool, noise=(), script=None, start=SMALL_ROOT):
    out = io.StringIO()
    ai = Player(book, node_budget=NODE_BUDGET, table_log2=20)
    human = ScriptedHuman(out, human_first, Player(book, table_log2=20), noise, script, start)
    assert play_game(ai, human_first, human, out, start=start) == 0
    text = out.getvalue()
    final = re.search(r"\nmoves: ([1-7]+)\n\Z", text)
    assert final, text[-300:]
    return text, human, final[1]


def ai_lines(text: str) -> list[tuple[int, str]]:
    return [
        (int(col), how)
        for col, how in re.findall(
            r"^AI plays ([1-7])  \((.+), \d+ ms\)$", text, flags=re.MULTILINE
        )
    ]


def ai_tail(text: str) -> str:
    """What follows the last "AI plays N  ": its "(source, N ms)"."""
    return re.findall(r"^AI plays [1-7]  (\(.*\))$", text, flags=re.MULTILINE)[-1]


# -- whole games --------------------------------------------------------------

ROOT_BOARD = board_text(Position.from_moves(SMALL_ROOT))


def test_human_first_wins_from_the_book_root(book):
    text, human, moves = play_scripted(book, True, noise=NOISE)
    assert text.startswith(
        f"Level: perfect. You are x. Type a column 1-7 and press Enter; "
        f"q quits.\n\n{ROOT_BOARD}\n\n"
    )
    # every bad line got its message and another prompt, in order
    replies = "".join(PROMPT + reply for reply in NOISE_REPLIES)
    assert f"{ROOT_BOARD}\n\n{replies}{PROMPT}{FULL_REPLY}" in text
    assert text.count(FULL_REPLY) == 1
    assert text.count(PROMPT) == len(human.typed)
    # At the book's root x wins with its 6th stone (score +16); the AI reads the book.
    assert moves == "44444433532"
    assert ai_lines(text) == [(3, "book")]
    assert human.typed[len(NOISE) :] == ["4", "5", "2"]
    boards_in_order(text, moves, len(SMALL_ROOT))
    assert text.endswith(
        f"{PROMPT}\n{board_text(Position.from_moves(moves))}\n\n"
        "You win, with your 6th stone!\nmoves: 44444433532\n"
    )


def test_ai_first_wins_from_the_book(book):
    text, human, moves = play_scripted(book, False)
    assert text.startswith(
        f"Level: perfect. You are o. Type a column 1-7 and press Enter; "
        f"q quits.\n\n{ROOT_BOARD}\n\n"
    )
    assert moves == "44444433532"
    assert ai_lines(text) == [(5, "book"), (2, "book")]
    assert human.typed == ["4", "3"]
    assert text.count(FULL_REPLY) == 1
    boards_in_order(text, moves, len(SMALL_ROOT))
    assert text.endswith(
        f"AI plays 2  {ai_tail(text)}\n\n{board_text(Position.from_moves(moves))}\n\n"
        "The AI wins, with its 6th stone.\nmoves: 44444433532\n"
    )


def test_drawn_game_played_to_the_last_cell(book):
    # At the root the human plays 1 instead of winning: 444444331 is a draw, and
    # both sides then play perfectly to a full board.
    assert book.get("444444331").score == 0 == Solver(table_log2=16).solve("444444331")
    text, _human, moves = play_scripted(book, True, script={8: 1})
    assert moves.startswith("444444331")
    assert len(moves) == 42
    final = Position.from_moves(moves)
    assert final.is_full and not final.is_won
    assert {how for col, how in ai_lines(text)} <= {"book", "search"}  # every move proven
    boards_in_order(text, moves, len(SMALL_ROOT))
    assert text.endswith(f"\n{board_text(final)}\n\nDraw.\nmoves: {moves}\n")


def test_ai_answers_unproven_within_its_node_budget(book):
    # "4444443" is outside the small book; proving it lost takes about a
    # million nodes, ten times this budget.
    out = io.StringIO()
    ai = Player(book, node_budget=100_000, table_log2=20)
    assert play_game(ai, False, io.StringIO("q\n"), out, start="4444443") == 0
    ((col, how),) = ai_lines(out.getvalue())
    assert Position.from_moves("4444443").can_play(col)
    assert re.fullmatch(r"not proven: best found in time, looking \d+ plies ahead", how), how


# -- input handling -----------------------------------------------------------


@pytest.mark.parametrize("quit_line", ["q\n", "Q\n", "quit\n", " exit \n", ""])
def test_quitting_abandons_the_game(quit_line):
    out = io.StringIO()
    # Human first: the AI is never asked, so no book and no budget are needed.
    typed = "".join(line + "\n" for line in NOISE) + quit_line
    assert play_game(Player(None), True, io.StringIO(typed), out) == 0
    replies = "".join(PROMPT + reply for reply in NOISE_REPLIES)
    assert out.getvalue() == (
        "Level: perfect. You are x. Type a column 1-7 and press Enter; q quits.\n\n"
        f"{EMPTY_BOARD}\n\n{replies}{PROMPT}\ngame abandoned\n"
    )


def test_quitting_mid_game(book):
    # From "44444" the human (o) fills column 4, the AI answers, the human
    # tries column 4 once more, then quits.
    out = io.StringIO()
    ai = Player(book, node_budget=NODE_BUDGET, table_log2=20)
    assert play_game(ai, True, io.StringIO("4\n4\nq\n"), out, start="44444") == 0
    text = out.getvalue()
    assert text.startswith("Level: perfect. You are o. ")
    ((col, _how),) = ai_lines(text)
    assert text.count(FULL_REPLY) == 1
    assert text.endswith(
        f"{board_text(Position.from_moves('444444' + str(col)))}\n\n{PROMPT}"
        f"{FULL_REPLY}{PROMPT}\ngame abandoned\n"
    )


def test_superscript_digit_is_just_bad_input():
    out = io.StringIO()
    assert play_game(Player(None), True, io.StringIO("²\nq\n"), out) == 0
    assert out.getvalue().endswith(f"{PROMPT}\ngame abandoned\n")


# -- run_play and the command -------------------------------------------------


def test_run_play_with_the_book(small_book_path):
    out = io.StringIO()
    assert run_play(small_book_path, "human", io.StringIO("q\n"), out) == 0
    assert out.getvalue().startswith("Level: perfect. You are x.")
    assert out.getvalue().endswith("game abandoned\n")


def test_run_play_missing_book(tmp_path):
    with pytest.raises(BookNotFoundError, match=re.escape(repr(str(tmp_path / "no.db")))):
        run_play(str(tmp_path / "no.db"), "human", io.StringIO(""), io.StringIO())
    assert not (tmp_path / "no.db").exists()


def test_play_command_rejects_bad_input_and_quits(small_book_path):
    result = c4book(
        "play",
        "--db",
        small_book_path,
        "--first",
        "human",
        stdin="".join(line + "\n" for line in NOISE) + "q\n",
    )
    assert result.returncode == 0 and result.stderr == ""
    replies = "".join(PROMPT + reply for reply in NOISE_REPLIES)
    assert result.stdout == (
        "Level: perfect. You are x. Type a column 1-7 and press Enter; q quits.\n\n"
        f"{EMPTY_BOARD}\n\n{replies}{PROMPT}\ngame abandoned\n"
    )


def test_play_command_end_of_input(small_book_path):
    result = c4book("play", "--db", small_book_path, stdin="")
    assert result.returncode == 0
    assert result.stdout.endswith(f"{EMPTY_BOARD}\n\n{PROMPT}\ngame abandoned\n")


def test_play_command_bad_first_option(small_book_path):
    result = c4book("play", "--db", small_book_path, "--first", "nobody", stdin="")
    assert result.returncode == 2
    assert "invalid choice: 'nobody'" in result.stderr
    assert "Traceback" not in result.stderr


def test_play_command_ai_first_answers_within_its_time(small_book_path):
    # The empty board is outside the small book and takes minutes to solve:
    # the AI must answer within about --time with a safe, unproven move.
    result = c4book("play", "--db", small_book_path, "--first", "ai", "--time", "0.5", stdin="q\n")
    assert result.returncode == 0 and result.stderr == ""
    match = re.search(
        r"AI plays [1-7]  \(not proven: best found in time, looking \d+ plies ahead, "
        r"(\d+) ms\)",
        result.stdout,
    )
    assert match and int(match.group(1)) < 30_000, result.stdout  # not minutes; compiling may count
    assert result.stdout.endswith("game abandoned\n")


def test_play_command_past_64_bits_without_a_book():
    # 8x8, the two-word kernels: two moves each, the AI's as its level plays them.
    command = ("play", "--board", "8x8", "--no-book", "--level", "club", "--seed", "2")
    result = c4book(*command, "--time", "0.5", stdin="4\n9\n5\nq\n")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    out = result.stdout
    assert "Type a column 1-8 and press Enter" in out and "your move (1-8): " in out
    assert "there is no column 9: columns are 1 to 8" in out
    columns = [int(c) for c in re.findall(r"AI plays ([1-8])  \(looked 6 plies ahead", out)]
    assert len(columns) == 2 and out.endswith("game abandoned\n")
    played = Position.from_moves(f"4{columns[0]}5{columns[1]}", Board(8, 8))
    assert board_text(played) in out and "\n1 2 3 4 5 6 7 8\n" in out
    again = c4book(*command, "--time", "0.5", stdin="4\n9\n5\nq\n")
    timeless = re.compile(r", \d+ ms\)")
    assert timeless.sub("", again.stdout) == timeless.sub("", out)  # the seed replays the game


def test_play_command_rejects_a_bad_time(small_book_path):
    result = c4book("play", "--db", small_book_path, "--time", "0", stdin="")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "c4book play: error: argument --time: '0' is not a "
        "number of seconds above 0 and at most 86400 (a day) "
        "(see c4book play --help)"
    )


# -- levels, hints, the board ---------------------------------------------------

SHIPPED = Path(__file__).resolve().parent.parent / "book.db"


@pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")
def test_play_command_with_a_level_and_hints():
    # The shipped book knows every move's score up to ply 7, so the hints are instant.
    command = ("play", "--db", str(SHIPPED), "--level", "beginner", "--seed", "7", "--hints")
    result = c4book(*command, stdin="4\n4\nq\n")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    out = result.stdout
    assert out.startswith("Level: beginner. You are x. ")
    # The empty board's move scores are -2 -1 0 1 0 -1 -2 (see the README).
    assert (
        "hints:\n  1: you lose, to the AI's 20th stone\n  2: you lose, to the AI's 21st stone\n"
        "  3: draw\n  4: you win with your 21st stone\n  5: draw\n"
        "  6: you lose, to the AI's 21st stone\n  7: you lose, to the AI's 20th stone\n"
        f"{PROMPT}"
    ) in out
    assert out.count("hints:\n") == 3  # before each of the human's moves
    ai = ai_lines(out)
    assert [how for col, how in ai] == ["looked 2 plies ahead"] * 2
    again = c4book(*command, stdin="4\n4\nq\n")
    assert ai_lines(again.stdout) == ai  # the same seed, the same game


def test_play_help_rates_each_level():
    result = c4book("play", "--help", stdin="")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # argparse wraps the help
    for level in LEVELS.values():
        assert f"{level.rated}: {level.about}" in text
    assert "beginner (Elo " in text


def test_play_command_rejects_an_unknown_level(small_book_path):
    result = c4book("play", "--db", small_book_path, "--level", "wizard", stdin="")
    assert result.returncode == 2
    assert "invalid choice: 'wizard'" in result.stderr and "Traceback" not in result.stderr


def test_play_command_rejects_a_bad_start(small_book_path):
    result = c4book("play", "--db", small_book_path, "--start", "4444444", stdin="")
    assert result.returncode == 1
    assert result.stderr.strip() == ("c4book play: error: column 4 is full at move 7 of '4444444'")


def test_the_winning_four_is_marked():
    # x wins along the bottom row: 4, 5, 3, then 6 (o's 4, 5, 3 above them).
    assert board_text(Position.from_moves("4455336")).split("\n")[-3:-1] == [
        ". . o o o . .",
        ". . X X X X .",
    ]
    # Five in a row, made by the middle stone: all five.
    assert board_text(Position.from_moves("112244553")).split("\n")[-2] == "X X X X X . ."


def test_the_last_stone_is_marked():
    assert board_text(Position.from_moves("445")).split("\n")[-3:-1] == [
        ". . . o . . .",
        ". . . x X . .",
    ]
    assert board_text(Position.from_moves("4454")).split("\n")[-4] == ". . . O . . ."
    assert board_text(Position()) == EMPTY_BOARD


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colours_on_a_terminal_unless_no_color(monkeypatch):
    # From "4" the human (o) quits at once: the board shows x's stone, the last one.
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = Terminal()
    play_game(Player(None), True, io.StringIO("q\n"), out, start="4")
    assert "\x1b[31m\x1b[1;4mX\x1b[0m" in out.getvalue()  # x red, the last stone underlined
    monkeypatch.setenv("NO_COLOR", "1")
    plain = Terminal()
    play_game(Player(None), True, io.StringIO("q\n"), plain, start="4")
    assert "\x1b[" not in plain.getvalue() and ". . . X . . ." in plain.getvalue()
    monkeypatch.delenv("NO_COLOR")
    piped = io.StringIO()
    play_game(Player(None), True, io.StringIO("q\n"), piped, start="4")
    assert piped.getvalue() == plain.getvalue()


def test_a_game_on_another_board_draws_it_and_asks_for_its_columns():
    out = io.StringIO()
    ai = Player(None, board="4x4", table_log2=16)
    assert play_game(ai, True, io.StringIO("5\n3\nq\n"), out) == 0
    text = out.getvalue()
    assert "Type a column 1-4 and press Enter" in text and "your move (1-4): " in text
    assert "there is no column 5: columns are 1 to 4" in text
    assert board_text(Position.from_moves("3", Board(4, 4))) in text
    assert "\n1 2 3 4\n" in text

"""``c4book play`` (``bookgen.game``): games in the terminal, with scripted input.

``play_game`` takes its input and output streams, so whole games are played
in-process against the real ``Player`` (the small book, and a node budget for
the opening moves that no book covers).  The command itself is driven
through a subprocess.
"""

import io
import re
import subprocess

import pytest

from bookgen import Book, BookNotFoundError, Player
from bookgen.game import play_game, run_play
from solver import Position, Solver

from conftest import SMALL_ROOT, c4book_command

EMPTY_BOARD = "\n".join([". . . . . . ."] * 6 + ["1 2 3 4 5 6 7"])
PROMPT = "your move (1-7): "
NOISE = ["x", "0", "8", "", "-1"]
NOISE_REPLIES = [
    "'x' is not a column: type a number from 1 to 7\n",
    "there is no column 0: columns are 1 to 7\n",
    "there is no column 8: columns are 1 to 7\n",
    "'' is not a column: type a number from 1 to 7\n",
    "'-1' is not a column: type a number from 1 to 7\n",
]
FULL_REPLY = "column 4 is full: choose another\n"
# Nodes per AI search outside the book: never enough to prove an opening move
# ("4444443" takes millions), always enough past the small book (at most 230,000).
# Counted in nodes, not seconds, so that games go the same way under any load.
NODE_BUDGET = 1_000_000




def c4book(*args: str, stdin: str, timeout: float = 120):
    return subprocess.run([*c4book_command(), *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def book(small_book_path):
    with Book.open(small_book_path) as opened:
        yield opened


class ScriptedHuman:
    """A stdin for ``play_game``: types some bad lines first, then plays.

    It follows the game from what ``play_game`` writes ("AI plays N") and
    plays column 4 while it can (trying the full column 4 once), then 3 until
    the position is the book's root; from there ``script`` (ply -> column),
    else the perfect ``brain``.
    """

    def __init__(self, out: io.StringIO, human_first: bool, brain: Player,
                 noise=(), script=None):
        self.out, self.human_first, self.brain = out, human_first, brain
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
        return Position.from_moves("".join(map(str, moves)))

    def readline(self) -> str:
        if self.pending:
            line = self.pending.pop(0)
        else:
            position = self.position()
            if not position.can_play(4) and not self.tried_full:
                self.tried_full = True
                line = "4"
            else:
                if position.can_play(4):
                    col = 4
                elif position.ply < len(SMALL_ROOT):
                    col = 3
                else:
                    col = self.script.get(position.ply) or self.brain.best_move(position)
                self.mine.append(col)
                line = str(col)
        self.typed.append(line)
        return line + "\n"


def boards_in_order(output: str, moves: str) -> None:
    """The board after every move is printed, in the order of the game."""
    at = output.index(EMPTY_BOARD)
    for ply in range(1, len(moves) + 1):
        board = str(Position.from_moves(moves[:ply]))
        found = output.find(f"\n{board}\n", at)
        assert found >= 0, moves[:ply]
        at = found + 1


def play_scripted(book, human_first: bool, noise=(), script=None):
    out = io.StringIO()
    ai = Player(book, node_budget=NODE_BUDGET, table_log2=20)
    human = ScriptedHuman(out, human_first, Player(book, table_log2=20), noise, script)
    assert play_game(ai, human_first, human, out) == 0
    text = out.getvalue()
    final = re.search(r"\nmoves: ([1-7]+)\n\Z", text)
    assert final, text[-300:]
    return text, human, final[1]


def ai_lines(text: str) -> list[tuple[int, str]]:
    return [(int(col), how) for col, how in
            re.findall(r"^AI plays ([1-7])  \(([a-z ,]+), \d+ ms\)$", text, flags=re.M)]


def ai_tail(text: str) -> str:
    """What follows the last "AI plays N  ": its "(source, N ms)"."""
    return re.findall(r"^AI plays [1-7]  (\(.*\))$", text, flags=re.M)[-1]


# -- whole games --------------------------------------------------------------

def test_human_first_wins_against_the_heuristic_opening(book):
    text, human, moves = play_scripted(book, True, noise=NOISE)
    assert text.startswith(f"You are x. Type a column 1-7 and press Enter; q quits.\n\n"
                           f"{EMPTY_BOARD}\n\n")
    # every bad line got its message and another prompt, in order
    replies = "".join(PROMPT + reply for reply in NOISE_REPLIES)
    assert f"{EMPTY_BOARD}\n\n{replies}{PROMPT}" in text
    assert text.count(FULL_REPLY) == 1
    assert text.count(PROMPT) == len(human.typed)
    # Column 4 fills up, the AI's unproven opening answers lead into the book's root,
    # where x wins with its 6th stone (score +16); from then on the AI reads the book.
    assert moves == "44444433532"
    assert ai_lines(text) == [(4, "heuristic, not proven")] * 3 + \
        [(3, "heuristic, not proven"), (3, "book")]
    assert human.typed[len(NOISE):] == ["4", "4", "4", "4", "3", "5", "2"]
    boards_in_order(text, moves)
    assert text.endswith(f"{PROMPT}\n{Position.from_moves(moves)}\n\n"
                         "You win, with your 6th stone!\nmoves: 44444433532\n")


def test_ai_first_wins_from_the_book(book):
    text, human, moves = play_scripted(book, False)
    assert text.startswith(f"You are o. Type a column 1-7 and press Enter; q quits.\n\n"
                           f"{EMPTY_BOARD}\n\n")
    assert moves == "44444433532"
    assert ai_lines(text) == [(4, "heuristic, not proven")] * 3 + \
        [(3, "heuristic, not proven"), (5, "book"), (2, "book")]
    assert human.typed == ["4", "4", "4", "4", "3", "3"]
    assert text.count(FULL_REPLY) == 1
    boards_in_order(text, moves)
    assert text.endswith(f"AI plays 2  {ai_tail(text)}\n\n{Position.from_moves(moves)}\n\n"
                         "The AI wins, with its 6th stone.\nmoves: 44444433532\n")


def test_drawn_game_played_to_the_last_cell(book):
    # At the root the human plays 1 instead of winning: 444444331 is a draw, and
    # both sides then play perfectly to a full board.
    assert book.get("444444331").score == 0 == Solver(table_log2=16).solve("444444331")
    text, human, moves = play_scripted(book, True, script={8: 1})
    assert moves.startswith("444444331")
    assert len(moves) == 42
    final = Position.from_moves(moves)
    assert final.is_full and not final.is_won
    assert all(how != "heuristic, not proven" for col, how in ai_lines(text)[4:])
    boards_in_order(text, moves)
    assert text.endswith(f"\n{final}\n\nDraw.\nmoves: {moves}\n")


# -- input handling -----------------------------------------------------------

@pytest.mark.parametrize("quit_line", ["q\n", "Q\n", "quit\n", " exit \n", ""])
def test_quitting_abandons_the_game(quit_line):
    out = io.StringIO()
    # Human first: the AI is never asked, so no book and no budget are needed.
    assert play_game(Player(None), True, io.StringIO("x\n0\n8\n\n-1\n" + quit_line), out) == 0
    replies = "".join(PROMPT + reply for reply in NOISE_REPLIES)
    assert out.getvalue() == ("You are x. Type a column 1-7 and press Enter; q quits.\n\n"
                              f"{EMPTY_BOARD}\n\n{replies}{PROMPT}\ngame abandoned\n")


def test_quitting_mid_game(book):
    # x fills column 4 with the AI, tries it once more, then quits.
    out = io.StringIO()
    stdin = io.StringIO("4\n4\n4\n4\nq\n")
    ai = Player(book, node_budget=NODE_BUDGET, table_log2=20)
    assert play_game(ai, True, stdin, out) == 0
    text = out.getvalue()
    assert text.count("AI plays 4") == 3
    assert text.count(FULL_REPLY) == 1
    assert text.endswith(f"{str(Position.from_moves('444444'))}\n\n{PROMPT}{FULL_REPLY}"
                         f"{PROMPT}\ngame abandoned\n")


def test_superscript_digit_is_just_bad_input():
    out = io.StringIO()
    assert play_game(Player(None), True, io.StringIO("²\nq\n"), out) == 0
    assert out.getvalue().endswith(f"{PROMPT}\ngame abandoned\n")


# -- run_play and the command -------------------------------------------------

def test_run_play_with_the_book(small_book_path):
    out = io.StringIO()
    assert run_play(small_book_path, "human", io.StringIO("q\n"), out) == 0
    assert out.getvalue().startswith("You are x.")
    assert out.getvalue().endswith("game abandoned\n")


def test_run_play_missing_book(tmp_path):
    with pytest.raises(BookNotFoundError, match=re.escape(repr(str(tmp_path / "no.db")))):
        run_play(str(tmp_path / "no.db"), "human", io.StringIO(""), io.StringIO())
    assert not (tmp_path / "no.db").exists()


def test_play_command_rejects_bad_input_and_quits(small_book_path):
    result = c4book("play", "--db", small_book_path, "--first", "human",
                    stdin="x\n0\n8\n\n-1\nq\n")
    assert result.returncode == 0 and result.stderr == ""
    replies = "".join(PROMPT + reply for reply in NOISE_REPLIES)
    assert result.stdout == ("You are x. Type a column 1-7 and press Enter; q quits.\n\n"
                             f"{EMPTY_BOARD}\n\n{replies}{PROMPT}\ngame abandoned\n")


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
    result = c4book("play", "--db", small_book_path, "--first", "ai", "--time", "0.5",
                    stdin="q\n")
    assert result.returncode == 0 and result.stderr == ""
    match = re.search(r"AI plays 4  \(heuristic, not proven, (\d+) ms\)", result.stdout)
    assert match and int(match.group(1)) < 30_000, result.stdout  # not minutes; compiling may count
    assert result.stdout.endswith("game abandoned\n")


def test_play_command_rejects_a_bad_time(small_book_path):
    result = c4book("play", "--db", small_book_path, "--time", "0", stdin="")
    assert result.returncode == 2
    assert result.stderr.strip() == ("c4book play: error: argument --time: '0' is not a "
                                     "positive number of seconds (see c4book play --help)")

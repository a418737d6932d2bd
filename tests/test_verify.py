"""``verify`` and ``c4book verify`` on the real small book, sound and deliberately damaged.

The damage is a wrong book, not a broken file: a sealed ply's segment is
unpacked, changed and packed again (``conftest.edit_ply``), checksum and all,
so only verify's own checks can see it.  A sealed ply below the book's last
keeps scores only (its children give its best moves); the last keeps best
moves too.  True scores of damaged entries come from ``Solver``, not from the
book.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    SMALL_PLY,
    SMALL_ROOT,
    WIDE_ROOT,
    book_keys,
    edit_ply,
    run_sql,
    sealed_bytes,
    stored_plies,
)

from bookgen import Book, BookNotFoundError, NotABookError
from bookgen.builder.verify import verify
from solver import Position, Solver
from solver.packed import moves_of_key

C4BOOK = str(Path(sys.executable).with_name("c4book"))
COUNTS = {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
DERIVED = 1 + 6 + 36 + 136
ALL_PLIES = (8, 9, 10, 11, 12)


@pytest.fixture(scope="module")
def solver():
    return Solver(table_log2=20)


def at(segment, moves: str) -> int:
    """The place of ``moves`` (either orientation) in a ply's segment."""
    (found,) = np.flatnonzero(segment.keys == Position.from_moves(moves).canonical_key)
    return int(found)


def set_score(path: str, moves: str, score: int) -> None:
    def edit(segment):
        segment.scores[at(segment, moves)] = score
        return segment

    edit_ply(path, len(moves), edit)


def set_best(path: str, moves: str, columns: str) -> None:
    def edit(segment):
        segment.best[at(segment, moves)] = sum(1 << (int(c) - 1) for c in columns)
        return segment

    edit_ply(path, len(moves), edit)


def delete(path: str, moves: str) -> None:
    def edit(segment):
        keep = np.arange(len(segment.keys)) != at(segment, moves)
        return segment._replace(
            keys=segment.keys[keep],
            scores=segment.scores[keep],
            best=None if segment.best is None else segment.best[keep],
        )

    edit_ply(path, len(moves), edit)


def add(path: str, ply: int, key: int, score: int, best: int | None) -> None:
    def edit(segment):
        return segment._replace(
            keys=np.append(segment.keys, np.uint64(key)),
            scores=np.append(segment.scores, np.int8(score)),
            best=None if best is None else np.append(segment.best, np.uint8(best)),
        )

    edit_ply(path, ply, edit)


def replace_key(path: str, ply: int, old: int, new: int) -> None:
    def edit(segment):
        segment.keys[np.flatnonzero(segment.keys == np.uint64(old))] = np.uint64(new)
        return segment

    edit_ply(path, ply, edit)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [C4BOOK, "verify", *args, "--no-progress"], capture_output=True, text=True, timeout=300
    )


def key(moves: str) -> int:
    return Position.from_moves(moves).key


def parents_of(path: str, moves: str) -> list[str]:
    """Every book position one move above ``moves``, found by replay, as verify shows them."""
    target = Position.from_moves(moves).canonical_key
    parents = []
    for stored_key in book_keys(path, len(moves) - 1):
        parent = moves_of_key(stored_key, SMALL_ROOT)
        position = Position.from_moves(parent)
        if any(
            position.can_play(c)
            and not position.is_winning_move(c)
            and position.play(c).canonical_key == target
            for c in range(1, 8)
        ):
            parents.append(parent)
    return parents


# -- a sound book --------------------------------------------------------------


def test_the_small_book_verifies(small_book_path):
    before = Path(small_book_path).read_bytes()
    report = verify(Path(small_book_path), sample=25, progress=False)  # a Path, as a str
    assert report.ok and report.problems == ()
    assert (report.entries, report.derived_checked, report.frontier_sampled) == (753, DERIVED, 25)
    assert report.plies_counted == ALL_PLIES
    assert Path(small_book_path).read_bytes() == before  # verify only reads


def test_cli_passes_on_the_small_book(small_book_path):
    result = run_cli("--db", small_book_path, "--sample", "10")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (
        f"{small_book_path}: 753 entries; {DERIVED} checked against their children, 10 frontier "
        f"entries re-solved, complete plies counted: {list(ALL_PLIES)}\n"
        "OK: the book is consistent\n"
    )


def test_cli_runs_as_a_module_too(small_book_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bookgen.cli",
            "verify",
            "--db",
            small_book_path,
            "--sample",
            "0",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "0 frontier entries re-solved" in result.stdout and "OK" in result.stdout


# -- a damaged derived entry -----------------------------------------------------

CHILDREN_OF_111 = [-15, 2, -15, None, -15, -15, -15]  # 44444433111's move scores


def test_an_altered_derived_score_is_reported_with_its_parents(small_book_copy, solver):
    keys, scores, best = stored_plies(small_book_copy)[11]
    assert best is None  # a derived ply keeps scores only
    moves = moves_of_key(int(keys[0]), SMALL_ROOT)
    truth = solver.solve(Position.from_moves(moves))
    assert (moves, int(scores[0]), truth) == ("44444433111", 2, 2)
    set_score(small_book_copy, moves, 5)

    report = verify(small_book_copy, sample=0, progress=False)
    assert not report.ok
    parents = parents_of(small_book_copy, moves)
    assert parents == ["4444443311"]
    parent_scores = solver.analyze(Position.from_moves("4444443311"))
    assert parent_scores == [-2, 16, 2, None, 15, 15, -1]
    # Its parent stores its score only, and -5 is not its best move: its score still
    # follows from its children, so only the altered entry is reported.
    assert list(report.problems) == [
        (
            f"'{moves}': stored score 5, but its children give score {truth} best 2 moves "
            f"{CHILDREN_OF_111}"
        )
    ]
    assert (report.derived_checked, report.plies_counted) == (DERIVED, ALL_PLIES)

    # A parent's only best move altered (4444443312's is column 6): that parent's score no
    # longer follows from its children either, and both are reported, in key order.
    parent, child = "4444443312", "44444433126"
    parent_scores = solver.analyze(Position.from_moves(parent))
    assert parent_scores == [-1, -1, -3, None, -2, 0, -3]
    child_scores = solver.analyze(Position.from_moves(child))
    assert max(s for s in child_scores if s is not None) == 0
    set_score(small_book_copy, child, 2)
    # its other parent wins at once in column 3, whatever this child's score: not reported
    assert parents_of(small_book_copy, child) == [parent, "4444445526"]
    assert solver.analyze(Position.from_moves("4444445526")) == [2, 4, 16, None, 2, 2, 0]
    report = verify(small_book_copy, sample=0, progress=False)
    canonical = {m: Position.from_moves(m).canonical_key for m in (parent, moves, child)}
    assert moves_of_key(canonical[parent], SMALL_ROOT) == parent  # shown as asked
    shown = moves_of_key(canonical[child], SMALL_ROOT)  # the child, as verify names it
    shown_scores = solver.analyze(Position.from_moves(shown))
    expected = {
        canonical[parent]: f"'{parent}': stored score 0, but its children give score -1 "
        f"best 12 moves {[*parent_scores[:5], -2, -3]}",
        canonical[moves]: f"'{moves}': stored score 5, but its children give score {truth} "
        f"best 2 moves {CHILDREN_OF_111}",
        canonical[child]: f"'{shown}': stored score 2, but its children give score 0 best "
        f"{''.join(str(c) for c, s in enumerate(shown_scores, 1) if s == 0)} "
        f"moves {shown_scores}",
    }
    assert list(report.problems) == [expected[k] for k in sorted(expected)]


def best_moves_of_ply_11(path: str) -> np.ndarray:
    """The true best-move bits of every ply-11 position, from the build's own kernel."""
    from bookgen.builder.derive import derive

    plies = stored_plies(path)
    return derive(plies[11].keys, plies[12].keys, plies[12].scores).best


@pytest.mark.parametrize(
    "field, value, shown",
    [
        ("score", -2, "stored score -2, but"),  # a win stored as a loss
        ("score", 3, "stored score 3, but"),
        # a derived ply that keeps best moves (as the last ply did before the next was
        # sealed): they must be its children's too
        ("best", "5", "stored score 2 best 5, but"),
    ],
)
def test_any_altered_derived_field_is_reported(small_book_copy, field, value, shown):
    if field == "best":
        bits = best_moves_of_ply_11(small_book_copy)
        edit_ply(small_book_copy, 11, lambda segment: segment._replace(best=bits.copy()))
        assert verify(small_book_copy, sample=0, progress=False).ok  # the right ones: fine
        set_best(small_book_copy, "44444433111", value)
    else:
        set_score(small_book_copy, "44444433111", value)
    report = verify(small_book_copy, sample=0, progress=False)
    assert len(report.problems) == 1, report.problems
    assert report.problems[0].startswith("'44444433111': stored score ")
    assert shown in report.problems[0]
    assert report.problems[0].endswith(
        f"but its children give score 2 best 2 moves {CHILDREN_OF_111}"
    )


def test_cli_reports_an_altered_root_and_exits_1(small_book_copy, solver):
    assert solver.solve(Position.from_moves(SMALL_ROOT)) == 16
    set_score(small_book_copy, SMALL_ROOT, 15)
    result = run_cli("--db", small_book_copy, "--sample", "0")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines()[1:] == [
        "FAILED: 1 problems; the first ones:",
        (
            "  '44444433': stored score 15, but its "
            "children give score 16 best 25 moves [0, 16, 2, None, 16, 0, 2]"
        ),
    ]


# -- a damaged frontier entry ----------------------------------------------------


def test_an_altered_frontier_entry_is_caught_by_the_fresh_solve_sample(small_book_copy, solver):
    moves = "444444331233"
    position = Position.from_moves(moves)
    truth = solver.solve(position)
    true_best = "".join(
        str(c) for c in position.legal_moves() if solver.is_best_move(position, c, truth)
    )
    assert (truth, true_best) == (-2, "1256")
    # best moves alone: the parents' check cannot see it, only a re-solve can
    set_best(small_book_copy, moves, "12")
    assert verify(small_book_copy, sample=0, progress=False).ok

    report = verify(small_book_copy, sample=1000, progress=False)
    assert report.frontier_sampled == COUNTS[SMALL_PLY]
    assert list(report.problems) == [
        f"'{moves}': stored score -2 best 12, but a fresh solve gives score -2 best 1256"
    ]


def test_cli_reports_an_altered_frontier_score_and_exits_1(small_book_copy, solver):
    moves = "444444331112"
    truth = solver.solve(Position.from_moves(moves))
    assert truth == -2
    set_score(small_book_copy, moves, 3)
    result = run_cli("--db", small_book_copy, "--sample", "574")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "574 frontier entries re-solved" in lines[0]
    assert lines[1] == "FAILED: 2 problems; the first ones:"
    # its parent no longer matches its children, and the re-solve names the entry itself
    assert lines[2] == (
        "  '44444433111': stored score 2, but its children give score -3 "
        "best 2 moves [-15, -3, -15, None, -15, -15, -15]"
    )
    assert lines[3] == (
        f"  '{moves}': stored score 3 best 2, but a fresh solve gives score {truth} best 2"
    )


# -- counts ----------------------------------------------------------------------


def test_a_deleted_frontier_row_fails_the_count(small_book_copy):
    moves = "444444331112"
    parents = parents_of(small_book_copy, moves)
    assert parents == ["44444433111"]
    delete(small_book_copy, moves)
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.entries == 752
    assert list(report.problems) == [
        "'44444433111': '444444331112' (child of '44444433111') is not in the book",
        "ply 12: 573 stored positions, 574 enumerated (1 missing, 0 unexpected)",
    ]
    result = run_cli("--db", small_book_copy, "--sample", "0")
    assert result.returncode == 1
    assert (
        "  ply 12: 573 stored positions, 574 enumerated (1 missing, 0 unexpected)"
        in result.stdout.splitlines()
    )


def test_an_unexpected_row_fails_the_count(small_book_copy):
    # a ply-12 position that is not reachable from the root: 4444443 then 3 ... (column 3 first)
    extra = Position.from_moves("444444313131")
    add(small_book_copy, 12, extra.canonical_key, 0, 0b1)
    report = verify(small_book_copy, sample=0, progress=False)
    assert list(report.problems) == [
        "ply 12: 575 stored positions, 574 enumerated (0 missing, 1 unexpected)"
    ]


def test_only_complete_plies_are_counted(small_book_copy):
    delete(small_book_copy, "444444331112")
    run_sql(
        small_book_copy,
        "UPDATE meta SET value = '[8, 9, 10, 11]' WHERE name = 'complete_plies'",
        stamped=True,
    )
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.plies_counted == (8, 9, 10, 11)
    # Ply 12 is not complete, so a position missing there is no problem; but ply 11,
    # sealed with its scores only, then has nothing to give its best moves.
    assert list(report.problems) == [
        "ply 11: no best moves stored, and ply 12, whose scores give them, is not complete"
    ]
    with Book.open(small_book_copy) as book:  # what that book answers
        assert book.get("44444433111").best_moves == ()


def test_a_ply_that_keeps_its_best_moves_may_come_before_an_incomplete_one(small_book_copy):
    # As a book grown one ply is while the next is built: ply 11 with its best moves.
    bits = best_moves_of_ply_11(small_book_copy)
    edit_ply(small_book_copy, 11, lambda segment: segment._replace(best=bits.copy()))
    delete(small_book_copy, "444444331112")
    run_sql(
        small_book_copy,
        "UPDATE meta SET value = '[8, 9, 10, 11]' WHERE name = 'complete_plies'",
        stamped=True,
    )
    report = verify(small_book_copy, sample=136 + 573, progress=False)
    assert report.ok, report.problems
    assert report.plies_counted == (8, 9, 10, 11) and report.frontier_sampled == 136 + 573
    with Book.open(small_book_copy) as book:
        assert book.get("44444433111").best_moves == (2,)


def test_a_damaged_block_is_a_problem_named_by_its_ply(small_book_copy):
    size = len(sealed_bytes(small_book_copy)[10])
    run_sql(
        small_book_copy, f"UPDATE block_chunks SET data = substr(data, 1, 40) WHERE id = {10 << 32}"
    )
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.entries == 753 - 36
    (problem,) = [p for p in report.problems if "ply 10" in p]
    assert problem.startswith(f"{small_book_copy!r}: ply 10 is damaged: its blocks take 40 bytes")
    assert problem.endswith("; rebuild it or take the book from a good copy") and size > 40
    assert report.plies_counted == ALL_PLIES


# -- keys that are not what their row says ------------------------------------


def test_a_key_that_is_not_canonical(small_book_copy):
    # the root's mirror image: the same position, but not the key a book stores
    mirror = key("44444455")
    replace_key(small_book_copy, 8, key(SMALL_ROOT), mirror)
    report = verify(small_book_copy, sample=0, progress=False)
    assert report.problems[0] == f"key {mirror}: not the canonical key of a position at ply 8"
    assert "ply 8: 1 stored positions, 1 enumerated (1 missing, 1 unexpected)" in report.problems


def test_a_key_at_the_wrong_ply(small_book_copy):
    moved = key("4444443311")
    (index,) = np.flatnonzero(stored_plies(small_book_copy)[10].keys == np.uint64(moved))
    score = int(stored_plies(small_book_copy)[10].scores[index])
    delete(small_book_copy, "4444443311")
    add(small_book_copy, 9, moved, score, None)  # into ply 9's segment
    report = verify(small_book_copy, sample=0, progress=False)
    assert (
        f"key {key('4444443311')}: not the canonical key of a position at ply 9" in report.problems
    )


def test_a_key_no_game_reaches_is_named_by_its_number(small_book_copy):
    # the root with one more first-player stone: no game reaches it (put among ply 10's
    # keys: a ply's segment whose first and last keys are of another ply is damaged)
    impossible = key(SMALL_ROOT) + (1 << 7)
    replace_key(small_book_copy, 10, int(stored_plies(small_book_copy)[10].keys[5]), impossible)
    report = verify(small_book_copy, sample=0, progress=False)
    assert f"key {impossible}: not the canonical key of a position at ply 10" in report.problems


# -- not a book ------------------------------------------------------------------


def test_missing_or_foreign_files(tmp_path):
    missing = str(tmp_path / "missing.db")
    with pytest.raises(BookNotFoundError, match="no book at"):
        verify(missing, progress=False)
    result = run_cli("--db", missing)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"c4book verify: error: no book at {missing!r}\n"
    assert not os.path.exists(missing)

    text_file = tmp_path / "notes.txt"
    text_file.write_text("hello\n")
    with pytest.raises(NotABookError, match="not a SQLite file"):
        verify(str(text_file), progress=False)
    result = run_cli("--db", str(text_file))
    assert result.returncode == 1
    assert result.stderr.startswith("c4book verify: error:") and str(text_file) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# -- past 64 bits ----------------------------------------------------------------------


def test_a_book_past_64_bits_verifies(wide_book_path):
    report = verify(wide_book_path, sample=20, progress=False)
    assert report.ok, report.problems
    assert report.entries == 274 and report.frontier_sampled == 20
    assert report.plies_counted == tuple(range(48, 54))


def test_an_altered_score_past_64_bits_is_reported(wide_book_path, wide_plies, tmp_path):
    from bookgen.book.write.store import BookStore
    from solver.bitboard import Board
    from solver.wide.packed import moves_of_key

    db = str(tmp_path / "altered.db")
    Path(db).write_bytes(Path(wide_book_path).read_bytes())
    board = Board(8, 8)
    ply = 51
    entries = wide_plies[ply]
    scores = entries.scores.copy()
    scores[0] = -scores[0] if scores[0] else 1
    root_key = Position.from_moves(WIDE_ROOT, board).canonical_key
    store = BookStore(db, WIDE_ROOT, root_key, board=board)
    store.seal(ply, entries._replace(scores=scores))  # a wrong book, under good checksums
    store.close()
    report = verify(db, sample=0, progress=False)
    shown = moves_of_key(int(entries.keys[0, 0]) | int(entries.keys[0, 1]) << 64, WIDE_ROOT, board)
    assert any(p.startswith(f"{shown!r}: stored score {scores[0]}") for p in report.problems)

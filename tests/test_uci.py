"""``c4book export --format uci``: Tromp's UCI Connect-4 layout and rule, checked by a plain
scan of each row's cells (no bitboards), on the shipped book at ply 8 and on other plies."""

import csv
import subprocess

import pytest
from conftest import PLY10, SHIPPED, c4book_command

# connect-4.names, the published set's description: "Number of Instances: 67557 ...
# Class Distribution: 44473 win(65.83%), 16635 loss(24.62%), 6449 draw(9.55%)".
PUBLISHED = {"win": 44473, "loss": 16635, "draw": 6449}
FLIP = {"win": "loss", "loss": "win", "draw": "draw"}


def export(*args: str) -> None:
    result = subprocess.run(
        [*c4book_command(), "export", "--no-progress", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr


def rows(path) -> list[list[str]]:
    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def wins_at(grid: list[list[str]], col: int, row: int, player: str) -> bool:
    """Whether ``player`` dropping a disc at ``(col, row)`` makes four, by walking each of
    the four lines through it cell by cell."""
    width, height = len(grid), len(grid[0])
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            x, y = col + sign * dx, row + sign * dy
            while 0 <= x < width and 0 <= y < height and grid[x][y] == player:
                run += 1
                x, y = x + sign * dx, y + sign * dy
        if run >= 4:
            return True
    return False


def quiet(cells: str, width: int, height: int) -> bool:
    """Whether neither player can win by dropping a disc on any column now."""
    grid = [list(cells[col * height : (col + 1) * height]) for col in range(width)]
    for col, column in enumerate(grid):
        assert "".join(column).rstrip("b").count("b") == 0  # stones lie on stones
        if "b" in column:
            free = column.index("b")
            if wins_at(grid, col, free, "x") or wins_at(grid, col, free, "o"):
                return False
    return True


def check_rule(table: list[list[str]], width: int, height: int) -> None:
    """Each row: cells and an outcome; no player can win at once; no row mirrors another."""
    seen = set()
    for row in table:
        assert len(row) == width * height + 1 and row[-1] in PUBLISHED
        assert set(row[:-1]) <= {"x", "o", "b"}
        assert quiet("".join(row[:-1]), width, height)
        seen.add("".join(row[:-1]))
    assert len(seen) == len(table)
    for cells in seen:
        mirror = "".join(cells[col * height : (col + 1) * height] for col in reversed(range(width)))
        assert mirror == cells or mirror not in seen


@pytest.mark.skipif(not SHIPPED.exists(), reason="no book.db at the top level")
def test_ply_8_is_the_published_set(tmp_path):
    out = tmp_path / "connect-4.data"
    export("--db", str(SHIPPED), "--plies", "8", "--out", str(out))
    table = rows(out)
    assert len(table) == 67557
    assert {word: sum(row[-1] == word for row in table) for word in PUBLISHED} == PUBLISHED
    assert all(row[:-1].count("x") == row[:-1].count("o") == 4 for row in table)
    check_rule(table, 7, 6)


def test_other_plies_follow_the_rule_with_the_first_players_outcome(tmp_path):
    export("--db", str(PLY10), "--plies", "6-7", "--out", str(tmp_path / "quiet.data"))
    export("--db", str(PLY10), "--plies", "6-7", "--out", str(tmp_path / "all.csv"))
    table = rows(tmp_path / "quiet.data")
    check_rule(table, 7, 6)
    # The rows are the stored positions that pass the rule, with the first player's
    # outcome: the mover's at ply 6, the other's at ply 7.
    stored = {
        row[2].replace(".", "b"): (int(row[0]), row[5]) for row in rows(tmp_path / "all.csv")[1:]
    }
    assert {"".join(row[:-1]) for row in table} == {c for c in stored if quiet(c, 7, 6)}
    assert {stored["".join(row[:-1])][0] for row in table} == {6, 7}
    for row in table:
        ply, outcome = stored["".join(row[:-1])]
        assert row[-1] == (outcome if ply % 2 == 0 else FLIP[outcome])


def test_any_board(six_by_five, tmp_path):
    export("--db", six_by_five, "--format", "uci", "--out", str(tmp_path / "six"))
    table = rows(tmp_path / "six")
    assert table and all(len(row) == 31 for row in table)
    check_rule(table, 6, 5)

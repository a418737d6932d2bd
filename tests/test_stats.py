"""``c4book stats`` (``bookgen.cli.stats``): what the small book holds, ply by ply, as JSON
and as the table; a book kept as rows, and one partly packed."""

import json
import os
import re
import sqlite3
from contextlib import closing
from pathlib import Path

from conftest import SMALL_PLY, SMALL_ROOT, book_moves, c4book, sealed_bytes, segment_rows, stamp

COUNTS = {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}


def test_stats_json(small_book_path, solver):
    result = c4book("stats", "--db", small_book_path, "--json")
    assert result.returncode == 0
    stats = json.loads(result.stdout)
    assert stats["positions_per_ply"] == {str(p): n for p, n in COUNTS.items()}
    assert stats["positions"] == sum(COUNTS.values()) == 753
    assert stats["plies_complete"] == sorted(COUNTS)
    assert (stats["root"], stats["max_ply"], stats["db"]) == (
        SMALL_ROOT,
        SMALL_PLY,
        small_book_path,
    )
    assert stats["file_bytes"] == os.path.getsize(small_book_path)
    assert stats["bytes_per_position"] == round(os.path.getsize(small_book_path) / 753, 2)
    # every ply sealed: in blocks, no rows
    sealed = sealed_bytes(small_book_path)
    for ply, count in COUNTS.items():
        blob = sealed[ply]
        assert stats["storage_per_ply"][str(ply)] == {
            "form": "sealed",
            "packed": count,
            "packed_bytes": len(blob),
            "rows": 0,
            "bytes_per_packed_position": round(len(blob) / count, 2),
        }
    for ply, count in COUNTS.items():
        outcome = stats["outcomes_per_ply"][str(ply)]
        assert outcome["win"] + outcome["draw"] + outcome["loss"] == count
    assert stats["outcomes_per_ply"]["8"] == {"win": 1, "draw": 0, "loss": 0}
    for ply in (9, 10):  # recount two plies by searching every position
        signs = [solver.solve(moves, weak=True) for moves in book_moves(small_book_path, ply)]
        assert stats["outcomes_per_ply"][str(ply)] == {
            "win": signs.count(1),
            "draw": signs.count(0),
            "loss": signs.count(-1),
        }


def test_stats_text(small_book_path):
    stats = json.loads(c4book("stats", "--db", small_book_path, "--json").stdout)
    result = c4book("stats", "--db", small_book_path)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == f"book {small_book_path}: root {SMALL_ROOT}, 753 positions"
    assert lines[1].split() == [
        "ply",
        "positions",
        "complete",
        "win",
        "draw",
        "loss",
        "stored",
        "bytes/pos",
        "(outcomes",
        "for",
        "the",
        "player",
        "to",
        "move)",
    ]
    rows = {}
    for line in lines[2 : 2 + len(COUNTS)]:
        ply, count, complete, win, draw, loss, form, per_position = line.split()
        rows[int(ply)] = (
            int(count.replace(",", "")),
            complete,
            int(win),
            int(draw),
            int(loss),
            form,
            per_position,
        )
    assert {p: r[0] for p, r in rows.items()} == COUNTS
    assert all(r[1] == "yes" for r in rows.values())
    for ply, row in rows.items():
        o = stats["outcomes_per_ply"][str(ply)]
        assert row[2:5] == (o["win"], o["draw"], o["loss"])
        stored = stats["storage_per_ply"][str(ply)]
        assert row[5:] == ("sealed", f"{stored['bytes_per_packed_position']:.2f}")
    assert (
        lines[-1] == f"file {os.path.getsize(small_book_path):,} bytes, "
        f"{round(os.path.getsize(small_book_path) / 753, 2)} bytes per position"
    )


def test_stats_of_a_book_kept_as_rows_and_partly_packed(small_rows_book_path, tmp_path):
    rows_stats = json.loads(c4book("stats", "--db", small_rows_book_path, "--json").stdout)
    assert rows_stats["positions_per_ply"] == {str(p): n for p, n in COUNTS.items()}
    assert {p: s["form"] for p, s in rows_stats["storage_per_ply"].items()} == {
        str(p): "rows" for p in COUNTS
    }
    assert rows_stats["storage_per_ply"]["12"] == {
        "form": "rows",
        "packed": 0,
        "packed_bytes": 0,
        "rows": 574,
        "bytes_per_packed_position": None,
    }
    text = c4book("stats", "--db", small_rows_book_path).stdout.splitlines()
    assert re.fullmatch(r"\s+12\s+574\s+yes(\s+\d+){3}\s+rows\s+\(574 rows\)", text[6]), text[6]
    # ply 12 still being built: one segment packed, more rows since (as the builder leaves it)
    path = tmp_path / "partly.db"
    path.write_bytes(Path(small_rows_book_path).read_bytes())
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE meta SET value = '[8, 9, 10, 11]' WHERE name = 'complete_plies'")
        conn.execute("DELETE FROM positions WHERE ply = 12 AND key % 2 = 0")
        conn.commit()
        held = conn.execute("SELECT count(*) FROM positions WHERE ply = 12").fetchone()[0]
    stamp(str(path))  # the meta's checksum, as a build writes it
    assert c4book("pack", "--db", str(path)).stdout == f"{path}: packed {179 + held} rows\n"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("ATTACH ? AS rows_book", (f"file:{small_rows_book_path}?mode=ro",))
        conn.execute(
            "INSERT INTO positions SELECT * FROM rows_book.positions WHERE ply = 12 AND key % 2 = 0"
        )
        conn.commit()
    stats = json.loads(c4book("stats", "--db", str(path), "--json").stdout)
    ((_, _, blob),) = segment_rows(str(path), 12)
    assert stats["positions_per_ply"]["12"] == 574 and stats["plies_complete"] == [8, 9, 10, 11]
    assert stats["storage_per_ply"]["12"] == {
        "form": "packed+rows",
        "packed": held,
        "packed_bytes": len(blob),
        "rows": 574 - held,
        "bytes_per_packed_position": round(len(blob) / held, 2),
    }
    assert stats["storage_per_ply"]["11"]["form"] == "sealed"
    line = c4book("stats", "--db", str(path)).stdout.splitlines()[6]
    # Ply 12 is not marked complete here, though it holds every position: all of it.
    assert stats["coverage_per_ply"] == {"12": 1.0}
    assert line.split()[6:] == [
        "packed+rows",
        f"{len(blob) / held:.2f}",
        f"({574 - held:,}",
        "rows)",
        "(100.0%",
        "of",
        "the",
        "ply)",
    ]

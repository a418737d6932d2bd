"""``bookgen.cli.arguments``: what each option takes, at the edges of its bounds; what
it refuses is walked end to end, as ``c4book`` says it, in ``test_bad_input``."""

import argparse

import pytest

from bookgen.cli import arguments
from bookgen.limits import MAX_SAMPLE, MAX_SERVE_WORKERS, MAX_TIME_BUDGET
from solver.bitboard import MAX_THREADS

# (type, accepted text -> value, refused texts)
EDGES = [
    (
        arguments.seconds,
        {"0.5": 0.5, "1e1": 10.0, ".25": 0.25, "86400": MAX_TIME_BUDGET, " 2 ": 2.0},
        ["0", "-1", "86400.5", "nan", "inf", "1e999", "\u0661", "1_0", "0x10", ""],
    ),
    (
        arguments.whole,
        {"3": 3, "-2": -2, "+7": 7, "007": 7},
        ["٣", "3.0", "1e3", "1_000", "", "9" * 31],
    ),
    (
        arguments.search_threads,
        {"1": 1, str(MAX_THREADS): MAX_THREADS},
        ["0", str(MAX_THREADS + 1), "٢"],
    ),
    (
        arguments.serve_workers,
        {"1": 1, str(MAX_SERVE_WORKERS): MAX_SERVE_WORKERS},
        ["0", str(MAX_SERVE_WORKERS + 1)],
    ),
    (
        arguments.dry_run_sample,
        {"1": 1, str(MAX_SAMPLE): MAX_SAMPLE},
        ["0", "-1", str(MAX_SAMPLE + 1)],
    ),
    (arguments.verify_sample, {"0": 0, str(MAX_SAMPLE): MAX_SAMPLE}, ["-1", str(MAX_SAMPLE + 1)]),
    (arguments.positive, {"1": 1, "100000": 100000}, ["0", "-3", "٢"]),
    (arguments.port, {"0": 0, "65535": 65535}, ["65536", "-1", "٨٠"]),
    (arguments.table_log2, {"10": 10, "32": 32}, ["9", "33", "٢٠"]),
    (
        arguments.written_db,
        {
            "book.db": "book.db",
            "sqlite:///b.db": "sqlite:///b.db",
            "postgresql://h/db": "postgresql://h/db",
        },
        ["", ":memory:", "sqlite://", "sqlite:///", "sqlite:///:memory:", "SQLite+pysqlite://"],
    ),
]


@pytest.mark.parametrize(
    "kind, accepted, refused", EDGES, ids=[kind.__name__ for kind, _, _ in EDGES]
)
def test_each_option_takes_its_range_in_ascii_digits_and_nothing_else(kind, accepted, refused):
    for text, value in accepted.items():
        assert kind(text) == value, text
    for text in refused:
        with pytest.raises(argparse.ArgumentTypeError, match=r"^'") as raised:
            kind(text)
        assert len(str(raised.value)) < 200  # a long text is cut short

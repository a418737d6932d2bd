from pathlib import Path

import numpy as np
import pytest
from conftest import (
    SMALL_PLY,
    SMALL_ROOT,
    WIDE_PLY,
    WIDE_ROOT,
    back_to_local_ray,
    book_keys,
    entries,
    free_pages,
    open_store,
    sealed_bytes,
    segment_rows,
)

from bookgen.book.write.store import BookStore
from bookgen.builder.cluster import AddressError
from bookgen.builder.driver import BuildArgumentError, _sorted_entries, build
from bookgen.builder.listing import keys_by_ply
from solver import Board, BoardSizeError, IllegalMoveError, Position, Solver
from solver.packed import moves_of_key


def rows(path: str) -> list[tuple]:
    """Every entry as stored, ``(key, ply, score, best_moves)``: the node count, which
    depends on table history, is not kept."""
    return entries(path)


def sealed(path: str) -> dict[int, tuple[int, bool]]:
    """Per ply: ``(segments, keeps best moves)``, and no row left anywhere."""
    store = open_store(path)
    try:
        assert store.row_counts() == {}
        storage = store.storage_by_ply()
        found = {}
        for ply in storage:
            assert store.is_sealed(ply), ply
            found[ply] = (storage[ply][0], store.best_at(ply) is not None)
        return found
    finally:
        store.close()


def test_counts_per_ply_equal_the_enumeration(small_book_path):
    levels = keys_by_ply(Position.from_moves(SMALL_ROOT), SMALL_PLY)
    store = open_store(small_book_path)
    try:
        counts = store.count_by_ply()
    finally:
        store.close()
    keys = {ply: book_keys(small_book_path, ply) for ply in levels}
    assert counts == {8: 1, 9: 6, 10: 36, 11: 136, 12: 574}
    assert all(keys[ply] == levels[ply].tolist() for ply in levels)


def test_every_ply_is_sealed_and_only_the_last_keeps_best_moves(small_book_path):
    assert sealed(small_book_path) == {
        8: (1, False),
        9: (6, False),
        10: (36, False),
        11: (136, False),
        12: (574, True),
    }


def test_every_score_equals_a_direct_solve_and_best_moves_match_children(small_book_path):
    from bookgen import Book

    solver = Solver(table_log2=20)
    with Book.open(small_book_path) as book:
        for key, ply, score, best in rows(small_book_path):
            moves = moves_of_key(key)
            position = Position.from_moves(moves)
            assert position.key == key and position.ply == ply
            scores = solver.analyze(position)
            assert score == max(s for s in scores if s is not None) == solver.solve(position)
            true_best = "".join(str(c) for c, s in enumerate(scores, 1) if s == score)
            # stored at the last ply; derived from the children's scores above it
            assert best == (true_best if ply == SMALL_PLY else None)
            entry = book.get(moves)
            assert entry.wdl == (score > 0) - (score < 0) and entry.score == score
            assert "".join(map(str, entry.best_moves)) == true_best


def test_rerun_is_a_no_op(small_book_copy, ray_session):
    before = rows(small_book_copy)
    blobs = {ply: segment_rows(small_book_copy, ply) for ply in range(8, SMALL_PLY + 1)}
    summary = build(Path(small_book_copy), SMALL_PLY, SMALL_ROOT, progress=False)  # a Path too
    assert (summary.searched, summary.derived, summary.already_stored) == (0, 0, 574)
    assert summary.db == small_book_copy
    assert rows(small_book_copy) == before
    # every sealed ply left byte for byte
    assert {ply: segment_rows(small_book_copy, ply) for ply in blobs} == blobs


def test_the_frontier_bar_starts_when_the_workers_are_ready(
    tmp_path, ray_session, capsys, monkeypatch
):
    # Issue 54: the bar counted the workers' start (and the kernels' compile) as search:
    # 4/6163 after 35 s, an ETA of 15 hours.  It now says what it waits for, and starts
    # with the first batch back, whose rate it does not guess.
    import re

    from bookgen import progress

    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)  # every update a line
    build(str(tmp_path / "bar.db"), 10, SMALL_ROOT, table_log2=20)
    lines = capsys.readouterr().err.splitlines()
    waiting = [i for i, line in enumerate(lines) if "loading the search kernels" in line]
    bar = [line for line in lines if line.startswith("ply 10 frontier:") and "%|" in line]
    assert waiting and bar and lines.index(bar[0]) > waiting[0], lines
    assert re.search(r"\| \d+/36 \[00:00<\?, \?pos/s\]$", bar[0]), bar[0]  # no rate yet
    assert bar[-1].startswith("ply 10 frontier: 100%|##########| 36/36 "), bar[-1]


def test_a_book_to_the_last_ply_answers_every_position(tmp_path, ray_session):
    # From 34 stones on, to 42: no position to search (every ply-42 game is over), every
    # ply derived, ply 42 sealed empty; ply 41's moves fill the board or win.
    from bookgen import Book
    from bookgen.builder.verify import verify

    root = "5471256622612712662157437715763153"
    path = str(tmp_path / "last.db")
    summary = build(path, 42, root, progress=False, table_log2=18)
    assert summary.searched == 0 and summary.derived == sum(
        len(k) for k in keys_by_ply(Position.from_moves(root), 42).values()
    )
    assert sealed(path)[42] == (0, True) and sealed(path)[41] == (sealed(path)[41][0], False)
    solver = Solver(table_log2=18)
    with Book.open(path) as book:
        assert book.info.plies_complete == tuple(range(34, 43))
        for key, _ply, score, _ in rows(path):
            moves = moves_of_key(key, root)
            entry = book.get(moves)
            assert entry.score == score and list(entry.move_scores) == solver.analyze(
                Position.from_moves(moves)
            ), moves
        asked = [moves_of_key(key, root) for key, *_ in rows(path)]
        assert book.get_many(asked) == [book.get(m) for m in asked]
    assert verify(path, sample=0, progress=False).ok


def test_one_worker_gives_the_same_book_as_two(small_book_path, tmp_path, ray_session):
    one = str(tmp_path / "one.db")
    summary = build(one, SMALL_PLY, SMALL_ROOT, workers=1, progress=False, table_log2=18)
    assert summary.searched == 574 and summary.derived == 1 + 6 + 36 + 136
    assert rows(one) == rows(small_book_path)


def test_search_time_adds_up_across_runs(tmp_path, ray_session):
    from bookgen import Book

    path = str(tmp_path / "timed.db")
    first = build(path, 10, SMALL_ROOT, progress=False, table_log2=18)
    second = build(path, 11, SMALL_ROOT, progress=False, table_log2=18)
    with Book.open(path) as book:
        recorded = book.info.search_core_seconds
    total = first.core_seconds + second.core_seconds
    assert total > 0 and recorded == pytest.approx(total, rel=1e-6)


def test_extending_a_book_adds_plies_and_fills_the_old_frontier(
    small_book_path, tmp_path, ray_session
):
    shallow = str(tmp_path / "shallow.db")
    build(shallow, 10, SMALL_ROOT, progress=False, table_log2=18)
    summary = build(shallow, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=18)
    assert summary.searched == 574 and summary.already_stored == 0
    assert rows(shallow) == rows(small_book_path)
    assert sealed(shallow) == sealed(small_book_path)  # ply 10 no longer keeps best moves


def test_a_book_held_open_through_a_build_is_left_one_file_readers_add_nothing_to(
    tmp_path, ray_session
):
    import os
    import sqlite3
    from contextlib import closing

    from bookgen import Book

    path = str(tmp_path / "held.db")
    build(path, 10, SMALL_ROOT, progress=False, table_log2=18)
    with Book.open(path) as held:  # a server or a notebook, open through the next build
        build(path, 11, SMALL_ROOT, progress=False, table_log2=18)
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert os.listdir(tmp_path) == ["held.db"]
        with Book.open(path) as later:
            assert later.info.max_ply == 11 and held.info.max_ply == 10
        assert os.listdir(tmp_path) == ["held.db"]  # no -wal, no -shm


def test_growing_a_book_one_ply_bounds_the_frontier_by_its_parents(
    small_book_path, tmp_path, ray_session
):
    grown = str(tmp_path / "grown.db")
    build(grown, SMALL_PLY - 1, SMALL_ROOT, progress=False, table_log2=18)
    summary = build(grown, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=18)
    # Every ply-12 position has a parent at ply 11; the best children of those
    # parents have their exact score before any search.
    assert summary.searched == summary.bounded == 574
    assert 0 < summary.exact < 574
    assert "bounded by the ply above: 574" in summary.report()
    assert rows(grown) == rows(small_book_path)
    assert sealed(grown) == sealed(small_book_path)
    assert free_pages(grown)[0] == 0  # the pages of the rows the seal dropped were given back


@pytest.mark.parametrize(
    "root, ply, message",
    [
        ("4489", 10, "illegal move '8'"),
        ("44444444", 10, "column 4 is full"),
        ("1212121", 10, "finished game"),
        ("4453", 3, "between the root's ply (4) and 42"),
        ("4453", 43, "between the root's ply (4) and 42"),
    ],
)
def test_bad_requests_fail_before_writing(tmp_path, root, ply, message):
    path = tmp_path / "never.db"
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build(str(path), ply, root, progress=False)
    assert not path.exists()


@pytest.mark.parametrize("address", ["nonsense", "host:", "host:99999", "http://x:1", ""])
def test_malformed_address_is_rejected_before_writing(tmp_path, address):
    path = tmp_path / "never.db"
    with pytest.raises(AddressError, match="malformed --address"):
        build(str(path), 10, SMALL_ROOT, address=address, progress=False)
    assert not path.exists()


def test_a_book_for_another_root_is_refused(small_book_copy):
    from bookgen import IncompatibleBookError

    before = rows(small_book_copy)
    with pytest.raises(IncompatibleBookError, match="root '44444433'"):
        build(small_book_copy, 12, "4444443", progress=False)
    assert rows(small_book_copy) == before


def test_bad_worker_count(tmp_path):
    with pytest.raises(BuildArgumentError, match="--workers"):
        build(str(tmp_path / "x.db"), 10, SMALL_ROOT, workers=0, progress=False)
    with pytest.raises(BuildArgumentError, match="--threads must be at least 1, got 0"):
        build(str(tmp_path / "x.db"), 10, SMALL_ROOT, threads=0, progress=False)


def test_more_threads_than_any_node_has_is_refused(tmp_path, ray_session):
    # Ray would wait forever for a node with 3 CPUs; say so instead.
    with pytest.raises(
        BuildArgumentError, match=r"--threads 3 is more than any node's CPUs \(at most 2\)"
    ):
        build(str(tmp_path / "x.db"), 10, SMALL_ROOT, threads=3, progress=False)


def test_two_single_thread_workers_give_the_same_book(small_book_path, tmp_path, ray_session):
    path = str(tmp_path / "separate.db")
    summary = build(
        path, SMALL_PLY, SMALL_ROOT, workers=2, threads=1, progress=False, table_log2=18
    )
    assert summary.searched == 574
    assert rows(path) == rows(small_book_path)
    assert "solvers: 2 processes x 1 thread; table 2 MiB per process" in summary.report()
    # The workers start and load their kernels with the first batches, not in "start".
    timings = summary.timings
    assert 0 < timings["first batch"] <= timings["frontier"]
    assert f"first batch back after {timings['first batch']:.1f} s" in summary.report()


@pytest.mark.slow  # 15-27 s; test_multihost runs real hosts by default
def test_two_nodes_run_one_threaded_process_each(small_book_path, tmp_path, ray_session):
    import ray
    from ray.cluster_utils import Cluster

    from bookgen.builder.cluster import WorkerPlan, plan_workers

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2})
    try:
        cluster.add_node(num_cpus=2)
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
        cluster.wait_for_nodes()
        assert plan_workers(None, None) == WorkerPlan(processes=2, threads=2)
        path = str(tmp_path / "two-nodes.db")
        summary = build(path, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=18)
        assert summary.searched == 574 and rows(path) == rows(small_book_path)
        assert "solvers: 2 processes x 2 threads; table 2 MiB per process" in summary.report()
    finally:
        back_to_local_ray(cluster)


def test_solved_batches_join_in_key_order_whatever_order_they_came_back_in():
    def batch(*keys):
        keys = np.array(keys, dtype=np.uint64)
        return keys, keys.astype(np.int8) % 7, keys.astype(np.uint8) * 2

    solved = [batch(7, 9), batch(1, 3, 5), batch(11)]
    keys, scores, best = _sorted_entries(solved)
    assert (keys.tolist(), scores.tolist()) == ([1, 3, 5, 7, 9, 11], [1, 3, 5, 0, 2, 4])
    assert best.tolist() == [2, 6, 10, 14, 18, 22]
    assert solved == []  # handed over, not held twice
    # Batches whose ranges overlap (never cut so, but the join stays exact): sorted anyway.
    keys, scores, best = _sorted_entries([batch(2, 8), batch(1, 5)])
    assert (keys.tolist(), scores.tolist(), best.tolist()) == (
        [1, 2, 5, 8],
        [1, 2, 5, 1],
        [2, 4, 10, 16],
    )


def test_a_frontier_sealed_from_memory_is_the_one_read_back_from_its_rows(
    small_book_path, tmp_path, ray_session
):
    # A fresh build seals its frontier from what it solved; a build that finds some of
    # it stored reads the rows back.  Both give the same segments, byte for byte.
    from bookgen.book.format.rows import Rows

    book = open_store(small_book_path)
    try:
        keys, scores, best = book.entries_at(SMALL_PLY)
    finally:
        book.close()
    resumed = str(tmp_path / "resumed.db")
    root = Position.from_moves(SMALL_ROOT)
    store = BookStore(resumed, SMALL_ROOT, root.canonical_key)
    try:
        store.insert_new(Rows(SMALL_PLY, keys[:3], scores[:3], best[:3], nodes=np.ones(3, int)))
    finally:
        store.close()
    summary = build(resumed, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=18)
    assert (summary.searched, summary.already_stored) == (574 - 3, 3)

    def blobs(path):  # (count, data) of each ply's segments
        return {p: [row[1:] for row in segment_rows(path, p)] for p in range(8, SMALL_PLY + 1)}

    assert blobs(resumed) == blobs(small_book_path)


# -- a book of another board ----------------------------------------------------------


def test_a_6x5_book_holds_every_position_and_verifies(six_by_five):
    from bookgen.builder.verify import verify

    store = open_store(six_by_five)
    try:
        assert store.board is Board(6, 5)
        assert store.count_by_ply() == {0: 1, 1: 3, 2: 18, 3: 78, 4: 330, 5: 1128, 6: 3935}
    finally:
        store.close()
    report = verify(six_by_five, sample=100, progress=False)
    assert report.ok and report.frontier_sampled == 100 and report.plies_counted == tuple(range(7))


def test_a_6x5_book_answers_as_the_solver_does(six_by_five):
    from bookgen import Book

    board = Board(6, 5)
    solver = Solver(board=board, table_log2=20)
    with Book.open(six_by_five) as book:
        assert book.board is board and (book.info.width, book.info.height) == (6, 5)
        assert book.get("").score == 0 == solver.solve(Position(board))  # 6x5 is a draw
        for moves in ("", "3", "34", "4334", "116655", "616161", "3456"):
            position = Position.from_moves(moves, board)
            entry = book.get(moves)
            assert entry.score == solver.solve(position), moves
            expected = solver.analyze(position)
            best = tuple(c for c, s in enumerate(expected, 1) if s == entry.score)
            assert entry.best_moves == best, moves
            if position.ply < 6:
                assert list(entry.move_scores) == expected, moves
            assert book.get(position.mirror()).score == entry.score
        with pytest.raises(IllegalMoveError, match="columns are digits 1-6"):
            book.get("17")
        with pytest.raises(BoardSizeError, match="this book is of 6x5"):
            book.get(Position.from_moves("17"))


@pytest.mark.slow  # (over a minute in CI: 8x8 kernels compiled in the workers)
def test_a_book_is_grown_on_its_own_board_and_refuses_another(six_by_five, tmp_path, ray_session):
    import shutil

    from bookgen.book.format.errors import BookSizeError

    path = str(tmp_path / "grown.db")
    shutil.copy(six_by_five, path)
    with pytest.raises(BookSizeError, match="6x5 board, not 7x6"):
        build(path, 7, "", board="7x6", progress=False)
    summary = build(path, 7, "", progress=False, table_log2=20)  # no board: the book's own
    assert summary.searched == 11871 and summary.exact > 0  # bounded by the ply above
    store = open_store(path)
    try:
        assert store.board is Board(6, 5) and store.count_by_ply()[7] == 11871
    finally:
        store.close()


def test_a_book_past_64_bits_builds_and_verifies(tmp_path, ray_session, wide_plies):
    # Keys of two words (issue 52): a late 8x8 root, its frontier solved on Ray.
    from bookgen import Book
    from bookgen.builder.verify import verify
    from solver.wide.packed import moves_of_keys as wide_moves_of_keys

    db = str(tmp_path / "wide.db")
    summary = build(db, WIDE_PLY, WIDE_ROOT, board="8x8", workers=1, table_log2=20, progress=False)
    assert summary.positions_per_ply == {p: len(s.keys) for p, s in wide_plies.items()}
    assert verify(db, sample=30, progress=False).ok
    with Book.open(db) as book:
        assert book.info.max_ply == WIDE_PLY and str(book.board) == "8x8"
        for segment in wide_plies.values():
            moves = wide_moves_of_keys(segment.keys, WIDE_ROOT, book.board)
            assert [book.get(m).score for m in moves] == segment.scores.tolist()
    rerun = build(db, WIDE_PLY, WIDE_ROOT, workers=1, table_log2=20, progress=False)
    assert rerun.already_stored == len(wide_plies[WIDE_PLY].keys) and rerun.searched == 0


def wide_build(path, ply: int = WIDE_PLY, **options):
    """``build`` of the 8x8 book of ``WIDE_ROOT`` at ``path``, one worker."""
    return build(
        str(path), ply, WIDE_ROOT, board="8x8", workers=1, table_log2=20, progress=False, **options
    )


@pytest.fixture(scope="module")
def wide_whole(tmp_path_factory, ray_session) -> str:
    """The 8x8 book of ``WIDE_ROOT`` to ``WIDE_PLY`` in one build, for the module."""
    path = str(tmp_path_factory.mktemp("wide") / "whole.db")
    wide_build(path)
    return path


def test_a_book_past_64_bits_grown_a_ply_is_bounded_by_the_ply_above(
    tmp_path, wide_whole, wide_plies
):
    grown = tmp_path / "grown.db"
    wide_build(grown, WIDE_PLY - 1)
    summary = wide_build(grown)
    # Every ply-53 position has a parent at ply 52, whose best moves the book keeps.
    frontier = len(wide_plies[WIDE_PLY].keys)
    assert summary.searched == summary.bounded == frontier
    assert 0 < summary.exact < frontier
    assert sealed(str(grown)) == sealed(wide_whole)
    assert sealed_bytes(str(grown)) == sealed_bytes(wide_whole)  # the same book


def test_a_book_past_64_bits_built_in_parts_and_merged_is_the_whole_build(
    tmp_path, wide_whole, wide_plies
):
    from bookgen.book.write.merge import merge

    parts = [str(tmp_path / f"part{n}.db") for n in (1, 2, 3)]
    searched = [wide_build(path, part=f"{n}/3").searched for n, path in enumerate(parts, 1)]
    frontier = len(wide_plies[WIDE_PLY].keys)
    assert sum(searched) == frontier and max(searched) - min(searched) <= 1
    target = str(tmp_path / "merged.db")
    copied = merge(target, parts)
    assert [c.plies for c in copied] == [{WIDE_PLY: n} for n in searched]
    merge(target, parts[1:2])  # again: nothing changes
    sealing = wide_build(target)
    assert sealing.searched == 0 and sealing.already_stored == frontier
    assert sealed_bytes(target) == sealed_bytes(wide_whole)

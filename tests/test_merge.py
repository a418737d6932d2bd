"""``bookgen.book.merge`` with ``build --part``: a frontier built in parts, each into a book
of its own, merged and sealed, is the book one build makes, entry by entry; a merge is
run again harmlessly, and refuses parts that do not belong together, naming them."""

import shutil

import pytest
from conftest import SMALL_PLY, SMALL_ROOT, entries

from bookgen.book.merge import merge
from bookgen.book.schema import IncompatibleBookError
from bookgen.builder.driver import build


def build_part(path, part, ply=SMALL_PLY, root=SMALL_ROOT):
    return build(str(path), ply, root, progress=False, table_log2=20, part=part)


def test_three_parts_merged_and_sealed_are_the_whole_build(small_book_path, tmp_path):
    parts = [tmp_path / f"part{n}.db" for n in (1, 2, 3)]
    searched = []
    for n, path in enumerate(parts, start=1):
        summary = build_part(path, f"{n}/3")
        assert summary.exit_status == 0 and summary.part == f"{n}/3"
        assert "merge" in summary.report()  # says what to do next
        searched.append(summary.searched)
    whole = entries(small_book_path)
    frontier = sum(1 for e in whole if e[1] == SMALL_PLY)
    assert sum(searched) == frontier and max(searched) - min(searched) <= 1
    again = build_part(parts[0], "1/3")  # resumed: nothing left to search in its part
    assert again.searched == 0 and again.already_stored == searched[0]

    target = tmp_path / "merged.db"
    copied = merge(str(target), [str(p) for p in parts])
    assert [c.plies for c in copied] == [{SMALL_PLY: n} for n in searched]
    merge(str(target), [str(parts[1])])  # again: nothing changes
    sealed = build(str(target), SMALL_PLY, SMALL_ROOT, progress=False, table_log2=20)
    assert sealed.searched == 0 and sealed.already_stored == frontier
    assert entries(str(target)) == whole


def test_a_merge_refuses_books_that_do_not_belong_together(small_book_path, tmp_path):
    part = tmp_path / "part.db"
    build_part(part, "1/2", ply=SMALL_PLY - 1)
    other_root = tmp_path / "other.db"
    build_part(other_root, "1/2", ply=8, root="4444443")
    cases = [
        (other_root, part, "of another root"),
        (small_book_path, part, f"already holds ply {SMALL_PLY - 1} whole"),
    ]
    for target, source, why in cases:
        copy = tmp_path / "target.db"
        shutil.copy(target, copy)
        with pytest.raises(IncompatibleBookError, match=why):
            merge(str(copy), [str(source)])
    sealed = tmp_path / "sealed.db"
    shutil.copy(small_book_path, sealed)
    with pytest.raises(
        IncompatibleBookError, match=f"holds ply {len(SMALL_ROOT)} whole and the target"
    ):
        merge(str(tmp_path / "new.db"), [str(part), str(sealed)])
    assert not (tmp_path / "new.db").exists()  # a failed merge leaves no book it made
    with pytest.raises(IncompatibleBookError, match="is no book"):
        merge(str(tmp_path / "new.db"), [str(tmp_path / "missing.db")])

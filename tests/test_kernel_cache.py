"""Tests for ``solver._kernel_cache``: numba's cache goes when a source it was made from changes."""

from solver._kernel_cache import SOLVER, STAMP, drop_stale, fingerprint


def kernels(tmp_path):
    """A folder of sources with numba cache files beside them, as numba leaves them."""
    (tmp_path / "_search.py").write_text("def negamax(): pass\n")
    (tmp_path / "_bounds.py").write_text("def upper_bound(): return 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for name in ("_search.negamax-98.py311.nbi", "_search.negamax-98.py311.1.nbc"):
        (cache / name).write_bytes(b"compiled")
    (cache / "_search.cpython-311.pyc").write_bytes(b"bytecode")
    return cache


def test_a_change_to_any_source_drops_every_kernel(tmp_path):
    cache = kernels(tmp_path)
    assert drop_stale(tmp_path, fingerprint(tmp_path))  # no stamp yet: made by what?
    assert sorted(p.name for p in cache.iterdir()) == ["_search.cpython-311.pyc", STAMP]
    (cache / "_search.negamax-98.py311.nbi").write_bytes(b"compiled again")
    assert not drop_stale(tmp_path, fingerprint(tmp_path))  # the same sources: kept
    assert (cache / "_search.negamax-98.py311.nbi").exists()
    # Only the inlined file changes, as after a git pull: numba alone would keep the kernel.
    (tmp_path / "_bounds.py").write_text("def upper_bound(): return -1\n")
    assert drop_stale(tmp_path, fingerprint(tmp_path))
    assert not (cache / "_search.negamax-98.py311.nbi").exists()


def test_the_fingerprint_covers_every_folder_given(tmp_path):
    kernels(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "keys.py").write_text("ABSENT = -1\n")
    before = fingerprint(tmp_path, other)
    (other / "keys.py").write_text("ABSENT = -2\n")
    assert fingerprint(tmp_path, other) != before
    assert fingerprint(tmp_path) == fingerprint(tmp_path)


def test_a_cache_that_cannot_be_written_is_left_alone(tmp_path):
    # (Root writes into read-only folders, so the folder's cache is a file here instead.)
    (tmp_path / "_search.py").write_text("def negamax(): pass\n")
    (tmp_path / "__pycache__").write_bytes(b"not a folder")
    assert not drop_stale(tmp_path, fingerprint(tmp_path))
    assert (tmp_path / "__pycache__").read_bytes() == b"not a folder"


def test_the_solver_s_cache_is_stamped_with_its_sources():
    import solver._search  # noqa: F401  (loads the kernels' modules, which stamp the cache)

    stamp = SOLVER / "__pycache__" / STAMP
    assert stamp.read_text() == fingerprint(SOLVER)


def test_the_wide_kernels_cache_is_stamped_with_theirs_and_the_solver_s():
    # They inline the one-word helpers too: a change to either drops them.
    import solver.wide._search  # noqa: F401

    stamp = SOLVER / "wide" / "__pycache__" / STAMP
    assert stamp.read_text() == fingerprint(SOLVER, SOLVER / "wide")

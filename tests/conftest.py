"""Shared fixtures: one real local Ray for the session, and real book files built by it."""

import shutil

import pytest

SMALL_ROOT = "44444433"  # column 4 full: small subtrees that still take real search
SMALL_PLY = 12


@pytest.fixture(scope="session")
def ray_session():
    import ray

    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False,
                 logging_level="WARNING", log_to_driver=False)
    yield ray


@pytest.fixture(scope="session")
def small_book_path(tmp_path_factory, ray_session) -> str:
    """A book from SMALL_ROOT to SMALL_PLY built by the real driver; treat as read-only."""
    from bookgen.build import build

    path = str(tmp_path_factory.mktemp("books") / "small.db")
    build(path, SMALL_PLY, SMALL_ROOT, progress=False, table_log2=20)
    return path


@pytest.fixture()
def small_book_copy(small_book_path, tmp_path) -> str:
    """A private copy of the small book that a test may change."""
    path = str(tmp_path / "copy.db")
    shutil.copy(small_book_path, path)
    return path

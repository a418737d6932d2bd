"""A build's settings as one frozen value: made, checked, refused."""

import dataclasses

import pytest
from conftest import SMALL_ROOT, WIDE_ROOT

from bookgen.builder import WORKER_TABLE_LOG2
from bookgen.builder.cluster import AddressError
from bookgen.builder.config import BuildArgumentError, BuildConfig
from bookgen.builder.part import Part, PartError
from solver import Board, BoardSizeError, IllegalMoveError, Position


@pytest.fixture(autouse=True)
def no_ray_address(monkeypatch):
    """``create`` reads RAY_ADDRESS: the tests' own, not whatever this shell holds."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)


def test_a_config_holds_the_settings_and_the_root_position(tmp_path):
    config = BuildConfig.create(tmp_path / "a.db", 10, SMALL_ROOT, workers=2, part="2/8")
    assert config.db == str(tmp_path / "a.db") and isinstance(config.db, str)  # a Path too
    assert (config.ply, config.root, config.workers, config.threads) == (10, SMALL_ROOT, 2, None)
    assert (config.address, config.table_log2, config.part) == (None, WORKER_TABLE_LOG2, Part(2, 8))
    assert config.progress and not config.verbose
    assert config.board is Board(7, 6) and config.position.ply == 8
    assert config.position.key == Position.from_moves(SMALL_ROOT).key


def test_a_config_is_frozen_and_a_value(tmp_path):
    config = BuildConfig(str(tmp_path / "a.db"), 10, SMALL_ROOT)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.ply = 12
    assert config == BuildConfig(str(tmp_path / "a.db"), 10, SMALL_ROOT)
    assert hash(config) == hash(BuildConfig(str(tmp_path / "a.db"), 10, SMALL_ROOT))
    assert config != dataclasses.replace(config, workers=1)
    assert "position" not in repr(config)  # the root's moves say it


@pytest.mark.parametrize(
    "settings, error, message",
    [
        ({"root": "1212121"}, BuildArgumentError, "--root '1212121' is a finished game"),
        ({"ply": 7}, BuildArgumentError, r"--ply 7 must be between the root's ply \(8\) and 42"),
        ({"ply": 43}, BuildArgumentError, r"--ply 43 must be between the root's ply \(8\) and 42"),
        ({"root": "4489"}, IllegalMoveError, "illegal move '8'"),
        ({"workers": 0}, BuildArgumentError, "--workers must be at least 1, got 0"),
        ({"threads": -1}, BuildArgumentError, "--threads must be at least 1, got -1"),
        ({"table_log2": 9}, BuildArgumentError, "--table-log2 must be between 10 and 32, got 9"),
        ({"address": "host:"}, AddressError, "malformed --address 'host:'"),
    ],
)
def test_a_bad_setting_is_refused_by_name(settings, error, message):
    settings = {"db": "never.db", "ply": 10, "root": SMALL_ROOT, **settings}
    with pytest.raises(error, match=message) as refused:
        BuildConfig(**settings)
    assert isinstance(refused.value, ValueError)
    with pytest.raises(error, match=message):  # made either way, checked either way
        BuildConfig.create(**settings)


def test_a_changed_config_is_checked_again(tmp_path):
    config = BuildConfig(str(tmp_path / "a.db"), 10, SMALL_ROOT)
    with pytest.raises(BuildArgumentError, match="--workers must be at least 1, got 0"):
        dataclasses.replace(config, workers=0)
    deeper = dataclasses.replace(config, ply=12)
    assert deeper.ply == 12 and deeper.position == config.position


def test_the_first_bad_setting_is_the_one_named():
    # The order build() has always checked them in: the root, the address, then the counts.
    with pytest.raises(BuildArgumentError, match="--root"):
        BuildConfig("never.db", 10, "1212121", address="nonsense", workers=0)
    with pytest.raises(AddressError):
        BuildConfig("never.db", 10, SMALL_ROOT, address="nonsense", workers=0)
    with pytest.raises(BuildArgumentError, match="--workers"):
        BuildConfig("never.db", 10, SMALL_ROOT, workers=0, table_log2=99)


def test_create_finds_the_cluster_in_ray_address_unless_one_is_given(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    assert BuildConfig.create("never.db", 10, SMALL_ROOT).address == "10.0.0.1:6379"
    assert BuildConfig.create("never.db", 10, SMALL_ROOT, address="local").address == "local"
    monkeypatch.setenv("RAY_ADDRESS", "http://10.0.0.1:8265")
    with pytest.raises(AddressError, match="is a dashboard"):
        BuildConfig.create("never.db", 10, SMALL_ROOT)


def test_a_bad_root_is_named_before_a_malformed_ray_address(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "not an address")
    with pytest.raises(BuildArgumentError, match="--root '1212121' is a finished game"):
        BuildConfig.create("never.db", 10, "1212121")
    with pytest.raises(BuildArgumentError, match="--ply 3 must be between"):
        BuildConfig.create("never.db", 3, SMALL_ROOT)
    with pytest.raises(AddressError, match="malformed RAY_ADDRESS 'not an address'"):
        BuildConfig.create("never.db", 10, SMALL_ROOT)


def test_create_parses_the_part_and_refuses_one_that_is_none():
    assert BuildConfig.create("never.db", 10, SMALL_ROOT, part="3/3").part == Part(3, 3)
    assert BuildConfig.create("never.db", 10, SMALL_ROOT, part=Part(1, 2)).part == Part(1, 2)
    with pytest.raises(PartError, match="--part '4/3' is not a part"):
        BuildConfig.create("never.db", 10, SMALL_ROOT, part="4/3")


def test_create_takes_a_new_books_board_and_an_existing_books_own(tmp_path):
    from bookgen.book.format.errors import BookSizeError
    from bookgen.book.write.store import BookStore

    config = BuildConfig.create(tmp_path / "new.db", 6, "", board="6x5")
    assert config.board is Board(6, 5) and config.position.board is Board(6, 5)
    assert not (tmp_path / "new.db").exists()  # made and checked before anything is written
    with pytest.raises(BoardSizeError, match="'6x'"):
        BuildConfig.create(tmp_path / "new.db", 6, "", board="6x")
    path = tmp_path / "six.db"
    store = BookStore(str(path), "", config.position.canonical_key, board=Board(6, 5))
    store.close()
    assert BuildConfig.create(path, 7).board is Board(6, 5)  # no board: the book's own
    with pytest.raises(BookSizeError, match="6x5 board, not 7x6"):
        BuildConfig.create(path, 7, board="7x6")
    with pytest.raises(BuildArgumentError, match=r"--ply 31 must be between .* and 30"):
        BuildConfig.create(path, 31)  # 6x5 holds 30 stones


def test_a_db_that_is_no_path_is_refused():
    from solver.errors import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match="db must be a book's path"):
        BuildConfig.create(42, 10, SMALL_ROOT)


def test_a_board_past_64_bits_makes_a_book(tmp_path):
    # Keys of two words (issue 52): the settings take such a board, and write nothing yet.
    config = BuildConfig.create(tmp_path / "a.db", 53, WIDE_ROOT, board="8x8")
    assert str(config.board) == "8x8" and config.position.ply == 48
    assert not (tmp_path / "a.db").exists()

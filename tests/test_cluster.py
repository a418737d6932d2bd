"""Tests for ``bookgen.builder.cluster``: addresses, and how solvers are laid out on the nodes."""

import pytest

from bookgen.builder.cluster import (
    AddressError,
    WorkerPlan,
    build_address,
    check_address,
    node_cpus,
    plan_workers,
)


def test_addresses():
    for good in ("auto", "local", "10.0.0.5:6379", "ray://head:10001", "[::1]:6379"):
        assert check_address(good) == good
    for bad in ("no-port", "host:0", "host:70000", "http://host:1"):
        with pytest.raises(AddressError, match="malformed --address"):
            check_address(bad)


def test_ray_address_names_the_cluster_without_address(monkeypatch):
    """As Ray's own drivers do: a job started by ``ray job submit`` finds its cluster in
    RAY_ADDRESS; ``--address`` (``local`` too) wins over it."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert build_address(None) is None
    monkeypatch.setenv("RAY_ADDRESS", "10.77.0.1:6379")
    assert build_address(None) == "10.77.0.1:6379"
    assert build_address("local") == "local"
    assert build_address("ray://head:10001") == "ray://head:10001"
    monkeypatch.setenv("RAY_ADDRESS", "http://10.77.0.1:8265")  # the Jobs API's, not a cluster
    with pytest.raises(AddressError, match=r"RAY_ADDRESS=http://10\.77\.0\.1:8265 is a dashboard"):
        build_address(None)
    assert build_address("local") == "local"
    monkeypatch.setenv("RAY_ADDRESS", "no-port")
    with pytest.raises(AddressError, match=r"malformed RAY_ADDRESS 'no-port'.*--address local"):
        build_address(None)


def test_plan_on_one_two_cpu_node(ray_session):
    assert node_cpus() == [2]
    # Default: one process per node, its threads sharing one table.
    assert plan_workers(None, None) == WorkerPlan(processes=1, threads=2)
    assert plan_workers(1, None) == WorkerPlan(1, 1)
    assert plan_workers(2, 1) == WorkerPlan(2, 1)
    assert plan_workers(4, 2) == WorkerPlan(2, 2)
    assert plan_workers(1, 2) == WorkerPlan(1, 1)  # never more threads than solvers
    assert WorkerPlan(3, 2).solvers == 6

"""Cluster addresses, and how the frontier's solvers are laid out on the nodes.

Starting or joining Ray is ``ray_connect``'s job."""

from __future__ import annotations

import re
from typing import NamedTuple

import ray

from solver.errors import C4Error

_HOST_PORT = re.compile(
    r"^(ray://)?(?P<host>[A-Za-z0-9_.\-]+|\[[0-9A-Fa-f:]+\]):(?P<port>\d{1,5})$"
)


class AddressError(C4Error, ValueError):
    """A ``--address`` that is not 'auto', 'host:port' or 'ray://host:port'."""


def check_address(address: str) -> str:
    if address in ("auto", "local"):
        return address
    match = _HOST_PORT.match(address)
    if not match or not 0 < int(match["port"]) < 65536:
        raise AddressError(
            f"malformed --address {address!r}: use 'auto', 'HOST:PORT' or 'ray://HOST:PORT'"
        )
    return address


def cluster_cpus() -> int:
    return int(ray.cluster_resources().get("CPU", 1))


def node_cpus() -> list[int]:
    """CPUs of each live node."""
    return [int(node["Resources"].get("CPU", 0)) for node in ray.nodes() if node.get("Alive")] or [
        1
    ]


class WorkerPlan(NamedTuple):
    """How the frontier's solvers are laid out: ``processes`` tasks at once,
    each running ``threads`` solver threads over one shared table."""

    processes: int
    threads: int

    @property
    def solvers(self) -> int:
        return self.processes * self.threads


def plan_workers(workers: int | None, threads: int | None) -> WorkerPlan:
    """``workers`` solvers in all (default: every CPU), ``threads`` per process
    (default: the smallest node's CPUs, so each node runs whole processes)."""
    total = workers or cluster_cpus()
    threads = max(1, min(threads or min(node_cpus()), total))
    return WorkerPlan(max(1, total // threads), threads)

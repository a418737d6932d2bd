"""Cluster addresses, and how the frontier's solvers are laid out on the nodes.

Starting or joining Ray is ``ray_connect``'s job."""

from __future__ import annotations

import os
import re
from typing import NamedTuple

import ray

from solver.errors import C4Error

_HOST_PORT = re.compile(
    r"^(ray://)?(?P<host>[A-Za-z0-9_.\-]+|\[[0-9A-Fa-f:]+\]):(?P<port>\d{1,5})$"
)


ADDRESS_VARIABLE = "RAY_ADDRESS"  # Ray's: set for a job's driver (`ray job submit`)


class AddressError(C4Error, ValueError):
    """A ``--address`` (or ``RAY_ADDRESS``) that is not 'auto', 'host:port' or
    'ray://host:port'."""


def check_address(address: str) -> str:
    if address in ("auto", "local"):
        return address
    match = _HOST_PORT.match(address)
    if not match or not 0 < int(match["port"]) < 65536:
        raise AddressError(
            f"malformed --address {address!r}: use 'auto', 'HOST:PORT' or 'ray://HOST:PORT'"
        )
    return address


def build_address(address: str | None) -> str | None:
    """The cluster to build on: ``--address``, else ``RAY_ADDRESS`` as Ray's own drivers
    read it (a job started by ``ray job submit`` finds its cluster there), else None (an
    embedded local Ray).  ``--address local`` builds locally whatever ``RAY_ADDRESS`` says.
    """
    if address is not None:
        return check_address(address)
    found = os.environ.get(ADDRESS_VARIABLE, "").strip()
    if not found:
        return None
    if found.startswith(("http://", "https://")):
        raise AddressError(
            f"{ADDRESS_VARIABLE}={found} is a dashboard (for `ray job submit`), not a "
            "cluster to build on: pass --address HEAD_IP:6379, or --address local to "
            "build on this machine"
        )
    try:
        return check_address(found)
    except AddressError:
        raise AddressError(
            f"malformed {ADDRESS_VARIABLE} {found!r}: use 'auto', 'HOST:PORT' or "
            "'ray://HOST:PORT', or pass --address local to build on this machine"
        ) from None


def cluster_cpus() -> int:
    return int(ray.cluster_resources().get("CPU", 1))


def node_cpus() -> list[int]:
    """CPUs of each live node that has any: a head started with ``--num-cpus 0`` (it runs
    the driver, no solvers) must not make the default one thread a process."""
    cpus = [int(node["Resources"].get("CPU", 0)) for node in ray.nodes() if node.get("Alive")]
    return [n for n in cpus if n > 0] or [1]


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

"""Joining or starting Ray: an embedded local Ray by default, a cluster by address."""

from __future__ import annotations

import os
import re
from typing import NamedTuple

import ray

import bookgen
import solver
from solver.errors import C4Error

_HOST_PORT = re.compile(r"^(ray://)?(?P<host>[A-Za-z0-9_.\-]+|\[[0-9A-Fa-f:]+\]):(?P<port>\d{1,5})$")


class AddressError(C4Error, ValueError):
    """A ``--address`` that is not 'auto', 'host:port' or 'ray://host:port'."""


def check_address(address: str) -> str:
    if address in ("auto", "local"):
        return address
    match = _HOST_PORT.match(address)
    if not match or not 0 < int(match["port"]) < 65536:
        raise AddressError(f"malformed --address {address!r}: use 'auto', 'HOST:PORT' "
                           "or 'ray://HOST:PORT'")
    return address


def connect(address: str | None, workers: int | None) -> bool:
    """Make sure Ray is up; returns True when this call started it (and owns it)."""
    if ray.is_initialized():
        return False
    if address is None:
        # "local": always a fresh embedded Ray, never a cluster that happens to run here.
        ray.init(address="local", num_cpus=workers or os.cpu_count(), include_dashboard=False,
                 logging_level="WARNING", log_to_driver=False)
    else:
        # Ship our own code to the cluster: workers read nothing from local files.
        ray.init(address=check_address(address), logging_level="WARNING", log_to_driver=False,
                 runtime_env={"py_modules": [solver, bookgen]})
    return True


def cluster_cpus() -> int:
    return int(ray.cluster_resources().get("CPU", 1))


def node_cpus() -> list[int]:
    """CPUs of each live node."""
    return [int(node["Resources"].get("CPU", 0)) for node in ray.nodes()
            if node.get("Alive")] or [1]


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

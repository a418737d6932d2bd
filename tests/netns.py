"""Hosts of their own on one machine, for tests: Linux network namespaces on a private switch.

Each host is a network namespace with loopback and one address on 10.77.0.0/24.  The
switch is a bridge in a namespace of its own, so nothing of the test's network is in
the machine's namespace, and no host has a route out: traffic stays between the hosts.
Processes run in a host with ``nsenter --net`` (the same files, another network stack).
Every namespace's name carries the test process's pid, so a later run removes what a
killed one left (``remove_stale``), and ``Network.close`` kills every process in its
namespaces by pid before it deletes them.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from typing import NamedTuple

SUBNET = "10.77.0"  # private (RFC 1918), and reachable only inside the switch
PREFIX = "c4book-"
NETNS_DIR = "/run/netns"


def unavailable() -> str | None:
    """Why this machine cannot make namespaced hosts (None: it can)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces): CI runs it as root"
    for tool in ("ip", "nsenter"):
        if shutil.which(tool) is None:
            return f"needs the {tool!r} command (iproute2, util-linux)"
    probe = f"{PREFIX}probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args: str) -> str:
    result = subprocess.run(["ip", *args], capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"ip {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def namespace_pids(name: str) -> list[int]:
    """Every process whose network is the namespace ``name``."""
    result = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
    return [int(pid) for pid in result.stdout.split()] if result.returncode == 0 else []


def kill_namespace_processes(name: str, timeout: float = 30.0) -> list[int]:
    """SIGKILL every process in the namespace, by pid, until none is left; the pids killed."""
    killed: list[int] = []
    deadline = time.monotonic() + timeout
    while pids := namespace_pids(name):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:  # noqa: PERF203 - each pid may be gone by now
                pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes {pids} outlive SIGKILL in namespace {name}")
        time.sleep(0.1)
    return killed


def remove_namespace(name: str) -> None:
    kill_namespace_processes(name)
    subprocess.run(["ip", "netns", "del", name], capture_output=True)


def remove_stale() -> None:
    """Remove the namespaces of test runs whose process is gone (a killed pytest)."""
    names = os.listdir(NETNS_DIR) if os.path.isdir(NETNS_DIR) else []
    for name in names:
        owner = name.removeprefix(PREFIX).split("-")[0]
        if name.startswith(PREFIX) and owner.isdigit() and not _alive(int(owner)):
            remove_namespace(name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


class Host(NamedTuple):
    name: str  # the namespace
    ip: str

    def command(self, *args: str) -> list[str]:
        """``args`` run inside this host's network."""
        return ["nsenter", f"--net={NETNS_DIR}/{self.name}", "--", *args]

    def pids(self) -> list[int]:
        return namespace_pids(self.name)

    def kill(self) -> list[int]:
        """The whole host dies at once: SIGKILL to each of its processes."""
        return kill_namespace_processes(self.name)


class Network:
    """A switch and the hosts plugged into it; ``close`` removes them all, processes too."""

    def __init__(self):
        remove_stale()
        self.tag = f"{PREFIX}{os.getpid()}-{time.monotonic_ns() % 100_000}"
        self.switch = f"{self.tag}-switch"
        self.hosts: list[Host] = []
        _ip("netns", "add", self.switch)
        try:
            _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", self.switch, "link", "set", "br0", "up")
        except BaseException:
            self.close()
            raise

    def add_host(self, label: str) -> Host:
        """A new host on the switch, with the next address (.1 for the first)."""
        index = len(self.hosts) + 1
        host = Host(f"{self.tag}-{label}", f"{SUBNET}.{index}")
        _ip("netns", "add", host.name)
        self.hosts.append(host)
        port = f"port{index}"  # the switch's end of the cable
        _ip(
            "-n",
            self.switch,
            "link",
            "add",
            port,
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            host.name,
        )
        _ip("-n", self.switch, "link", "set", port, "master", "br0", "up")
        _ip("-n", host.name, "link", "set", "lo", "up")
        _ip("-n", host.name, "addr", "add", f"{host.ip}/24", "dev", "eth0")
        _ip("-n", host.name, "link", "set", "eth0", "up")
        return host

    def close(self) -> None:
        """Kill every process of every host by pid, then delete the namespaces (and with
        them the cables and the switch)."""
        for host in reversed(self.hosts):
            remove_namespace(host.name)
        remove_namespace(self.switch)
        self.hosts = []

"""Benchmark ``c4book serve`` on localhost: start time, /api/position from the book under
concurrent clients, and how soon the page is interactive in headless Chromium.

    python scripts/bench_web.py [--db book.db] [--clients 8] [--requests 20000] [--seconds 30]

Starts its own server on a free port of 127.0.0.1 and stops it; every loop is bounded in
count and time.  The clients are one asyncio process with a keep-alive connection each,
sending the next request as soon as an answer is in: latency is per request, as a client
sees it.  Targets (issue 29): p99 <= 5 ms at 8 clients with no errors; start <= 3 s;
interactive <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import re
import select
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from _args import parse_args

from solver import Position

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def book_lines(count: int, seed: int, most: int = 9) -> list[str]:
    """Distinct random unfinished lines of plies 0 to ``most`` (no answer asked twice)."""
    rng = random.Random(seed)
    lines: dict[str, None] = {}
    for _ in range(100 * count):
        if len(lines) == count:
            break
        position = Position()
        for _ in range(rng.randint(0, most)):
            position = position.play(rng.choice(position.legal_moves()))
            if position.is_game_over:
                break
        if not position.is_game_over:
            lines[position.moves] = None
    return list(lines)


def start_server(db: str, cap: float) -> tuple[subprocess.Popen, str, float, float]:
    """(process, address, seconds to its 'serving' line, seconds to its first book answer)."""
    command = [
        sys.executable,
        "-m",
        "bookgen.cli",
        "serve",
        "--db",
        db,
        "--port",
        "0",
        "--time",
        str(cap),
    ]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None  # (stdout=PIPE)
    ready, _, _ = select.select([process.stdout], [], [], 60)
    line = process.stdout.readline() if ready else ""
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not found:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    printed = time.perf_counter() - started
    while time.perf_counter() - started < 60:
        try:
            with urllib.request.urlopen(found.group(0) + "api/position?moves=4453", timeout=5):
                break
        except OSError:
            time.sleep(0.01)
    return process, found.group(0), printed, time.perf_counter() - started


async def one_client(
    port: int, paths: list[str], until: float, latencies: list[float], errors: list[str]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for path in paths:
            if time.perf_counter() > until:
                break
            sent = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            sized = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
            assert sized is not None, head  # the server always says its answer's length
            length = int(sized.group(1))
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - sent)
            status = int(head.split(b" ", 2)[1])
            if status != 200:
                errors.append(f"{status} {path}")
    finally:
        writer.close()


async def load(port: int, paths: list[str], clients: int, seconds: float) -> tuple:
    latencies: list[float] = []
    errors: list[str] = []
    until = time.perf_counter() + seconds
    share = [paths[i::clients] for i in range(clients)]
    started = time.perf_counter()
    await asyncio.gather(*(one_client(port, mine, until, latencies, errors) for mine in share))
    return latencies, errors, time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_times() -> list[int]:
    """The machine's CPU time so far, by kind (``/proc/stat``'s first line)."""
    return [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]


def steal_share(before: list[int], after: list[int]) -> float:
    """The share of the machine's time its host took (steal) between two ``cpu_times``:
    on a shared virtual machine, the noise that moves p99 most."""
    spent = [b - a for a, b in zip(before, after, strict=True)]
    return spent[7] / sum(spent) if sum(spent) and len(spent) > 7 else 0.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def interactive(address: str, loads: int) -> list[float] | None:
    """Milliseconds from navigation to the scores on screen, per page load (None: no browser)."""
    if not os.path.exists(CHROMIUM):
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(loads):
            page = browser.new_page()
            page.goto(address + "?pos=4453")
            page.wait_for_selector("body[data-ready='1'][data-pos='4453']", timeout=20_000)
            times.append(page.evaluate("window.c4ready"))
            page.close()
        browser.close()
    return times


def machine() -> str:
    model = "?"
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        text = ""
    if named := re.search(r"Model name:\s*(.+)", text):
        model = named.group(1).strip()
    load_avg = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{model}, {os.cpu_count()} cores, load average {load_avg}, "
        f"{dt.date.today().isoformat()}"  # noqa: DTZ011 - the local date, as the docs write it
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=str(ROOT / "book.db"))
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--requests",
        type=int,
        default=20_000,
        help="at most this many in all (a p99 over 200 slowest, not 40)",
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="at most this long")
    parser.add_argument("--pages", type=int, default=5, help="page loads timed in Chromium")
    parser.add_argument("--seed", type=int, default=2026)
    args = parse_args(parser)

    print(f"machine: {machine()}")
    process, address, printed, answered = start_server(args.db, 1.0)
    try:
        print(
            f"start: serving line after {printed:.2f} s, first book answer after "
            f"{answered:.2f} s (target <= 3 s)"
        )
        port = int(address.rsplit(":", 1)[1].strip("/"))
        paths = [f"/api/position?moves={m}" for m in book_lines(args.requests, args.seed)]
        warm = [f"/api/position?moves={m}" for m in book_lines(200, args.seed + 1)]
        asyncio.run(load(port, warm, args.clients, 10))  # connections, the file's pages
        cpu, times = cpu_seconds(process.pid), cpu_times()
        latencies, errors, took = asyncio.run(load(port, paths, args.clients, args.seconds))
        cpu, steal = cpu_seconds(process.pid) - cpu, steal_share(times, cpu_times())
        ms = [x * 1000 for x in latencies]
        print(
            f"/api/position from the book, {args.clients} clients: {len(ms)} requests in "
            f"{took:.1f} s ({len(ms) / took:,.0f}/s), p50 {statistics.median(ms):.2f} ms, "
            f"p90 {percentile(ms, 0.90):.2f} ms, p99 {percentile(ms, 0.99):.2f} ms, "
            f"max {max(ms):.2f} ms; errors: {len(errors)} (target p99 <= 5 ms, none); "
            f"server CPU {cpu / len(ms) * 1e6:.0f} us an answer; "
            f"the host took {steal:.0%} of the machine (steal)"
        )
        for error in errors[:5]:
            print(f"  {error}")
        pages = interactive(address, args.pages)
        if not pages:
            print("page: not timed (--pages 0, or no /usr/bin/chromium or playwright)")
        else:
            print(
                f"page interactive (scores shown) after {statistics.median(pages):.0f} ms "
                f"median, {max(pages):.0f} ms worst of {len(pages)} loads (target <= 1000 ms)"
            )
    finally:
        process.terminate()
        process.wait(30)
    print(f"machine after: {machine()}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

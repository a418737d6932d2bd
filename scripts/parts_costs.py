#!/usr/bin/env python3
"""The cost of a frontier built in parts (``build_parts.sh``): a record kept with the parts.

``build_parts.sh``'s log holds, for each run of ``c4book build --part``, the
positions searched, the nodes, the wall and core seconds, and a line when a
part is done; a part stopped and resumed has several runs.  ``--log`` reads
such a log and adds the parts it finished to the record (``costs.tsv`` in the
parts' folder, one line a part, its runs summed; a part already recorded is
kept as it is), since the log stays on the machine that built them.  Then it
prints the record: per part and in groups, positions and nodes per core-second,
and the totals.

    python scripts/parts_costs.py scripts/data/ply14-parts --log /tmp/ply14/run.log
    python scripts/parts_costs.py scripts/data/ply14-parts --group 8
"""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path
from typing import NamedTuple

from _args import at_least_one, parse_args

RECORD = "costs.tsv"
_PART = re.compile(r"^book \S+: .*, part (\d+)/(\d+)$")
_SEARCHED = re.compile(r"^searched ([\d,]+) frontier positions")
_COST = re.compile(r"^nodes ([\d,]+); wall ([\d.]+) s; core ([\d.]+) s$")
_DONE = re.compile(r"^(\S+Z) part-(\d+)-of-(\d+)\.db done$")


class PartCost(NamedTuple):
    """One part's runs summed, and when it was done (UTC, as the log says)."""

    part: int
    parts: int
    positions: int
    nodes: int
    wall: float
    core: float
    done: str


def read_log(text: str) -> list[PartCost]:
    """The parts the log shows done, each its runs summed."""
    runs: dict[int, list[float]] = {}  # part -> positions, nodes, wall, core so far
    current = None
    finished = []
    for line in text.splitlines():
        if match := _PART.match(line):
            current = int(match[1])
            runs.setdefault(current, [0, 0, 0.0, 0.0])
        elif (match := _SEARCHED.match(line)) and current is not None:
            runs[current][0] += int(match[1].replace(",", ""))
        elif (match := _COST.match(line)) and current is not None:
            sums = runs[current]
            sums[1] += int(match[1].replace(",", ""))
            sums[2] += float(match[2])
            sums[3] += float(match[3])
        elif match := _DONE.match(line):
            part = int(match[2])
            positions, nodes, wall, core = runs.pop(part, [0, 0, 0.0, 0.0])
            finished.append(
                PartCost(part, int(match[3]), int(positions), int(nodes), wall, core, match[1])
            )
    return finished


def read_record(path: Path) -> dict[int, PartCost]:
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        rows = csv.DictReader(f, delimiter="\t")
        return {
            int(r["part"]): PartCost(
                int(r["part"]),
                int(r["parts"]),
                int(r["positions"]),
                int(r["nodes"]),
                float(r["wall"]),
                float(r["core"]),
                r["done"],
            )
            for r in rows
        }


def write_record(path: Path, record: dict[int, PartCost]) -> None:
    with path.open("w", newline="") as f:
        out = csv.writer(f, delimiter="\t", lineterminator="\n")
        out.writerow(PartCost._fields)
        for part in sorted(record):
            cost = record[part]
            out.writerow([*cost[:4], f"{cost.wall:.1f}", f"{cost.core:.1f}", cost.done])


def report(record: dict[int, PartCost], group: int) -> str:
    """Per group of parts and in all: positions, nodes, core-hours, rates."""
    head = "parts", "positions", "G nodes", "core-hours", "wall hours", "positions/core-s"
    lines = ["| " + " | ".join((*head, "M nodes/core-s")) + " |", "|---" * 7 + "|"]
    parts = sorted(record)
    groups = [parts[i : i + group] for i in range(0, len(parts), group)]
    for chosen in [*groups, parts]:
        costs = [record[p] for p in chosen]
        positions = sum(c.positions for c in costs)
        nodes = sum(c.nodes for c in costs)
        core = sum(c.core for c in costs)
        wall = sum(c.wall for c in costs)
        name = "all" if chosen is parts and len(groups) > 1 else f"{chosen[0]}-{chosen[-1]}"
        lines.append(
            f"| {name} | {positions:,} | {nodes / 1e9:.1f} | {core / 3600:.2f} | "
            f"{wall / 3600:.2f} | {positions / max(core, 1e-9):.0f} | "
            f"{nodes / max(core, 1e-9) / 1e6:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="the parts' folder (build_parts.sh's OUT)")
    parser.add_argument("--log", type=Path, help="a build_parts.sh log to add to the record")
    parser.add_argument("--group", type=at_least_one, default=8, help="parts a row")
    args = parse_args(parser, argv)
    path = args.folder / RECORD
    record = read_record(path)
    if args.log is not None:
        for cost in read_log(args.log.read_text()):
            if (args.folder / f"part-{cost.part:02d}-of-{cost.parts:02d}.db").exists():
                record.setdefault(cost.part, cost)
        write_record(path, record)
    print(report(record, args.group))


if __name__ == "__main__":
    main()

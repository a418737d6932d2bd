#!/usr/bin/env python3
"""Benchmark the block codec (``bookgen.book.format.blocks``, issue 50) on a book's sealed plies.

For each block size, every ply of ``--db`` is encoded in blocks, and:

* bytes a position, per ply and for the whole book (blocks, index and keys dictionary),
  against what the book stores them in today (its blocks, or its segments), and where
  the bytes go (keys, scores, best moves, each block's CRC and frame lengths, index,
  dictionaries), with the time to encode;
* over ``--lookups`` positions drawn at random from the whole book (the same for every
  size, each timed at every size in turn, so that the machine's load falls on all alike):
  decoding a position's block alone; a first-touch lookup (find the block in the index,
  decode it, bisect its keys, read the score and best move) with no block cached; and a
  warm lookup, its block taken from a dict of decoded blocks.  p50 and p99, in us.

Blocks are read from memory: reading one from SQLite adds 2-13 us
(docs/benchmarks.md, "Blocks for a lazy reader").  Prints markdown tables.

    python scripts/bench_blocks.py
    python scripts/bench_blocks.py --sizes 1024 --lookups 2000 --db tests/data/ply10.db
"""

from __future__ import annotations

import argparse
import sys
import time
from bisect import bisect_left
from pathlib import Path

import numpy as np
from _args import at_least_one, parse_args

from bookgen.book.format import block_index, blocks
from bookgen.book.format.database import make_engine, recorded_board
from bookgen.book.format.segment import Segment
from bookgen.book.format.stored import StoredBook
from solver.bitboard import STANDARD, Board

ROOT = Path(__file__).resolve().parent.parent
SIZES = (256, 512, 1024, 2048, 4096)


def sizes_list(text: str) -> list[int]:
    return [at_least_one(part) for part in text.split(",")]


def read_book(db: str) -> tuple[dict[int, Segment], dict[int, int], Board]:
    """Each ply's entries and the bytes the book stores them in today (blocks, or segments
    and rows), and the book's board."""
    board = recorded_board(db) or STANDARD
    store = StoredBook(make_engine(db, readonly=True), db, board)
    try:
        today = {ply: size for ply, (_, size, _) in store.storage_by_ply().items()}
        return {ply: store.entries_at(ply) for ply in sorted(today)}, today, board
    finally:
        store.engine.dispose()


def parts_of(block: bytes) -> tuple[int, int, int, int]:
    """``(keys frame, scores frame, best frame, framing)``: the bytes of each part of a block."""
    view = memoryview(block)
    keys, at = blocks._read_varint(view, block_index.CRC.size)
    scores, at = blocks._read_varint(view, at)
    return keys, scores, len(block) - at - keys - scores, at


class Reader:
    """One ply's blocks in memory, read as a lazy reader would: first touch, then cached."""

    def __init__(self, encoded: blocks.EncodedPly, decoder: blocks.Decoder, board: Board, ply):
        self.index, self.blobs, self.decoder = encoded.index, encoded.blocks, decoder
        self.first_keys = encoded.index.first_keys.tolist()
        self.board, self.ply = board, ply
        self.cache: dict[int, tuple[memoryview, np.ndarray, np.ndarray | None]] = {}

    def decode(self, no: int) -> Segment:
        return blocks.decode_block(
            self.blobs[no],
            self.first_keys[no],
            self.index.count_of(no),
            self.decoder,
            self.ply,
            no,
        )

    def first_touch(self, key: int) -> tuple[int, int | None]:
        """Find the block, decode it, keep it, bisect its keys: the score and best moves."""
        no = block_index.find_block(self.first_keys, key)
        keys, scores, best = self.decode(no)
        self.cache[no] = (memoryview(keys.data), scores, best)  # bisect: 0.6 us, not 2
        return self.read(self.cache[no], key)

    def warm(self, key: int) -> tuple[int, int | None]:
        return self.read(self.cache[block_index.find_block(self.first_keys, key)], key)

    @staticmethod
    def read(block, key: int) -> tuple[int, int | None]:
        keys, scores, best = block
        at = bisect_left(keys, key)
        if keys[at] != key:
            raise KeyError(key)
        return int(scores[at]), None if best is None else int(best[at])


def percentiles(times: list[int]) -> str:
    p50, p99 = np.percentile(np.array(times) / 1000, [50, 99])
    return f"{p50:.1f} | {p99:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=str(ROOT / "book.db"), help="the book (default book.db)")
    parser.add_argument(
        "--sizes",
        type=sizes_list,
        default=list(SIZES),
        help="block sizes, comma-separated (default 256,512,1024,2048,4096)",
    )
    parser.add_argument("--lookups", type=at_least_one, default=10_000, help="positions timed")
    parser.add_argument("--seed", type=int, default=50)
    args = parse_args(parser, argv)

    plies, today, board = read_book(args.db)
    counts = {ply: len(s.keys) for ply, s in plies.items()}
    total = sum(counts.values())
    print(f"{args.db}: {total:,} positions in plies {min(plies)}-{max(plies)}, {board}\n")

    encoded: dict[int, dict[int, blocks.EncodedPly]] = {}
    seconds: dict[int, float] = {}
    for size in args.sizes:
        started = time.perf_counter()
        encoded[size] = {
            ply: blocks.encode_ply(segment, ply, board, block_size=size)
            for ply, segment in plies.items()
        }
        seconds[size] = time.perf_counter() - started
        print(f"encoded in blocks of {size}: {seconds[size]:.1f} s", file=sys.stderr)

    def stored(e: blocks.EncodedPly) -> int:
        return sum(map(len, e.blocks)) + len(block_index.encode_index(e.index)) + len(e.dictionary)

    head = " | ".join(f"N={size}" for size in args.sizes)
    print(f"| ply | positions | today | {head} |\n|" + "---|" * (3 + len(args.sizes)))
    for ply, count in counts.items():
        row = " | ".join(f"{stored(encoded[s][ply]) / count:.3f}" for s in args.sizes)
        print(f"| {ply} | {count:,} | {today.get(ply, 0) / count:.3f} | {row} |")
    row = " | ".join(f"**{sum(map(stored, encoded[s].values())) / total:.3f}**" for s in args.sizes)
    print(f"| all | {total:,} | **{sum(today.values()) / total:.3f}** | {row} |\n")

    print(
        "| N | keys | scores | best | CRC + frame lengths | index | dictionaries | "
        "B/pos | MB | encode s |\n|" + "---|" * 10
    )
    for size in args.sizes:
        sums = np.zeros(4)
        for e in encoded[size].values():
            for block in e.blocks:
                sums += parts_of(block)
        index = sum(len(block_index.encode_index(e.index)) for e in encoded[size].values())
        dictionaries = sum(len(e.dictionary) for e in encoded[size].values())
        whole = sums.sum() + index + dictionaries
        cells = " | ".join(f"{part / total:.3f}" for part in (*sums, index, dictionaries))
        print(
            f"| {size} | {cells} | {whole / total:.3f} | {whole / 1e6:.2f} | {seconds[size]:.0f} |"
        )

    # Lookups: the same positions at every size, each timed at every size in turn.
    rng = np.random.default_rng(args.seed)
    ply_of = np.repeat(np.array(list(counts)), list(counts.values()))
    picks = rng.integers(0, total, size=args.lookups)
    starts = dict(zip(counts, np.cumsum([0, *counts.values()])[:-1].tolist(), strict=True))
    asked = [
        (ply, int(plies[ply].keys[at - starts[ply]]))
        for ply, at in zip(ply_of[picks].tolist(), picks.tolist(), strict=True)
    ]
    readers = {
        size: {
            ply: Reader(e, blocks.ply_decoder(e.dictionary, e.index, ply, board), board, ply)
            for ply, e in encoded[size].items()
        }
        for size in args.sizes
    }
    clock = time.perf_counter_ns
    decode: dict[int, list[int]] = {size: [] for size in args.sizes}
    cold: dict[int, list[int]] = {size: [] for size in args.sizes}
    warm: dict[int, list[int]] = {size: [] for size in args.sizes}
    for ply, key in asked:
        for size in args.sizes:
            reader = readers[size][ply]
            no = block_index.find_block(reader.first_keys, key)
            started = clock()
            reader.decode(no)
            decode[size].append(clock() - started)
    for timed, ask in ((cold, Reader.first_touch), (warm, Reader.warm)):
        for ply, key in asked:
            for size in args.sizes:
                reader = readers[size][ply]
                started = clock()
                ask(reader, key)
                timed[size].append(clock() - started)

    print(
        f"\n{args.lookups:,} random positions of the whole book, us:\n\n"
        "| N | decode p50 | p99 | first touch p50 | p99 | warm p50 | p99 |\n|" + "---|" * 7
    )
    for size in args.sizes:
        print(
            f"| {size} | {percentiles(decode[size])} | {percentiles(cold[size])} | "
            f"{percentiles(warm[size])} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

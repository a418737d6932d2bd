#!/usr/bin/env python3
"""Draw docs/explorer.png, the README's picture: the explorer at one position, served
from the shipped book by a real ``c4book serve`` and shot in headless Chromium.

The PNG carries what it shows as text chunks (the position, and the page's summary
of the book), which ``tests/test_scripts.py`` holds against the README's
caption and the shipped book: a picture that drifts from them fails the tests.
Needs Debian's chromium and the ``playwright`` package (``.[test]``).

    python scripts/shoot_explorer.py                 # docs/explorer.png at 43
"""

from __future__ import annotations

import argparse
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

from _args import parse_args
from bench_web import ARGS  # Chromium's flags on this machine's closed network

ROOT = Path(__file__).resolve().parent.parent
PICTURE = ROOT / "docs" / "explorer.png"
POSITION = "43"  # wins, draws and losses: the whole palette
WIDTH, HEIGHT = 1000, 760  # the picture, in CSS pixels
CHROMIUM = "/usr/bin/chromium"


def with_text(png: bytes, facts: dict[str, str]) -> bytes:
    """``png`` with a tEXt chunk per fact, before its end chunk (PNG's own metadata)."""
    end = png.rindex(b"IEND") - 4  # the end chunk's length field
    chunks = b""
    for name, value in facts.items():
        data = name.encode("latin-1") + b"\0" + value.encode("latin-1")
        body = b"tEXt" + data
        chunks += struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    return png[:end] + chunks + png[end:]


def text_of(png: bytes) -> dict[str, str]:
    """The tEXt chunks of ``png``, by name."""
    facts, at = {}, 8  # past the signature
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"tEXt":
            name, _, value = data.partition(b"\0")
            facts[name.decode("latin-1")] = value.decode("latin-1")
        at += 12 + length
    return facts


def shoot(db: Path, position: str, out: Path) -> dict[str, str]:
    """Serve ``db``, shoot the explorer at ``position`` into ``out``; the facts it shows."""
    from playwright.sync_api import sync_playwright

    server = subprocess.Popen(
        [sys.executable, "-m", "bookgen.cli", "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None  # (stdout=PIPE)
        found = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline())
        if found is None:
            raise SystemExit("c4book serve printed no address")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto(f"{found.group(0)}?pos={position}")
            page.wait_for_selector(f"body[data-ready='1'][data-pos='{position}']", timeout=60_000)
            facts = {"c4book position": position, "c4book summary": page.inner_text("#summary")}
            png = page.screenshot()
            browser.close()
    finally:
        server.terminate()
        server.wait(30)
    out.write_bytes(with_text(png, facts))
    return facts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, default=ROOT / "book.db", help="the book served")
    parser.add_argument("--position", default=POSITION, help="the moves shown")
    parser.add_argument("--out", type=Path, default=PICTURE, help="the PNG written")
    args = parse_args(parser, argv)
    for name, value in shoot(args.db, args.position, args.out).items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    main()

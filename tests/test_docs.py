"""The docs stay true: README.md, CHANGELOG.md and docs/*.md, pasted as written.

Every Python block runs (an expression whose comment starts with a value,
``solve(...)  # -2``, must give it); every documented command parses with the
real parser, ``c4book``'s in process and each script's through its
``--check-args``; the quick, read-only ``c4book`` commands run for real; every
relative link and anchor resolves, anchors as GitHub makes them.  The
examples in the scripts' own docstrings count as docs too.  Whatever is not
run is named below with why.  A failure names the file and line.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import runpy
import shlex
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import c4book_command

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
SCRIPTS = ROOT / "scripts"

# c4book commands run here as the docs show them (quick, and they write nothing) ...
RUN = {"solve", "query", "review", "move", "play", "stats"}
# ... and those that parse but are not run, and why.  A new command goes in one of the two.
NOT_RUN = {
    "build": "writes a book: 48 s for the quick start's, hours for a ply of the shipped book",
    "serve": "serves until stopped (tests/test_web_browser.py serves a book and drives it)",
    "verify": "re-solves a sample of the frontier: 10-20 s for 300 (tests/test_verify.py)",
    "pack": "rewrites the book it is given (tests/test_upgrade.py packs copies)",
    "upgrade": "rewrites the book it is given (tests/test_upgrade.py upgrades copies)",
    "merge": "writes the parts it is given into a book (tests/test_merge.py merges parts it builds)",
    "export": "writes a data set: 14 s and 94 MB for the shipped book as Parquet "
    "(tests/test_export.py exports small books)",
}
# Python blocks not run, by their first line, and why.
NOT_RUN_BLOCKS = {
    "import pyarrow.parquet as pq": "reads an export of the whole shipped book (c4book export, "
    "14 s) with pandas, polars and DuckDB, which c4book does not "
    "depend on; tests/test_export.py reads small exports back",
}
# Other programs in the docs' shell blocks: not c4book's to check.
OTHER_PROGRAMS = {
    "pip": "installs packages (.ci/run installs as the README says)",
    "python -m venv": "makes a virtual environment (.ci/run does)",
    ".": "activates the virtual environment",
    "export": "sets the shell's environment",
    "ray": "starts a Ray cluster or submits a job to one (tests/test_multihost.py starts "
    "hosts with ray start and submits, follows and stops jobs)",
    "pytest": "the test suite itself",
    "kill": "stops the build a block started in the background",
    "wait": "waits for the build a block started in the background",
    "git": "commits to the repository",
    "cp": "copies a book, for a part to grow (tests/test_merge.py builds its parts)",
    "apt-get": "installs system packages (.ci/run installs Chromium)",
    "createdb": "makes a PostgreSQL database (tests/test_store_postgres.py starts a server)",
    "psql": "PostgreSQL's own shell",
    "curl": "asks a running c4book serve (tests/test_web_app.py asks the API)",
    "ruff": "the linter and formatter (.ci/run runs them before the tests)",
    "mypy": "the type checker (docs/development.md; tests/test_typed.py runs it on a user's script)",
    "scripts/build_parts.sh": "builds a ply's parts for hours, each a c4book build --part "
    "and pack (tests/test_merge.py builds and merges parts)",
}
# Values for the placeholders of a synopsis (``--ply N``) where the parser wants a number or a
# board; other placeholders (BOOK, REV, HEAD_IP) parse as they are.  A command with any
# placeholder is parsed, never run.
PLACEHOLDERS = {
    "N": "12",
    "K": "100",
    "T": "2",
    "SECONDS": "1",
    "MOVES": "4453",
    "WxH": "6x5",
    "CELLS": "42",
    "I/K": "2/8",
}
PLACEHOLDER = re.compile(r"^(?:--[\w-]+=)?(?:[A-Z][A-Z0-9_]*|WxH|I/K)$")
RUN_SECONDS = 60  # a command run here that takes longer is not quick: fix the docs or NOT_RUN


# -- reading the docs ---------------------------------------------------------------------


@dataclass(frozen=True)
class Fence:
    where: str  # file:line of the opening fence
    lang: str
    text: str


@dataclass(frozen=True)
class Command:
    where: str  # file:line
    text: str  # as written


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"


def split_fences(path: Path) -> tuple[list[Fence], str]:
    """The fenced blocks, and the prose with each fence's lines left empty (lines keep their
    numbers)."""
    fences, prose, lines = [], [], path.read_text().split("\n")
    opened, lang, start = None, "", 0  # (set with body by the fence that opens)
    body: list[str] = []
    for number, line in enumerate(lines, start=1):
        mark = re.match(r"^\s*(```+|~~~+)\s*([\w+-]*)", line)
        if opened is None and mark:
            opened, lang, body, start = mark.group(1), mark.group(2), [], number
            prose.append("")
        elif opened is not None and line.strip().startswith(opened):
            fences.append(Fence(where(path, start), lang, "\n".join(body)))
            opened = None
            prose.append("")
        elif opened is not None:
            body.append(line)
            prose.append("")
        else:
            prose.append(line)
    return fences, "\n".join(prose)


CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)


def code_spans(path: Path) -> list[tuple[str, str]]:
    """Inline code, as ``(file:line, text)``; a span that wraps is joined by one space."""
    _, prose = split_fences(path)
    return [
        (
            where(path, prose.count("\n", 0, m.start()) + 1),
            re.sub(r"\s*\n\s*", " ", m.group(2)).strip(),
        )
        for m in CODE_SPAN.finditer(prose)
    ]


def docstring_examples(script: Path) -> list[Command]:
    """The invocations a script's docstring shows (``python scripts/...`` lines)."""
    found, lines = [], script.read_text().split("\n")
    for start, line in enumerate(lines, start=1):
        if re.match(r"\s+python3? scripts/", line):
            text, number = strip_comment(line.strip()), start
            while text.endswith("\\") and number < len(lines):
                text, number = text[:-1] + lines[number].strip(), number + 1
            found.append(Command(where(script, number), text))
    return found


def shell_lines(text: str) -> list[tuple[int, str]]:
    """``(offset, command)`` of each command in a shell block: continuations joined, each
    part of ``&&``, ``;`` or ``&`` on its own."""
    found, pending = [], ""
    for offset, line in enumerate(text.split("\n"), start=1):
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        for piece in re.split(r"\s*(?:&&|;|&(?!\S))\s*", strip_comment(pending.strip())):
            part = re.sub(r"^\$\s+", "", piece.strip())
            if part and part != "...":
                found.append((offset, part))
        pending = ""
    return found


def strip_comment(line: str) -> str:
    """A shell line without its ``# comment`` (a ``#`` inside quotes stays)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line


def program(words: list[str]) -> tuple[str, list[str]]:
    """``("c4book", args)``, ``(a script's path, args)`` or ``(another program, args)``."""
    while words and (re.match(r"^[A-Z_]+=", words[0]) or words[0] == "nice"):
        words = words[1:]
    if not words:
        return "", []
    if words[0] == "c4book":
        return "c4book", words[1:]
    if words[0] in ("python", "python3") and len(words) > 2 and words[1] == "-m":
        if words[2] == "bookgen.cli":
            return "c4book", words[3:]
        return f"python -m {words[2]}", words[3:]
    if words[0] in ("python", "python3") and len(words) > 1:
        words = words[1:]
    script = SCRIPTS / Path(words[0]).name
    if (
        words[0].endswith(".py")
        and script.exists()
        and words[0] in (script.name, f"scripts/{script.name}")
    ):
        return str(script), words[1:]
    return words[0], words[1:]


def documented_commands() -> list[Command]:
    """Every command the docs show: shell blocks whole; c4book and script commands from any
    other block and from inline code; the scripts' docstring examples."""
    found = []
    for path in DOCS:
        fences, _ = split_fences(path)
        for fence in fences:
            if fence.lang in ("python", "json"):
                continue
            file, start = fence.where.rsplit(":", 1)
            for offset, text in shell_lines(fence.text):
                if fence.lang in ("sh", "bash", "shell", "console") or ours(text):
                    found.append(Command(f"{file}:{int(start) + offset}", text))
        found += [Command(at, text) for at, text in code_spans(path) if whole(text)]
    for script in sorted(SCRIPTS.glob("*.py")):
        found += docstring_examples(script)
    return found


def ours(text: str) -> bool:
    """A c4book or script command (not c4book's messages: ``c4book build: error: ...``)."""
    try:
        words = shlex.split(text)
    except ValueError:  # unbalanced quotes: ours if it looks so, to fail in the parse test
        return re.match(r"^(nice\s+)?(c4book\s|python3?\s+scripts/)", text) is not None
    name, args = program(words)
    return (
        name == "c4book" and bool(args) and re.match(r"^(-|[a-z][a-z-]*$)", args[0]) is not None
    ) or is_script(name)


def whole(text: str) -> bool:
    """Inline code that is a whole command to paste, not a name (``c4book query``, the
    option ``c4book solve --board``, the script ``bench_pair.py``): ``python scripts/...``,
    or ``c4book`` with a value after its command."""
    if not ours(text):
        return False
    try:
        words = shlex.split(text)
    except ValueError:
        return True
    if words[0] == "c4book":
        return any(not word.startswith("-") for word in words[2:])
    return words[0] in ("python", "python3", "nice")


def is_script(name: str) -> bool:
    return Path(name).parent == SCRIPTS


def python_blocks() -> list[Fence]:
    return [fence for path in DOCS for fence in split_fences(path)[0] if fence.lang == "python"]


# -- Python blocks ------------------------------------------------------------------------

LITERAL = re.compile(r"#\s*(-?\d+(?:\.\d+)?|None|True|False)\s*(?::|$)")


def with_checks(block: Fence) -> str:
    """The block's code, each line at its line in the file (so a traceback names the doc's
    line), and each one-line expression whose comment starts with a value turned into an
    assertion of that value."""
    source = block.text
    lines = source.split("\n")
    comments = {
        token.start[0]: token.string
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    }
    file, first = block.where.rsplit(":", 1)
    for node in ast.walk(ast.parse(source)):
        said = LITERAL.match(comments.get(getattr(node, "lineno", 0), ""))
        if isinstance(node, ast.Expr) and said and node.end_lineno == node.lineno:
            line = lines[node.lineno - 1]
            code = ast.get_source_segment(source, node.value)
            lines[node.lineno - 1] = (
                f"{line[: node.col_offset]}assert ({code}) == {said.group(1)}, "
                f"{f'{file}:{int(first) + node.lineno}: {code} is not {said.group(1)}'!r}"
            )
    return "\n" * int(first) + "\n".join(lines)


def environment() -> dict:
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )


def runnable(block: Fence):
    """The block as a test parameter, skipped with its reason if ``NOT_RUN_BLOCKS`` names it."""
    why = NOT_RUN_BLOCKS.get(block.text.strip().split("\n")[0])
    return pytest.param(block, id=block.where, marks=[pytest.mark.skip(reason=why)] if why else [])


@pytest.mark.parametrize("block", [runnable(block) for block in python_blocks()])
def test_python_block_runs_as_pasted(block, tmp_path):
    # In a directory of its own that shows the checkout's files: what a block writes
    # (an export, a book) stays out of the checkout.
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    done = subprocess.run(
        [sys.executable, "-c", with_checks(block)],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )
    assert done.returncode == 0, f"{block.where}: {done.stderr[-3000:]}"


def test_a_value_in_a_comment_is_checked():
    block = Fence("README.md:10", "python", "x = 2\nx + 1  # 3: the sum\nx  # 5\nx  # a number")
    checked = with_checks(block)
    assert checked.split("\n")[10:] == [  # line 11 of the file is the first
        "x = 2",
        "assert (x + 1) == 3, 'README.md:12: x + 1 is not 3'",
        "assert (x) == 5, 'README.md:13: x is not 5'",
        "x  # a number",
    ]  # words: no check
    with pytest.raises(AssertionError, match=re.escape("README.md:13: x is not 5")):
        exec(checked, {})  # noqa: S102 - the docs' own Python block, as the docs test runs it


@pytest.mark.parametrize(
    "fence",
    [f for path in DOCS for f in split_fences(path)[0] if f.lang == "json"],
    ids=lambda fence: fence.where,
)
def test_json_block_is_json(fence):
    json.loads(fence.text)


# -- commands -----------------------------------------------------------------------------


def as_argv(command: Command) -> tuple[str, list[str], str | None, bool]:
    """``(program, args, stdin file, synopsis)``: ``[optional]`` groups unwrapped, ``...``
    dropped, placeholders given values; a synopsis has placeholders."""
    text = re.sub(r"\[([^\[\]]*)\]", r"\1", command.text)
    words = [word for word in shlex.split(text) if word not in ("...", "&")]
    stdin = None
    if "<" in words:
        at = words.index("<")
        stdin, words = words[at + 1], words[:at] + words[at + 2 :]
    name, args = program(words)
    synopsis = any(PLACEHOLDER.match(word) for word in args)
    args = [
        re.sub(
            r"^(--[\w-]+=)?(.+)$",
            lambda m: (m.group(1) or "") + PLACEHOLDERS.get(m.group(2), m.group(2)),
            word,
        )
        for word in args
    ]
    return name, args, stdin, synopsis


COMMANDS = documented_commands()
OURS = [c for c in COMMANDS if ours(c.text)]


def test_the_docs_show_commands():
    texts = [c.text for c in OURS]
    assert any(t.startswith("c4book query") for t in texts)
    assert any("bench_book.py" in t for t in texts)


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if not ours(c.text)], ids=lambda command: command.where
)
def test_other_programs_are_named(command):
    try:
        name, _ = program(shlex.split(command.text))
    except ValueError as error:
        pytest.fail(f"{command.where}: {command.text!r} is no shell command: {error}")
    assert name in OTHER_PROGRAMS, (
        f"{command.where}: {command.text!r} runs {name!r}, which this check does not know: "
        "add it to OTHER_PROGRAMS with why it is not run"
    )


def parsed(parse, argv: list[str]) -> tuple[int, str]:
    """``(exit status, what was printed)`` of ``parse(argv)``; 0 if it returned."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            parse(argv)
        except SystemExit as stop:
            return (stop.code if isinstance(stop.code, int) else 1), out.getvalue()
    return 0, out.getvalue()


def run_script(script: str, argv: list[str]) -> None:
    """The script as ``python script ...``, in this process."""
    saved = sys.argv, list(sys.path)
    sys.argv, sys.path[:0] = [script, *argv], [str(SCRIPTS), str(ROOT)]
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved


@pytest.mark.parametrize("command", OURS, ids=lambda command: command.where)
def test_documented_command_parses(command):
    from bookgen.cli.c4book import build_parser

    try:
        name, args, _, _ = as_argv(command)
    except ValueError as error:
        pytest.fail(f"{command.where}: {command.text!r} does not split into words: {error}")
    if name == "c4book":
        status, said = parsed(build_parser().parse_args, args)
    else:
        if "--help" in args or "-h" in args:
            pytest.skip("a script's --help runs in tests/test_scripts.py")
        # Before any mode: a script's --check-args belongs to its top-level parser.
        status, said = parsed(lambda argv: run_script(name, argv), ["--check-args", *args])
        assert status or said.startswith("{"), f"{command.where}: {name} ignored --check-args"
    assert status == 0, f"{command.where}: {command.text!r}: {said.strip()}"


def why_not_run(command: Command) -> str | None:
    """Why a c4book command is not run here, or ``None`` to run it."""
    try:
        name, args, stdin, synopsis = as_argv(command)
    except ValueError:
        return "does not split into words (the parse test says so)"
    if name != "c4book":
        return "not a c4book command"
    if args[0] not in RUN and not args[0].startswith("-"):  # c4book --help runs
        return NOT_RUN.get(args[0], "not a command c4book knows")
    if synopsis:
        return "a synopsis: its placeholders stand for the reader's values"
    if "--db" in args and not (ROOT / args[args.index("--db") + 1]).exists():
        return "reads a book that a command not run here makes"
    if stdin is not None and not (ROOT / stdin).exists():
        return f"reads {stdin}, which the repository lacks"
    return None


RAN: dict[tuple, subprocess.CompletedProcess] = {}


@pytest.mark.parametrize(
    "command", [c for c in OURS if why_not_run(c) is None], ids=lambda command: command.where
)
def test_quick_command_runs(command):
    _, args, stdin, _ = as_argv(command)
    key = (tuple(args), stdin)
    if key not in RAN:
        with open(ROOT / stdin) if stdin else contextlib.nullcontext(subprocess.DEVNULL) as given:
            RAN[key] = subprocess.run(
                c4book_command() + args,
                cwd=ROOT,
                stdin=given,
                capture_output=True,
                text=True,
                timeout=RUN_SECONDS,
            )
    done = RAN[key]
    assert done.returncode == 0 and "Traceback" not in done.stderr, (
        f"{command.where}: {command.text!r} exited {done.returncode}: {done.stderr[-2000:]}"
    )


def test_every_command_has_help():
    from bookgen.cli.c4book import build_parser

    done = subprocess.run(
        [*c4book_command(), "--help"], capture_output=True, text=True, timeout=RUN_SECONDS
    )  # the installed command, once
    assert done.returncode == 0 and done.stdout.startswith("usage: c4book"), done.stderr
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    for name in commands:
        status, said = parsed(build_parser().parse_args, [name, "--help"])
        assert status == 0 and said.startswith(f"usage: c4book {name}"), said
    assert set(commands) == RUN | set(NOT_RUN), "put each command in RUN or NOT_RUN, with why"


# -- links --------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped (``-`` and ``_``
    kept), spaces as ``-``."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a markdown file; a repeated one gains -1, -2..."""
    _, prose = split_fences(path)
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", prose, re.MULTILINE):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[tuple[str, str]]:
    """``(file:line, target)`` of each link in the prose, outside code."""
    _, prose = split_fences(path)
    prose = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose)
    return [
        (where(path, prose.count("\n", 0, m.start()) + 1), m.group(1)) for m in LINK.finditer(prose)
    ]


def broken(path: Path, target: str) -> str | None:
    """What is wrong with a link from ``path``, or ``None``."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, mailto: ...: not ours to check
        return None
    file, _, anchor = target.partition("#")
    goal = (path.parent / file).resolve() if file else path
    if not goal.exists():
        return f"no file {file}"
    if anchor and goal.suffix == ".md" and anchor not in anchors(goal):
        return f"no heading #{anchor} in {file or path.name}"
    return None


def test_links_and_anchors_resolve():
    bad = [
        f"{at}: {target}: {problem}"
        for path in DOCS
        for at, target in links(path)
        if (problem := broken(path, target))
    ]
    assert not bad, "\n".join(bad)


def test_github_anchors():
    assert slug("2026-11-25: any board (issue 36)") == "2026-11-25-any-board-issue-36"
    assert slug("`c4book serve`: the opening explorer") == "c4book-serve-the-opening-explorer"
    assert slug("`solver/_search.py`: BUSY_PLY") == "solver_searchpy-busy_ply"
    assert (
        slug("Growing a book with its parents' bounds") == "growing-a-book-with-its-parents-bounds"
    )


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# A page\n## Two words\n```\n## no heading\n```\n## Two words\n"
    )
    page = tmp_path / "README.md"
    assert broken(page, "docs/a.md#two-words-1") is None
    assert broken(page, "docs/a.md#no-heading") == "no heading #no-heading in docs/a.md"
    assert broken(page, "docs/b.md") == "no file docs/b.md"
    assert broken(page, "https://example.org/nowhere") is None

"""The import graph, built from the sources: no cycle anywhere in ``solver/`` or ``bookgen/``,
and the arrows the architecture draws (docs/development.md).

Every import counts, at the top or inside a function: a lazy import is still an
arrow.  Imports under ``if TYPE_CHECKING:`` do not, since Python never runs them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "bookgen")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(tree: ast.AST):
    """Every import node Python may run: all but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in runtime_imports_of(child))
            continue
        yield from runtime_imports_of(node)


def runtime_imports_of(node: ast.AST):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from runtime_imports(node)


def import_graph() -> dict[str, set[str]]:
    """``{module: the project's modules it imports}``, from the sources."""
    files = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in runtime_imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                # ``from package import module`` names the module; else the names are in base.
                wanted = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names
                ]
            for spelled in wanted:
                target = spelled
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_is_read_from_the_sources(graph):
    # A few arrows known to be there: the test reads what it must.
    assert "bookgen.book.format.segment" in graph["bookgen.book.write.store"]
    assert "solver.packed" in graph["bookgen.book.read.compiled_keys"]
    assert "bookgen.book.read.compiled_family" in graph["bookgen.book.read.plies"]  # lazy


def test_no_import_cycle(graph):
    assert cycles(graph) == []


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize(
    "room, never",
    [
        ("bookgen.book.format", ("bookgen.book.write", "bookgen.book.read", "bookgen.builder")),
        ("bookgen.book.write", ("bookgen.book.read",)),
        ("bookgen.book.read", ("bookgen.book.write",)),
        ("bookgen.book", ("bookgen.builder", "bookgen.cli", "bookgen.web", "bookgen.play")),
        ("solver", ("bookgen",)),
    ],
)
def test_arrows_point_one_way(graph, room, never):
    crossing = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if name == room or name.startswith(room + ".")
        for target in targets
        if any(target == other or target.startswith(other + ".") for other in never)
    )
    assert crossing == []


def test_the_solver_never_imports_ray_or_sqlalchemy():
    for path in (ROOT / "solver").rglob("*.py"):
        for node in runtime_imports(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            assert not any(n and n.split(".")[0] in ("ray", "sqlalchemy") for n in names), path.name

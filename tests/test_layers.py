"""Layers that point one way: no import cycle between rewriter's modules and subpackages, and the
runtime, which is copied into users' interpreters, imports nothing else of ours.

Imports inside functions count too: a lazy import is still a dependency, and a cycle through one
is an ordering nobody wrote down."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "rewriter"


def _unit(module: str) -> str:
    """`rewriter.verify.session` -> `rewriter.verify`; `rewriter.engine` -> itself."""
    return ".".join(module.split(".")[:2])


def _imports(path: Path) -> set[str]:
    """The modules of ours a file imports, as absolute names."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    here = parts[:-1]  # the package a relative import starts from (for __init__.py, its own)
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[:len(here) - node.level + 1]
            if node.module:
                out.add(".".join([*base, node.module]))
            else:
                out.update(".".join([*base, alias.name]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE)
    return out


def _graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for path in (ROOT / PACKAGE).rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for target in _imports(path):
            if _unit(target) != _unit(module):
                edges[_unit(module)].add(_unit(target))
    return edges


def _cycle_through(edges: dict[str, set[str]], start: str) -> list[str] | None:
    paths = [[start]]
    seen = set()
    while paths:
        path = paths.pop()
        for nxt in sorted(edges.get(path[-1], ())):
            if nxt == start:
                return [*path, nxt]
            if nxt not in seen:
                seen.add(nxt)
                paths.append([*path, nxt])
    return None


def test_the_import_graph_of_rewriter_has_no_cycle():
    edges = _graph()
    cycles = [cycle for unit in sorted(edges) if (cycle := _cycle_through(edges, unit))]
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_runtime_imports_nothing_else_of_ours():
    edges = _graph()
    assert f"{PACKAGE}.runtime" not in edges or not edges[f"{PACKAGE}.runtime"], edges[f"{PACKAGE}.runtime"]


def test_the_graph_sees_imports():
    """The check above would pass on an empty graph: it must see the layers it guards."""
    edges = _graph()
    assert "rewriter.runtime" in edges["rewriter.verify"] and "rewriter.engine" in edges["rewriter.notebooks"]
    assert "rewriter.boundaries" in edges["rewriter.codemod"]  # an import inside a function counts

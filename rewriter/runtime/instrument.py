"""Instrumentation at load time: an AST transform of the module being imported, nothing on disk.

After each statement that defines a recorded unit, the name is rebound to its recording wrapper; an
import finder applies that to the configured files and runs the framework hooks once their modules
are imported.
"""
from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import os
import sys

from .state import state

RECORD_NAME = "__phiml_rewrite_record__"


def instrument(tree: ast.Module, units: set[str], file_id: str) -> ast.Module:
    """After each statement defining a unit, rebind the name to its wrapper recording "file_id:unit"."""

    def rebind(name: str, unit: str, after: ast.stmt) -> ast.stmt:
        call = ast.Call(ast.Name(RECORD_NAME, ast.Load()), [ast.Constant(f"{file_id}:{unit}"), ast.Name(name, ast.Load())], [])
        node = ast.Assign([ast.Name(name, ast.Store())], call)
        return ast.copy_location(node, after)

    def walk(body: list[ast.stmt], prefix: str) -> list[ast.stmt]:
        out = []
        for stmt in body:
            out.append(stmt)
            for name in defined_names(stmt):
                if prefix + name in units:
                    out.append(rebind(name, prefix + name, stmt))
            if isinstance(stmt, ast.ClassDef) and not prefix:
                stmt.body = walk(stmt.body, stmt.name + ".")
        return out

    tree.body = walk(tree.body, "")
    return ast.fix_missing_locations(tree)


def defined_names(stmt: ast.stmt) -> list[str]:
    """Names a statement binds that can be recorded: defs, classes' methods, plain assignments."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


class _InstrumentingLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, target: dict) -> None:
        super().__init__(fullname, path)
        self.target = target

    def source_to_code(self, data, path, *, _optimize=-1):
        tree = ast.parse(data, path)
        return compile(instrument(tree, set(self.target["units"]), self.target["id"]), path, "exec", dont_inherit=True)

    def get_code(self, fullname):  # never read or write a cached .pyc of the instrumented code
        return self.source_to_code(self.get_data(self.path), self.path)

    def exec_module(self, module) -> None:
        module.__dict__[RECORD_NAME] = state.recorder.wrap
        super().exec_module(module)


class Finder(importlib.abc.MetaPathFinder):
    """Instruments the configured files and runs hooks once certain modules are imported."""

    def __init__(self, instrument_map: dict[str, dict], hooks: dict) -> None:
        self.instrument_map = {os.path.realpath(p): target for p, target in instrument_map.items()}
        # a module can only come from one of those files if its last name matches the file (or package)
        self.stems = {_stem(p) for p in self.instrument_map}
        self.hooks = hooks
        self._busy: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self._busy or (fullname not in self.hooks and fullname.rpartition(".")[2] not in self.stems):
            return None
        self._busy.add(fullname)
        try:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path) if fullname not in self.hooks else None
            if fullname in self.hooks:
                for finder in sys.meta_path:
                    if finder is self or not hasattr(finder, "find_spec"):
                        continue
                    spec = finder.find_spec(fullname, path, target)
                    if spec is not None:
                        break
        finally:
            self._busy.discard(fullname)
        if spec is None or spec.origin is None:
            return None
        origin = os.path.realpath(spec.origin)
        if origin in self.instrument_map:
            spec.loader = _InstrumentingLoader(fullname, spec.origin, self.instrument_map[origin])
            return spec
        if fullname in self.hooks and spec.loader is not None:
            spec.loader = _HookedLoader(spec.loader, self.hooks[fullname])
            return spec
        return None


def _stem(path: str) -> str:
    name = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(path)) if name == "__init__" else name


class _HookedLoader(importlib.abc.Loader):
    def __init__(self, loader, hook) -> None:
        self.loader, self.hook = loader, hook

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        self.hook(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


def function_names(path: str) -> set[str]:
    """The names of the functions a file defines: the compiles and traces that are the program's own."""
    try:
        trees = [ast.parse(source) for source in notebook_cells(path)] if path.endswith(".ipynb") \
            else [ast.parse(open(path, "rb").read())]
    except (OSError, SyntaxError, ValueError):
        return set()
    return {n.name for tree in trees for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} | {"<lambda>"}


def notebook_cells(path: str) -> list[str]:
    """The code cells of a notebook that parse once their IPython lines (`%`, `!`) are dropped."""
    import json

    with open(path, encoding="utf-8-sig") as f:
        cells = json.load(f).get("cells", [])
    out = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = source if isinstance(source, str) else "".join(source)
        code = "".join(line for line in source.splitlines(keepends=True) if not line.lstrip().startswith(("%", "!")))
        try:
            ast.parse(code)
        except (SyntaxError, ValueError):
            continue
        out.append(code)
    return out


class CellInstrumenter(ast.NodeTransformer):
    """IPython's AST hook for a notebook's cells: each cell is instrumented like a module (`instrument`)."""

    def __init__(self, units: set[str], file_id: str) -> None:
        self.units, self.file_id = units, file_id

    def visit(self, node):
        return instrument(node, self.units, self.file_id) if isinstance(node, ast.Module) else node

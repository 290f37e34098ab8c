"""Derive `_installed.py` (the facts about the installed packages the rewriter targets) from their sources.

    python -m rewriter.analysis.scan_installed           # rewrite rewriter/analysis/_installed.py
    python -m rewriter.analysis.scan_installed --check   # exit 1 if it differs from what is installed

(then `python -m rewriter.analysis.reaching`: the names that may reach an API are made from these facts.)

Why a generated, checked-in module rather than reading the installed packages when the tool runs:
the findings must not depend on the environment the tool happens to run in (a pre-commit or CI
environment usually has no jax or PhiFlow at all), the result cache is keyed on the tool's own files
(so the facts must be one of them), the migration table (codemods/_migration_rows.py) is pinned to
the same installed versions and checked against them the same way, and resolving jax's private
definitions back to public names means reading all ~900 modules of these packages, which no run should pay for.
`tests/test_installed.py` regenerates the module from the installed packages and fails when it differs.

For every module of PACKAGES, the top-level bindings are read with `ast` (module_source.py) and each
public name is followed through its re-exports to the object it denotes: a definition (`def`, class,
value) in some module, a module, or a name outside PACKAGES. The *canonical* spelling of an object is
its public spelling the fewest re-export hops from its definition (ties: its own name rather than an
`as` name, then fewer dots, then alphabetical): `phiml.math.solve_linear` for `phi.field.solve_linear`, `phi.flow.solve_linear`,
`phiml.solve_linear` and `phiml.math._optimize.solve_linear`; `jax.jit` for `jax._src.api.jit`.
"""
from __future__ import annotations

import argparse
import ast
import importlib.machinery
import importlib.metadata
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from .annotations import static_fields
from .predicates import type_predicates
from .module_source import DEFINED, UNBOUND, ModuleRef, ModuleSource, Ref, read_module

# The packages whose spellings the rules resolve (the frameworks of apis.py minus torch and
# tensorflow, whose public API is generated into modules their internals import from, so "public"
# cannot be told from a module's name there).
PACKAGES = ("phi", "phiml", "jax", "equinox", "diffrax")
OUTPUT = Path(__file__).with_name("_installed.py")


def _minimum_python(metadata) -> tuple[int, ...]:
    """`(3, 11)` from `Requires-Python: >=3.11` (other clauses say nothing about the oldest)."""
    for clause in (metadata.get("Requires-Python") or "").split(","):
        clause = clause.strip()
        if clause.startswith(">=") and all(p.isdigit() for p in clause[2:].strip().split(".")):
            return tuple(int(p) for p in clause[2:].strip().split("."))
    return ()


def _public(dotted: str) -> bool:
    return not any(part.startswith("_") for part in dotted.split("."))


@dataclass(frozen=True)
class Target:
    """What a name of an installed package refers to: an object defined there, a module, or a name outside."""
    kind: str  # "object" (defined at `name`) | "module" | "outside" (a name outside PACKAGES)
    name: str


class Installed:
    """The modules of PACKAGES on this interpreter's path, read on demand."""

    def __init__(self, packages=PACKAGES) -> None:
        self.files: dict[str, tuple[Path | None, bool]] = {}  # module -> (source, is package); None: compiled
        self.versions: dict[str, str] = {}
        self.oldest_python: tuple[int, ...] = ()  # the highest `Requires-Python: >=` among them
        distributions = importlib.metadata.packages_distributions()
        for package in packages:
            spec = importlib.machinery.PathFinder.find_spec(package)  # finds, never imports
            if spec is None or not spec.submodule_search_locations:
                continue
            root = Path(list(spec.submodule_search_locations)[0])
            self._collect(package, root)
            dist = (distributions.get(package) or [package])[0]
            self.versions[package] = importlib.metadata.version(dist)
            self.oldest_python = max(self.oldest_python, _minimum_python(importlib.metadata.metadata(dist)))
        self._read: dict[str, ModuleSource | None] = {}
        self._reading: set[str] = set()

    def _collect(self, module: str, directory: Path) -> None:
        if not (directory / "__init__.py").is_file():
            return
        self.files[module] = (directory / "__init__.py", True)
        for path in sorted(directory.iterdir()):
            if path.is_dir() and path.name.isidentifier():
                self._collect(f"{module}.{path.name}", path)
            elif path.suffix == ".py" and path.stem != "__init__" and path.stem.isidentifier():
                self.files[f"{module}.{path.stem}"] = (path, False)
            elif any(path.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES):
                self.files.setdefault(f"{module}.{path.name.split('.')[0]}", (None, False))

    def module(self, name: str) -> ModuleSource | None:
        if name in self._read:
            return self._read[name]
        if self.files.get(name, (None,))[0] is None or name in self._reading:
            return None  # outside PACKAGES, compiled, or a cycle of star imports: unknown
        self._reading.add(name)
        path, is_package = self.files[name]
        try:
            result = read_module(name, path.read_bytes(), is_package, self._exports)
        except (SyntaxError, ValueError):
            result = None
        finally:
            self._reading.discard(name)
        self._read[name] = result
        return result

    def _exports(self, name: str):
        source = self.module(name)
        return None if source is None else source.star_names()

    # -- following re-exports ------------------------------------------------------------------
    def resolve(self, module: str, name: str, seen: frozenset = frozenset()) -> tuple[Target, int]:
        """What `module.name` denotes, and how many re-export hops lead there."""
        submodule = f"{module}.{name}"
        source = self.module(module)
        if source is None or (module, name) in seen:
            if submodule in self.files:
                return Target("module", submodule), 0
            return Target("object" if source is not None else "outside", submodule), 0
        values = source.bindings.get(name, frozenset()) - {UNBOUND}
        if len(values) != 1:
            if not values and submodule in self.files:
                return Target("module", submodule), 0
            return Target("object", submodule), 0  # bound to different things: its own name
        value = next(iter(values))
        if value == DEFINED:
            return Target("object", submodule), 0
        if isinstance(value, ModuleRef):
            return Target("module" if value.module in self.files else "outside", value.module), 0
        assert isinstance(value, Ref)
        target, hops = self.resolve(value.module, value.name, seen | {(module, name)})
        return target, hops + 1


def facts(installed: Installed) -> dict:
    """The contents of `_installed.py` (its docstring describes the format)."""
    spellings: dict[Target, list[tuple[int, str]]] = {}
    sources = {m: installed.module(m) for m in installed.files if installed.files[m][0] is not None}
    public = sorted(m for m, s in sources.items() if s is not None and _public(m))
    for module in public:
        source = sources[module]
        for name in sorted(source.bindings):
            if not name.startswith("_") and source.possibly_bound(name):
                target, hops = installed.resolve(module, name)
                spellings.setdefault(target, []).append((hops, f"{module}.{name}"))
    canonical = {target: _canonical(target, found) for target, found in spellings.items()}
    names = {m: {} for m in public}
    origins: dict[str, dict[str, list[str]]] = {}
    for target, found in spellings.items():
        for _, spelled in found:
            module, _, name = spelled.rpartition(".")
            _group(names[module], name, canonical[target])
        if target.kind == "object" and not _public(target.name) and canonical[target] != target.name:
            module, _, name = target.name.rpartition(".")
            _group(origins.setdefault(module, {}), name, canonical[target])
    maybe, all_names, getattr_names, open_modules = {}, {}, {}, []
    for module in public:
        source = sources[module]
        sometimes = [n for n in sorted(source.bindings) if not n.startswith("_")
                     and source.possibly_bound(n) and not source.definitely_bound(n)]
        if sometimes:
            maybe[module] = " ".join(sometimes)
        if source.all_names is not None:
            all_names[module] = " ".join(source.all_names)
        if source.getattr_names != {}:
            getattr_names[module] = source.getattr_names
        if source.open:
            open_modules.append(module)
    value_classes, predicates, classes = {}, {}, {}
    for module in sorted(sources):
        tree = _tree(installed.files[module][0])
        if tree is None:
            continue
        for stmt in tree.body:
            if isinstance(stmt, ast.ClassDef) and (fields := static_fields(stmt)):
                value_classes[f"{module}.{stmt.name}"] = " ".join(fields)
            if isinstance(stmt, ast.ClassDef) and sources[module] is not None \
                    and sources[module].bindings.get(stmt.name, frozenset()) - {UNBOUND} == {DEFINED}:
                name = canonical.get(Target("object", f"{module}.{stmt.name}"), f"{module}.{stmt.name}")
                if _public(name):  # (a class bound once, by its class statement, with a public spelling)
                    owner, _, last = name.rpartition(".")
                    classes.setdefault(owner, []).append(last)
        if found := type_predicates(tree):
            predicates[module] = " ".join(found)
    return {
        "VERSIONS": dict(sorted(installed.versions.items())),
        "OLDEST_PYTHON": installed.oldest_python,
        "MODULES": sorted(installed.files),
        "NAMES": _joined(names),
        "ORIGINS": _joined(origins),
        "MAYBE": maybe,
        "ALL": all_names,
        "GETATTR": getattr_names,
        "OPEN": open_modules,
        "STATIC_FIELDS": value_classes,
        "TYPE_PREDICATES": predicates,
        "CLASSES": {module: " ".join(sorted(names)) for module, names in sorted(classes.items())},
    }


def _tree(path: Path) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return None


def _canonical(target: Target, found: list[tuple[int, str]]) -> str:
    """A module is its own name; an object its public spelling the fewest hops from its definition."""
    if target.kind != "object":
        return target.name
    candidates = ([(0, target.name)] if _public(target.name) else []) + [f for f in found if _public(f[1])]
    last = target.name.rpartition(".")[2]
    return min(candidates, key=lambda c: (c[0], c[1].rpartition(".")[2] != last, c[1].count("."), c[1]))[1] \
        if candidates else target.name


def _group(table: dict[str, list[str]], name: str, canonical: str) -> None:
    """`name` under the module part of its canonical spelling: `name`, or `name=other` when renamed."""
    module, _, last = canonical.rpartition(".")
    table.setdefault(module, []).append(name if last == name else f"{name}={last}")


def _joined(table: dict[str, dict[str, list[str]]]) -> dict[str, dict[str, str]]:
    return {m: {c: " ".join(sorted(ns)) for c, ns in sorted(groups.items())} for m, groups in sorted(table.items())}


_HEADER = '''"""Facts about the installed packages the rewriter targets. GENERATED: do not edit.

Regenerate with `python -m rewriter.analysis.scan_installed` (that module says why this is a checked-in
file and how it is derived); read it through `rewriter.analysis.installed`.

VERSIONS  package -> the installed version the facts were read from
OLDEST_PYTHON  the oldest Python they all accept (their highest `Requires-Python: >=`)
MODULES   every module of those packages (with compiled ones)
NAMES     public module -> {module C: "n m=k ..."}: every public name the module binds, under the
          module of its canonical spelling: `n` is `C.n`, `m=k` is `C.k` (C is the module itself for
          its own objects, "" for a top-level module such as numpy)
ORIGINS   private module -> the same, for the objects defined there that have a public spelling
MAYBE     public module -> the names of NAMES bound only on some paths (an `if`, a `try`)
ALL       public module -> its literal `__all__`
GETATTR   public module with a `__getattr__` -> None (answers anything) or {name: whether it exists}
OPEN      public modules whose bindings cannot all be read (a `*` import of an unread module)
STATIC_FIELDS  value class (equinox.Module, dataclass; where it is defined) -> its fields that hold Python
          values or are declared static (annotations.py): static under `equinox.filter_jit`
TYPE_PREDICATES  module -> its functions that answer questions about types, never values
          (predicates.py): a Python bool at trace time whatever they are given
CLASSES   module -> the classes it is the canonical spelling of (a `class` statement the name is bound
          by alone): a call of one makes an object, never an array (forms.py)
"""
# fmt: off
'''


def render(data: dict) -> str:
    """One line per entry, sorted: a new release changes the lines of the names it changes."""
    parts = [_HEADER]
    for key, value in data.items():
        if isinstance(value, tuple):
            parts.append(f"{key} = {value!r}\n")
            continue
        if isinstance(value, list):
            lines = [f"    {n!r}," for n in value]
            parts.append(f"{key} = frozenset({{\n" + "\n".join(lines) + "\n})\n")
            continue
        lines = []
        for k, v in value.items():
            if isinstance(v, dict) and v and all(isinstance(x, str) for x in v.values()):
                lines.append(f"    {k!r}: {{")
                lines += [f"        {c!r}: {ns!r}," for c, ns in v.items()]
                lines.append("    },")
            else:
                lines.append(f"    {k!r}: {v!r},")
        parts.append(f"{key} = {{\n" + "\n".join(lines) + "\n}\n")
    return "\n".join(parts)


def write_or_check(output: Path, text: str, check: bool, source: str) -> int:
    """A generated module's command: write `text` to `output`, or (`check`) only compare and exit 1 where
    they differ; `source`: what it is generated from, for that message."""
    if check:
        same = output.exists() and output.read_text() == text
        print(f"{output}: {'up to date' if same else f'differs from {source}; regenerate it'}")
        return 0 if same else 1
    output.write_text(text)
    print(f"wrote {output} ({len(text) // 1024} kB)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rewriter.analysis.scan_installed", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if the checked-in module differs")
    args = parser.parse_args(argv)
    return write_or_check(OUTPUT, render(facts(Installed())), args.check, "the installed packages")


if __name__ == "__main__":
    sys.exit(main())

"""Whether what the real-code rewrite changed still imports: each applied fix's module, and its function.

A fix is attributed to its unit, the thing `getattr` reaches from the module: `f`, `Class.method`; a
nested def counts as the top-level function around it, module-level code as the module itself. Each
module is imported in a fresh interpreter with the rewritten copy first on the path (and its
`__file__` checked to be the copy); when that fails, the original is tried the same way, so that a
module that never imported here (an optional dependency missing) is told apart from one the rewrite
broke.
"""
from __future__ import annotations

import ast
import collections
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks._common import quiet_env

PROBE = Path(__file__).with_name("import_probe.py")
OK = "ok"
FAILED = "FAILED"
NOT_IN_ORIGINAL = "fails in the original too"  # not the rewrite's doing: reported, not failed
NOT_A_MODULE = "not importable (a stub)"

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class AppliedFix:
    code: str
    safety: str  # safe or unsafe
    file: str  # relative to the directory holding the packages: phi/field/_field_math.py
    line: int
    unit: str | None  # enclosing_unit of the line in the original file; None: module-level code


@dataclass(frozen=True)
class FixImport:
    fix: AppliedFix
    module: str | None
    status: str
    detail: str = ""


def module_name(file: str) -> str | None:
    """`phi/field/__init__.py` -> `phi.field`; None for what `import` cannot load (a .pyi stub)."""
    path = Path(file)
    if path.suffix != ".py":
        return None
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def enclosing_unit(source: str, line: int) -> str | None:
    """The qualified name getattr follows to the code at `line` (None: module-level code)."""
    names: list[str] = []
    around: ast.ClassDef | None = None
    body = ast.parse(source).body
    while (node := _scope_at(body, line)) is not None:
        names.append(_mangled(node.name, around.name) if around else node.name)
        if not isinstance(node, ast.ClassDef):
            break  # a def: what is nested in it is not reachable by getattr
        around, body = node, node.body
    return ".".join(names) or None


def _scope_at(body: list[ast.stmt], line: int) -> ast.stmt | None:
    for node in _statements(body):
        if isinstance(node, _SCOPES):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= line <= node.end_lineno:
                return node
    return None


def _statements(body: list[ast.stmt]):
    """The statements of a scope, also those under if/try/with/for/while/match (same namespace)."""
    for node in body:
        yield node
        if isinstance(node, _SCOPES):
            continue
        for name in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(node, name, []))
        for inner in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
            yield from _statements(inner.body)


def _mangled(name: str, cls: str) -> str:
    """`__name` in a class body is stored as `_Class__name`."""
    if name.startswith("__") and not name.endswith("__") and cls.strip("_"):
        return f"_{cls.lstrip('_')}{name}"
    return name


def check_imports(fixes: list[AppliedFix], work: Path, originals: Path | None = None) -> list[FixImport]:
    """Import every module an applied fix touched from `work` (the rewritten copies) and follow each fix's
    unit in it. `originals`: where the unmodified packages are (None: installed, on the normal path)."""
    by_module: dict[str, set[str]] = collections.defaultdict(set)
    for fix in fixes:
        name = module_name(fix.file)
        if name is not None:
            by_module[name] |= {fix.unit} - {None}
    probed = {name: _verdicts(name, sorted(units), work, originals) for name, units in sorted(by_module.items())}
    out = []
    for fix in fixes:
        name = module_name(fix.file)
        if name is None:
            out.append(FixImport(fix, None, NOT_A_MODULE))
        else:
            out.append(FixImport(fix, name, *probed[name][fix.unit]))
    return out


def _verdicts(name: str, qualnames: list[str], work: Path, originals: Path | None) -> dict[str | None, tuple[str, str]]:
    """unit (None: the module itself) -> (status, detail), for one module of the rewritten copy."""
    copy = _probe(name, qualnames, work)
    problem = _problem(copy, work)
    original = _probe(name, qualnames, originals) if problem or copy["missing"] else None
    out = {}
    for unit in [None, *qualnames]:
        if problem:
            again = original["error"] is not None
            out[unit] = (NOT_IN_ORIGINAL if again else FAILED, problem if not again else original["error"])
        elif unit in copy["missing"]:
            again = original["error"] is not None or unit in original["missing"]
            out[unit] = (NOT_IN_ORIGINAL if again else FAILED, f"{unit} is not an attribute path of {name}")
        else:
            out[unit] = (OK, "")
    return out


def _problem(result: dict, work: Path) -> str | None:
    if result["error"]:
        return result["error"]
    file = result["file"]
    if file is None or not os.path.realpath(file).startswith(os.path.realpath(work) + os.sep):
        return f"imported {file}, not the rewritten copy under {work}"
    return None


def _probe(name: str, qualnames: list[str], path: Path | None) -> dict:
    """Import `name` in a fresh interpreter, with `path` first on sys.path (None: the installed packages)."""
    env = quiet_env(PYTHONPATH=str(path) if path else "", JAX_PLATFORMS="cpu")
    cwd = (path or PROBE).parent  # a directory without packages of its own
    proc = subprocess.run([sys.executable, str(PROBE), name, *qualnames], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (proc.stderr or proc.stdout).strip()[-400:]
        return {"module": name, "file": None, "error": f"probe exit {proc.returncode}: {tail}", "missing": []}

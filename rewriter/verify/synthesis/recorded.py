"""Keep the inputs a `verify --run`/`--pytest` run recorded, for later synthesis (`store`).

The run's recorder pickles the arguments of the changed units' first calls (`runtime.recording`),
for replay within the run. After the run, one process per verify (`save`, on the backend cheapest
to import) loads those pickles, names the arguments after the function's parameters and writes the
portable ones to the store; recordings converted before (the same pickled bytes: a seeded
program run again) are not converted again, and start no process. It runs outside the project's trees: a pickle that names one of the
program's own modules fails to load (that call is not kept) rather than running the program's code.

Usage: python -m rewriter.verify.synthesis.recorded SPEC.json OUT.json
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from .store import MAX_CALLS, Store, definition, portable

RETURNED = "/returned"  # the calls of functions a unit returns (runtime.recording): not the unit's own
CHEAPEST = ("numpy", "jax", "torch", "tensorflow")  # PhiML backends by the cost of importing them
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def preferred(backends: list[str]) -> str | None:
    """The backend whose recording run is kept: the cheapest to import."""
    return min(backends, key=lambda b: CHEAPEST.index(b) if b in CHEAPEST else len(CHEAPEST), default=None)


def items(calls: dict[str, list[dict]], original_root: Path, key=lambda rel: rel) -> list[dict]:
    """Per recorded unit of a module (not a notebook's, not a returned function): its pickled inputs
    of calls that returned."""
    by_unit: dict[tuple[str, str], list[str]] = {}
    for recorded_as, recorded in calls.items():
        file_id, _, unit = recorded_as.rsplit("::", 1)[-1].partition(":")
        if not unit or file_id.endswith(".ipynb") or RETURNED in unit:
            continue
        paths = by_unit.setdefault((file_id, unit), [])
        for call in recorded:
            inputs = call.get("inputs")
            if inputs and not inputs.startswith("!") and "value" in call and len(paths) < 2 * MAX_CALLS:
                paths.append(inputs)
    return [{"file": key(file_id), "source": str(original_root / file_id), "unit": unit, "inputs": paths}
            for (file_id, unit), paths in by_unit.items() if paths]


def fingerprint(path: str) -> str:
    """A recording's pickle, by its bytes (a seeded program records the same bytes each run)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:24]
    except OSError:
        return ""


def new(todo: list[dict], store: Store) -> list[dict]:
    """The items with a recording not converted before for the function as it is now."""
    out = []
    for item in todo:
        try:
            source = Path(item["source"]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not {fingerprint(p) for p in item["inputs"]} <= store.converted(item["file"], item["unit"], source):
            out.append(item)
    return out


def save(calls: dict[str, list[dict]], original_root: Path, store: Store, backend: str | None, timeout: float,
         key=lambda rel: rel) -> tuple[int, str]:
    """Write the portable inputs among `calls` (a run's records) to `store`: (functions kept, problem).
    `key`: a recorded file's name in the store (`store.project_path`)."""
    from ... import runtime

    todo = new(items(calls, original_root, key), store)
    if not todo:  # none, or the same as an earlier run's: no process
        return 0, ""
    with tempfile.TemporaryDirectory(prefix="phiml-rewrite-recorded-") as tmp:
        spec_path, out_path = os.path.join(tmp, "spec.json"), os.path.join(tmp, "out.json")
        with open(spec_path, "w") as f:
            json.dump({"store": str(store.directory), "items": todo}, f)
        env = runtime.select_environment(backend, True)
        env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, *filter(None, [env.get("PYTHONPATH")])])
        try:
            proc = subprocess.run([sys.executable, "-m", "rewriter.verify.synthesis.recorded", spec_path, out_path],
                                  capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp)
        except subprocess.TimeoutExpired:
            return 0, f"recorded inputs not kept: cut short after {timeout:.0f} s"
        if proc.returncode or not os.path.exists(out_path):
            return 0, f"recorded inputs not kept (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}"
        with open(out_path) as f:
            return json.load(f)["functions"], ""


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[str], set[str], bool]:
    """(positional parameters, keyword-only ones, whether it takes *args)."""
    args = node.args
    return [a.arg for a in args.posonlyargs + args.args], {a.arg for a in args.kwonlyargs}, args.vararg is not None


def bind(node, args: tuple, kwargs: dict) -> dict | None:
    """The call's arguments by parameter name; None when they do not map one to one (*args, **kwargs,
    positional-only parameters, which synthesis cannot pass by name)."""
    positional, keyword_only, _ = parameters(node)
    if node.args.posonlyargs or len(args) > len(positional):
        return None
    named = dict(zip(positional, args))
    for name, value in kwargs.items():
        if name in named or (name not in positional and name not in keyword_only):
            return None
        named[name] = value
    return named


def convert(path: str, node) -> dict[str, dict] | None:
    """A pickled call as parameter -> portable description, or None."""
    try:
        with open(path, "rb") as f:
            args, kwargs = pickle.load(f)  # the generator states that follow are not kept
    except Exception:
        return None
    named = bind(node, args, kwargs)
    if not named:
        return None
    out = {}
    for name, value in named.items():
        try:
            desc = portable(value)
        except Exception:
            desc = None
        if desc is None:
            return None
        out[name] = desc
    return out


def main(spec_path: str, out_path: str) -> None:
    spec = json.load(open(spec_path))
    store = Store(spec["store"])
    functions = 0
    for item in spec["items"]:
        try:
            source = Path(item["source"]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        node = definition(source, item["unit"])
        if node is None:
            continue
        calls = [c for c in (convert(p, node) for p in item["inputs"]) if c]
        if store.write(item["file"], item["unit"], source, calls, [fingerprint(p) for p in item["inputs"]]):
            functions += 1
    with open(out_path, "w") as f:
        json.dump({"functions": functions}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""Input source 1: calls recorded by earlier `verify --run`/`--pytest` runs, kept per function on disk.

An entry is one file per function (its file relative to the project root and its qualified name),
holding a hash of the function's own definition (`ast.dump`: whitespace, comments and edits
elsewhere in the file leave it alone). When the function itself is edited its calls are stale:
ignored when read, replaced when written. They are inputs, not expected results, so an edit of a
helper the function calls does not make them stale.

Inputs are stored in a portable form, JSON with numpy bytes, dtype and shape, PhiML dimension
names and types, and Python numbers; never as a pickle of the program's values. Such a pickle
loads only where its backend (and device) is installed, runs whatever code the file names when
loaded, and the worker of each backend needs the value in its own natives anyway. A call with an
argument of another kind (a string, a container, an object of the program) is not kept.

Bounds: a few calls per function, a cap on the bytes of one call and on the whole store (the
functions written longest ago go first). A file that cannot be read is ignored, and replaced on
the next write; no failure of the store is an error of the run.
"""
from __future__ import annotations

import ast
import base64
import hashlib
import json
import os
import time
from pathlib import Path

SCHEMA = 1
MAX_CALLS = 4  # per function
MAX_CALL_BYTES = 256 * 1024  # the array data of one call
MAX_TOTAL_BYTES = 32 * 1024 * 1024  # the whole store
DIRECTORY_NAME = "inputs"  # inside the result cache's directory
DTYPES = {"float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"}
PHIML_DIM_TYPES = {"spatial", "channel", "batch", "instance", "dual"}


def definition(source: str, name: str) -> ast.AST | None:
    """The module-level function `name`, or the method `Class.name`; the last definition wins."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return None
    *owners, last = name.split(".")
    for owner in owners:
        found = [s for s in body if isinstance(s, ast.ClassDef) and s.name == owner]
        if not found:
            return None
        body = found[-1].body
    found = [s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == last]
    return found[-1] if found else None


def source_key(source: str, name: str) -> str | None:
    """A hash of the definition of `name` in `source` (None: no such function)."""
    node = definition(source, name)
    return None if node is None else hashlib.sha256(ast.dump(node, include_attributes=False).encode()).hexdigest()


# -- the portable form ---------------------------------------------------------------------------


def portable(value) -> dict | None:
    """A value as a description (the shape `values` gives, with the data); None: not storable."""
    import sys

    if isinstance(value, bool):
        return {"kind": "scalar", "type": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "scalar", "type": "int", "value": value} if abs(value) < 2 ** 53 else None
    if isinstance(value, float):
        return {"kind": "scalar", "type": "float", "value": value}
    np = sys.modules.get("numpy")
    if np is None:
        return None
    if isinstance(value, (np.ndarray, np.generic)):
        return _array("numpy", np.asarray(value), None)
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(value, getattr(jax, "Array", ())):
        return _array("jax", np.asarray(value), None)
    phiml = sys.modules.get("phiml.math")
    if phiml is not None and type(value).__name__ == "Dense" and isinstance(value, phiml.Tensor):
        return _phiml(value)
    return None


def _phiml(tensor) -> dict | None:
    import numpy as np
    from phiml.backend import choose_backend

    shape = tensor.shape
    if not shape.is_uniform:
        return None
    if any(kind not in PHIML_DIM_TYPES for kind in shape.dim_types):
        return None
    native = tensor.native(shape.names)
    desc = _array("phiml", np.asarray(choose_backend(native).numpy(native)), [[n, k] for n, k in zip(shape.names, shape.dim_types)])
    if desc is not None and any(shape.item_names):
        desc["items"] = [list(items) if items else None for items in shape.item_names]
    return desc


def _array(framework: str, data, dims: list | None) -> dict | None:
    import numpy as np

    dtype = data.dtype.name
    if dtype == "bfloat16":
        data = data.astype(np.float32)
    elif dtype not in DTYPES:
        return None
    return {"kind": "array", "framework": framework, "dtype": dtype, "shape": list(data.shape), "value": None,
            "dims": dims, "data": base64.b64encode(data.astype(data.dtype.newbyteorder("<")).tobytes(order="C")).decode(),
            "stored": data.dtype.name}


def decode(desc: dict):
    """The value a description holds: a Python number, or a numpy array (bfloat16 as float32)."""
    import numpy as np

    if desc["kind"] == "scalar":
        return desc["value"]
    data = np.frombuffer(base64.b64decode(desc["data"]), dtype=np.dtype(desc["stored"]).newbyteorder("<"))
    return data.reshape(desc["shape"]).astype(desc["stored"])


def call_bytes(call: dict[str, dict]) -> int:
    return sum(len(d.get("data", "")) * 3 // 4 for d in call.values())


# -- the store ------------------------------------------------------------------------------------


class Store:
    """Recorded calls per function under `directory`; `file` is the module's path relative to the
    project root (`project_path`), so the entries hold wherever the project is mirrored."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)

    def _path(self, file: str, name: str) -> Path:
        return self.directory / (hashlib.sha256(f"{file}:{name}".encode()).hexdigest()[:32] + ".json")

    def _entry(self, file: str, name: str) -> dict | None:
        try:
            entry = json.loads(self._path(file, name).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not isinstance(entry, dict) or entry.get("schema") != SCHEMA or entry.get("function") != name or \
                entry.get("file") != file or not isinstance(entry.get("calls"), list):
            return None
        return entry

    def read(self, file: str, name: str, source: str) -> tuple[list[dict[str, dict]], bool]:
        """(the calls recorded for `name` as `source` defines it, whether calls of another definition were found)."""
        entry = self._entry(file, name)
        if entry is None:
            return [], False
        if entry.get("source") != source_key(source, name):
            return [], True
        return [c for c in entry["calls"] if _valid(c)], False

    def converted(self, file: str, name: str, source: str) -> set[str]:
        """The recordings (hashes of their pickles, `recorded`) already converted for this definition,
        kept or not: a run that records the same calls again has nothing to add."""
        entry = self._entry(file, name)
        if entry is None or entry.get("source") != source_key(source, name) or not isinstance(entry.get("seen"), list):
            return set()
        return {h for h in entry["seen"] if isinstance(h, str)}

    def write(self, file: str, name: str, source: str, calls: list[dict[str, dict]], converted: list[str] = ()) -> int:
        """Add `calls` (parameter -> portable description) to what is kept for `name`; the number kept.
        `converted`: the recordings these calls were converted from (`converted`)."""
        key = source_key(source, name)
        if key is None:
            return 0
        entry = self._entry(file, name)
        current = entry is not None and entry.get("source") == key
        kept = entry["calls"] if current else []
        done = self.converted(file, name, source) if current else set()
        seen = {json.dumps(c, sort_keys=True) for c in kept}
        for call in calls:
            text = json.dumps(call, sort_keys=True)
            if text not in seen and call_bytes(call) <= MAX_CALL_BYTES and _valid(call):
                seen.add(text)
                kept.append(call)
        kept = kept[-MAX_CALLS:]  # the newest
        done = sorted(done | set(converted))[-4 * MAX_CALLS:]
        if not kept and not done:
            return 0
        data = {"schema": SCHEMA, "file": file, "function": name, "source": key, "written": time.time(),
                "calls": kept, "seen": done}
        path = self._path(file, name)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _mark(self.directory.parent)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data), encoding="utf-8")
            os.replace(tmp, path)
            self.prune(keep=path)
        except OSError:
            return 0
        return len(kept)

    def prune(self, keep: Path | None = None, limit: int = MAX_TOTAL_BYTES) -> None:
        """Remove the functions written longest ago until the store fits `limit`."""
        files = []
        for path in self.directory.glob("*.json"):
            try:
                stat = path.stat()
            except OSError:
                continue
            files.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files, key=lambda f: f[0]):
            if total <= limit:
                break
            if path == keep:
                continue
            try:
                path.unlink()
                total -= size
            except OSError:
                continue


def _valid(call) -> bool:
    """A call read from disk has the shape `portable` gives (a damaged file must not reach a worker)."""
    if not isinstance(call, dict) or not call:
        return False
    for desc in call.values():
        if not isinstance(desc, dict):
            return False
        if desc.get("kind") == "scalar":
            if desc.get("type") not in ("bool", "int", "float") or not isinstance(desc.get("value"), (bool, int, float)):
                return False
        elif desc.get("kind") == "array":
            if desc.get("dtype") not in DTYPES or desc.get("stored") not in DTYPES - {"bfloat16"} or \
                    desc.get("framework") not in ("numpy", "jax", "phiml") or not isinstance(desc.get("data"), str) or \
                    not isinstance(desc.get("shape"), list) or not _dims_valid(desc):
                return False
            try:
                decode(desc)
            except Exception:
                return False
        else:
            return False
    return True


def _dims_valid(desc: dict) -> bool:
    dims, items = desc.get("dims"), desc.get("items")
    if desc["framework"] != "phiml":
        return dims is None and items is None
    if items is not None and not (isinstance(items, list) and len(items) == len(desc["shape"]) and all(
            i is None or isinstance(i, list) and all(isinstance(n, str) for n in i) for i in items)):
        return False
    return isinstance(dims, list) and len(dims) == len(desc["shape"]) and all(
        isinstance(d, list) and len(d) == 2 and isinstance(d[0], str) and d[1] in PHIML_DIM_TYPES for d in dims)


def _mark(directory: Path) -> None:
    from ...cache import _mark as mark_cache

    mark_cache(directory)


def project_path(project_root: str | os.PathLike, real_root: str | os.PathLike, rel: str) -> str:
    """`rel` (relative to the directory verify mirrors) relative to the project root, where it is inside."""
    path = Path(real_root).resolve() / rel
    try:
        return path.relative_to(Path(project_root).resolve()).as_posix()
    except ValueError:
        return Path(rel).as_posix()


def default_directory(project_root: str | os.PathLike) -> Path:
    """Next to the result cache (`cache.default_directory`)."""
    from ...cache import default_directory as cache_directory

    return cache_directory(str(project_root)) / DIRECTORY_NAME

"""Run by tests/harness/real_code_imports.py in a fresh interpreter: import one module, look names up in it.

Usage: python import_probe.py MODULE [QUALNAME ...]  (a qualname is `f` or `Class.method`)
Prints, as its last line, one JSON object: the module's __file__, the import error if any, and the
qualnames getattr could not follow. A fresh interpreter per module: one failed import must not leave
half-initialised packages behind for the next.
"""
import importlib
import json
import sys


def probe(name: str, qualnames: list[str]) -> dict:
    out = {"module": name, "file": None, "error": None, "missing": []}
    try:
        module = importlib.import_module(name)
    except BaseException as e:  # noqa: BLE001 - whatever stops the import (even SystemExit) is the answer
        out["error"] = f"{type(e).__name__}: {e}"[:500]
        return out
    out["file"] = getattr(module, "__file__", None)
    for qualname in qualnames:
        obj = module
        try:
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - AttributeError, or a module __getattr__ that fails
            out["missing"].append(qualname)
    return out


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1], sys.argv[2:])))

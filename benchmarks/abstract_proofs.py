"""How many of the golden traced-if merges an abstract proof settles (verify/synthesis/abstract.py).

Each golden/traced-if module of jax or PhiML code is rewritten with unsafe fixes; for each function
holding a PML201 fix that was written, the plan of verify-by-synthesis describes its inputs and the
proof evaluates its branches and its rewrite with `jax.eval_shape` (PhiML on its jax backend), in
this process, without drawing anything. Counted per fix: safe, unsafe with only a shape/dtype doubt
(`provable`), other unsafe; and per function: proven, disproven, inconclusive (why), no plan.

Run alone: python -m benchmarks.abstract_proofs
"""
from __future__ import annotations

import ast
import collections
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _framework(source: str) -> str | None:
    """As verify-by-synthesis picks it: PhiML if imported; jax if imported without torch or tensorflow."""
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".")[0])
    if imported & {"phiml", "phi"}:
        return "phiml"
    return "jax" if "jax" in imported and not imported & {"torch", "tensorflow"} else None


def one_file(path: Path) -> list[dict]:
    """The rows of one module, in this process (a fresh one per module: PhiML's jax backend enables x64)."""
    from rewriter import engine, runtime
    from rewriter.config import load
    from rewriter.findings import Safety
    from rewriter.settings import Settings
    from rewriter.units import unit_at, units
    from rewriter.verify.synthesis import abstract, plan, worker

    warnings.filterwarnings("ignore")
    source = path.read_text()
    framework = _framework(source)
    if framework is None:
        return []
    if framework == "phiml":
        runtime.install({"backend": "jax", "eager": False, "instrument": {}})
    config = load([str(path)]).override(unsafe_fixes=True)
    result = engine.process_source(path.read_bytes(), str(path), Settings(codemods=config.codemods_for(str(path)),
                                                                          unsafe_fixes=True))
    merged = [f for f in result.findings if f.code == "PML201" and f.applied]
    if not merged or result.new_source is None:
        return []
    table = units(source)
    by_unit: dict[str, list] = {}
    for f in merged:
        by_unit.setdefault(unit_at(table, f.span.line), []).append(f)
    tmp = Path(tempfile.mkdtemp(prefix="abstract-proofs-"))
    (tmp / path.name).write_bytes(result.new_source)
    try:
        original_module = worker._load(str(path), str(path.parent), "_abstract_original")
        rewritten_module = worker._load(str(tmp / path.name), str(tmp), "_abstract_rewritten")
    except Exception as e:
        return [{"file": path.name, "function": "*", "fixes": [], "verdict": "not loaded", "reason": runtime.describe(e)}]
    rows = []
    for unit, found in by_unit.items():
        kinds = ["safe" if f.fix.safety is Safety.SAFE else "unsafe (shape/dtype doubt)"
                 if "may not agree" in f.fix.description else "unsafe (other)" for f in found]
        planned = plan.plan(source, unit, [source])
        if planned.reason:
            verdict, reason = "no plan", planned.reason
        else:
            scalars = sorted({p for sig in planned.signatures for p, d in sig.items() if d["kind"] == "scalar"})
            try:
                rewritten = worker._jitted(getattr(rewritten_module, unit), framework, scalars)
                proof = abstract.prove(source, str(path), unit, vars(original_module), rewritten, planned.to_dict(),
                                       time.monotonic() + 10)
            except Exception as e:
                proof = {"verdict": "inconclusive", "reason": f"harness: {runtime.describe(e)}"}
            verdict, reason = (proof["verdict"], proof["reason"]) if proof else ("none", "no `if`")
        rows.append({"file": path.name, "function": unit, "fixes": kinds, "verdict": verdict, "reason": reason})
    return rows


def run() -> dict:
    t0 = time.perf_counter()
    rows = []
    for path in sorted((ROOT / "golden" / "traced-if").glob("*.py")):
        if path.name.endswith(".expected.py"):
            continue
        proc = subprocess.run([sys.executable, "-m", "benchmarks.abstract_proofs", "--file", str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode:
            rows.append({"file": path.name, "function": "*", "fixes": [], "verdict": "error",
                         "reason": (proc.stderr.strip().splitlines() or ["?"])[-1]})
            continue
        rows += json.loads(proc.stdout.strip().splitlines()[-1])
    fixes = collections.Counter(k for row in rows for k in row["fixes"])
    verdicts = collections.Counter(row["verdict"] for row in rows)
    return {"seconds": round(time.perf_counter() - t0, 1), "fixes": dict(fixes), "functions": dict(verdicts), "rows": rows}


def main() -> None:
    if sys.argv[1:2] == ["--file"]:
        print(json.dumps(one_file(Path(sys.argv[2]))))
        return
    out = run()
    for row in out["rows"]:
        print(f"{row['file']}:{row['function']}: {row['verdict']} [{', '.join(row.get('fixes', []))}] {row['reason'][:160]}")
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Executed in a fresh interpreter per backend: draw inputs for each function, compare its versions.

The original runs eagerly (the author's meaning: PhiML's jit calls the function, jax under
`disable_jit`); the rewrite runs jitted: through its own decorator, or, undecorated, through
`jax.jit` (Python numbers static, as a jitted caller's literals are) or PhiML's `jit_compile`.
An input on which the original itself fails is outside the function's domain: rejected, not held
against the rewrite. Hypothesis shrinks a disagreement; the last disagreement seen is the smallest.
The sizes the calls give are searched first, then edge sizes (`strategies`): a disagreement found
only there is reported as beyond the calls.

Usage: python -m rewriter.verify.synthesis.worker SPEC.json OUT.json
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import time
import warnings

from ... import runtime
from ..values import compare


class Disagreement(Exception):
    pass


@contextlib.contextmanager
def _tree(root: str, path: str):
    """The module's tree is importable while it loads; its modules are forgotten afterwards, so the
    other version imports its own."""
    folders = [os.path.dirname(os.path.abspath(path)), root]
    sys.path[:0] = folders
    try:
        yield
    finally:
        for folder in folders:
            sys.path.remove(folder)
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None) or ""
            if file and os.path.abspath(file).startswith(os.path.abspath(root) + os.sep):
                del sys.modules[name]


def _load(path: str, root: str, label: str):
    with _tree(root, path):
        spec = importlib.util.spec_from_file_location(label, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[label] = module
        spec.loader.exec_module(module)
        return module


def _native(desc: dict, raw, backend: str | None):
    import numpy as np

    if desc["kind"] == "scalar":
        return {"float": float, "int": int, "bool": bool}[desc["type"]](raw)
    if desc["framework"] == "numpy":
        return np.array(raw)
    if desc["framework"] == "jax":
        import jax.numpy as jnp

        return jnp.asarray(raw, dtype=desc["dtype"])
    from phiml import math

    items = desc.get("items") or [None] * len(desc["dims"])
    shape = [getattr(math, kind)(**{name: ",".join(names)}) if names else getattr(math, kind)(name)
             for (name, kind), names in zip(desc["dims"], items)]
    return math.tensor(np.array(raw), *shape, convert=backend not in (None, "numpy"))


def _jitted(function, framework: str, scalars: list[str]):
    if framework == "phiml":
        if type(function).__name__ == "JitFunction":
            return function
        from phiml import math

        return math.jit_compile(function)
    if hasattr(function, "lower"):  # already `jax.jit`
        return function
    import jax

    return jax.jit(function, static_argnames=scalars)


def _eager(framework: str):
    runtime.state.config["eager"] = True
    if framework == "jax" or "jax" in sys.modules:
        import jax

        return jax.disable_jit()
    return contextlib.nullcontext()


def check(original, rewritten, plan: dict, framework: str, backend: str | None, seed: int, max_examples: int,
          budget: float) -> dict:
    from hypothesis import HealthCheck, assume, example, given, settings
    from hypothesis import seed as fixed_seed

    from . import strategies

    scalars = sorted({p for sig in plan["signatures"] for p, d in sig.items() if d["kind"] == "scalar"})
    jitted = _jitted(rewritten, framework, scalars)
    state = {"compared": 0, "rejected": 0, "reject": "", "failure": None, "cut": False}
    deadline = time.monotonic() + budget

    def args(sig, raw):
        return {p: _native(sig[p], raw[p], backend) for p in sig}

    def test(drawn):
        sig, raw = drawn
        if time.monotonic() > deadline:
            state["cut"] = True
            return
        try:
            with _eager(framework):
                expected = runtime.to_plain(original(**args(sig, raw)))
        except Exception as e:
            state["rejected"] += 1
            state["reject"] = state["reject"] or runtime.describe(e)
            assume(False)
        finally:
            runtime.state.config["eager"] = False
        try:
            actual = runtime.to_plain(jitted(**args(sig, raw)))
        except Exception as e:
            state["failure"] = {"inputs": strategies.show(sig, raw), "reason": f"the rewrite fails: {runtime.describe(e)}"}
            raise Disagreement() from None
        verdict = compare(expected, actual)
        if verdict.uncomparable:
            state["rejected"] += 1
            state["reject"] = state["reject"] or verdict.uncomparable
            assume(False)
        if not verdict.equal:
            state["failure"] = {"inputs": strategies.show(sig, raw), "reason": verdict.reason}
            raise Disagreement()
        state["compared"] += 1

    def search(edges: bool, examples: int, explicit: list[dict]) -> str:
        prop = given(strategies.inputs(plan["signatures"], edges))(test)
        for sig in explicit:
            prop = example(strategies.example(sig))(prop)
        prop = settings(max_examples=examples, deadline=None, database=None, print_blob=False,
                        suppress_health_check=list(HealthCheck))(prop)
        try:
            fixed_seed(seed)(prop)()
        except Disagreement:
            pass
        except Exception as e:  # Unsatisfiable, or a replay cut short by the budget (Flaky): the state says what happened
            return runtime.describe(e)
        return ""

    # the sizes the calls give first: a counterexample there is one the program could meet
    first = max(1, max_examples // 2)
    error = search(False, first, plan["examples"])
    beyond = False
    if not state["failure"] and max_examples > first:
        error = search(True, max_examples - first, []) or error
        beyond = bool(state["failure"])
    if state["failure"]:
        return {"status": "falsified", **state["failure"], "beyond_calls": beyond, "examples": state["compared"],
                "cut_short": state["cut"]}
    if state["compared"]:
        return {"status": "verified", "examples": state["compared"], "rejected": state["rejected"], "cut_short": state["cut"]}
    if state["rejected"]:
        return {"status": "unsynthesizable", "reason": f"the original fails on every input drawn ({state['reject']})"}
    return {"status": "unsynthesizable", "reason": "cut short by the time budget before any input was compared"
            if state["cut"] else error or "no input was drawn"}


def _warm_up(backend: str) -> None:
    """Import the backend's framework before any function's time budget starts; on tensorflow, leave
    PhiML's own functions unconverted by autograph, as the golden harness does (`child`): the
    program's functions are still converted, and converting PhiML is most of a first trace's cost."""
    import numpy as np
    from phiml import math

    math.tensor(np.zeros(1, np.float32), math.spatial("x"), convert=True)
    if backend == "tensorflow":
        from ..child import leave_phiml_unconverted

        leave_phiml_unconverted()


def main(spec_path: str, out_path: str) -> None:
    spec = json.load(open(spec_path))
    warnings.filterwarnings("ignore")
    backend = spec["backend"] if spec["framework"] == "phiml" else None
    runtime.install({"backend": backend, "eager": False, "instrument": {}})
    if backend:
        _warm_up(backend)
    out = {}
    modules: dict[tuple[str, str], object] = {}
    for i, job in enumerate(spec["functions"]):
        try:
            for version in ("original", "rewritten"):
                key = (version, job[version])
                if key not in modules:
                    modules[key] = _load(job[version], job[f"{version}_root"], f"_synthesized_{version}_{len(modules)}")
            original = getattr(modules[("original", job["original"])], job["name"])
            rewritten = getattr(modules[("rewritten", job["rewritten"])], job["name"])
        except Exception as e:
            out[job["id"]] = {"status": "error", "reason": f"cannot import it: {runtime.describe(e)}"}
            continue
        try:
            out[job["id"]] = check(original, rewritten, job["plan"], spec["framework"], backend, spec["seed"],
                                   spec["max_examples"], spec["budget"])
        except Exception as e:  # the harness, not the function
            out[job["id"]] = {"status": "error", "reason": runtime.describe(e)}
        with open(out_path, "w") as f:  # what is done survives a crash or a timeout of the process
            json.dump(out, f)
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

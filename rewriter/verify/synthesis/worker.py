"""Executed in a fresh interpreter per backend: draw inputs for each function, compare its versions.

The original runs eagerly (the author's meaning: PhiML's jit calls the function, jax under
`disable_jit`); the rewrite runs jitted: through its own decorator, or, undecorated, through
`jax.jit` (Python numbers static, as a jitted caller's literals are) or PhiML's `jit_compile`.
Calls recorded by earlier runs (`store`) are tried first, as they were; then the calls' literal ones.
An input on which the original itself fails is outside the function's domain: rejected, not held
against the rewrite. Hypothesis shrinks a disagreement; the last disagreement seen is the smallest.
The sizes the calls give are searched first, then edge sizes (`strategies`): a disagreement found
only there is reported as beyond the calls. Before drawing, on jax (or PhiML's jax backend), the
branches of the original are evaluated abstractly against the rewrite (`abstract`): a proof or
disproof of its merges that costs no memory, whatever sizes the calls describe.

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
from . import testcases
from .report import ORIGINAL_FAILS


ABSTRACT_SECONDS = 5.0  # at most, of a function's budget, for its abstract proof (it takes a fraction of a second)


class Disagreement(Exception):
    pass


@contextlib.contextmanager
def _tree(root: str, path: str, keep: bool = False):
    """The module's tree (and its `src/`) is importable while it loads; its modules are forgotten
    afterwards, so the other version imports its own. `keep`: a process that runs one version only
    (its tests) keeps the tree importable, for what the tests import late (`torch.compile` does)."""
    folders = [os.path.dirname(os.path.abspath(path)), root]
    if os.path.isdir(os.path.join(root, "src")):  # the "src layout": the project's package lives there
        folders.append(os.path.join(root, "src"))
    sys.path[:0] = folders
    try:
        yield
    finally:
        if not keep:
            _forget(root, folders)


def _forget(root: str, folders: list[str]) -> None:
    for folder in folders:
        sys.path.remove(folder)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file and os.path.abspath(file).startswith(os.path.abspath(root) + os.sep):
            del sys.modules[name]


def _load(path: str, root: str, label: str, keep: bool = False):
    with _tree(root, path, keep):
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

    items = desc.get("items") or [None] * len(desc["dims"])  # item names, as a recorded tensor had them
    shape = [getattr(math, kind)(**{name: ",".join(i)}) if i else getattr(math, kind)(name)
             for (name, kind), i in zip(desc["dims"], items)]
    return math.tensor(np.array(raw), *shape, convert=backend not in (None, "numpy"))


def _jitted(function, framework: str, scalars: list[str]):
    if framework == "phiml":
        if type(function).__name__ == "JitFunction":
            return function
        from phiml import math

        # Python numbers auxiliary, as the jax path keeps them static: a jitted caller's literals are
        return math.jit_compile(function, auxiliary_args=",".join(scalars)) if scalars else math.jit_compile(function)
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


class Arguments:
    """Drawn values, passed as a call site passes them: the leading positional parameters by position
    (a PhiML linear function traces its positional tensor, not a keyword), the rest by keyword."""

    def __init__(self, positional: list[str], values: dict):
        self.args, self.kwargs = [], dict(values)
        for name in positional:
            if name not in self.kwargs:
                break
            self.args.append(self.kwargs.pop(name))

    def apply(self, function):
        return function(*self.args, **self.kwargs)


def _returns_function(plain) -> bool:
    """`to_plain` names a returned function without calling it: equal names say nothing here."""
    if isinstance(plain, dict):
        return "__callable__" in plain or any(_returns_function(v) for v in plain.values())
    if isinstance(plain, (list, tuple)):
        return any(_returns_function(v) for v in plain)
    return False


def _jit_alone_differs(original, rewritten, framework: str, arguments, twin, actual) -> bool:
    """The rewrite, under the jit this harness added, differs from the eager original: is that the jit's
    doing? It is when the original, jitted by the harness alike and called on the same inputs in the
    same order (`twin`: jitted PhiML on torch can answer from what earlier calls left), gives what the
    rewrite gave, and the rewrite run eagerly gives what the original gave eagerly."""
    if twin is None or not compare(twin, actual).equal:
        return False
    try:
        with _eager(framework):
            expected_eager = runtime.to_plain(arguments().apply(original))
            actual_eager = runtime.to_plain(arguments().apply(rewritten))
    except Exception:
        return False
    finally:
        runtime.state.config["eager"] = False
    return compare(expected_eager, actual_eager).equal


def _harness_jit_fails(original, by_harness: bool, framework: str, scalars: list[str], arguments: "Arguments",
                       error: Exception) -> bool:
    """The rewrite failed under the jit this harness added (the function has none of its own): does the
    original fail there the same way? Then the failure is the harness's (a function returning strings
    or functions cannot be jitted whole), not the rewrite's."""
    if not by_harness:
        return False
    try:
        arguments.apply(_jitted(original, framework, scalars))
    except Exception as e:
        return type(e) is type(error)
    return False


def _scalars(plan: dict) -> list[str]:
    """The parameters drawn as Python numbers: static (auxiliary) under the harness's jit."""
    return sorted({p for sig in plan["signatures"] for p, d in sig.items() if d["kind"] == "scalar"})


def check(original, rewritten, plan: dict, framework: str, backend: str | None, seed: int, max_examples: int,
          budget: float) -> dict:
    from hypothesis import HealthCheck, assume, example, given, settings
    from hypothesis import seed as fixed_seed

    from . import strategies

    scalars = _scalars(plan)
    jitted = _jitted(rewritten, framework, scalars)
    twin_jitted = _jitted(original, framework, scalars) if jitted is not rewritten else None  # the harness's jit
    state = {"compared": 0, "recorded": 0, "rejected": 0, "reject": "", "failure": None, "cut": False}
    deadline = time.monotonic() + budget

    def args(sig, raw) -> Arguments:
        return Arguments(plan.get("positional", []), {p: _native(sig[p], raw[p], backend) for p in sig})

    def test(drawn):
        sig, raw = drawn
        recorded = any(d.get("recorded") for d in sig.values())  # a call an earlier run recorded, as it was
        if time.monotonic() > deadline:
            state["cut"] = True
            return
        try:
            with _eager(framework):
                expected = runtime.to_plain(args(sig, raw).apply(original))
        except Exception as e:
            state["rejected"] += 1
            state["reject"] = state["reject"] or runtime.describe(e)
            assume(False)
        finally:
            runtime.state.config["eager"] = False
        try:
            actual = runtime.to_plain(args(sig, raw).apply(jitted))
        except Exception as e:
            if not _harness_jit_fails(original, jitted is not rewritten, framework, scalars, args(sig, raw), e):
                state["failure"] = {"inputs": strategies.show(sig, raw), "reason": f"the rewrite fails: {runtime.describe(e)}",
                                    "recorded": int(recorded)}
                raise Disagreement() from None
            # neither version can be jitted as a whole: compare the rewrite as the program calls it
            said = runtime.describe(e)
            said = said if len(said) <= 120 else said[:119] + "…"
            state["note"] = f"compared unjitted: the original cannot be jitted as a whole either ({said})"
            try:
                actual = runtime.to_plain(args(sig, raw).apply(rewritten))
            except Exception as e2:
                state["failure"] = {"inputs": strategies.show(sig, raw), "reason": f"the rewrite fails: {runtime.describe(e2)}",
                                    "recorded": int(recorded)}
                raise Disagreement() from None
        if _returns_function(expected):
            state["rejected"] += 1
            state["reject"] = state["reject"] or "it returns functions, which only a program's calls compare (--run)"
            assume(False)
        verdict = compare(expected, actual)
        if verdict.uncomparable:
            state["rejected"] += 1
            state["reject"] = state["reject"] or verdict.uncomparable
            assume(False)
        twin = None
        if twin_jitted is not None:  # the original under the harness's jit, on every input alike
            try:
                twin = runtime.to_plain(args(sig, raw).apply(twin_jitted))
            except Exception:
                twin = None
        if not verdict.equal and not _jit_alone_differs(original, rewritten, framework, lambda: args(sig, raw), twin, actual):
            state["failure"] = {"inputs": strategies.show(sig, raw), "reason": verdict.reason, "recorded": int(recorded)}
            raise Disagreement()
        if not verdict.equal:
            state["note"] = "the harness's jit alone changes the values on some inputs (the original jitted alike " \
                                "gives the same): there, compared jit for jit and eager for eager"
        state["compared"] += 1
        state["recorded"] += recorded

    def search(edges: bool, examples: int, explicit: list[dict]) -> str:
        prop = given(strategies.inputs(plan["signatures"], edges))(test)
        for sig in reversed(explicit):  # Hypothesis tries the last one added first
            prop = example(_explicit(sig))(prop)
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
        return {"status": "verified", "examples": state["compared"], "recorded": state["recorded"],
                "rejected": state["rejected"], "cut_short": state["cut"], "reason": state.get("note", "")}
    if state["rejected"]:
        return {"status": "unsynthesizable", "reason": f"{ORIGINAL_FAILS} ({state['reject']})"}
    return {"status": "unsynthesizable", "reason": "cut short by the time budget before any input was compared"
            if state["cut"] else error or "no input was drawn"}


def _explicit(sig: dict[str, dict]) -> tuple[dict, dict]:
    """An explicit example as a draw: a recorded call's stored values, or a call site's literals."""
    from . import store, strategies

    if any(d.get("recorded") for d in sig.values()):
        return sig, {p: store.decode(d) for p, d in sig.items()}
    return strategies.example(sig)


def _prove(job: dict, module, rewritten, framework: str, deadline: float) -> dict | None:
    """The abstract proof (`abstract`) of the function's branch merges, before anything is drawn: on jax,
    or PhiML's jax backend (PhiML decides shapes and precision alike on every backend; the draws on the
    other backends can still falsify what it proves)."""
    from . import abstract

    with open(job["original"], encoding="utf-8") as f:
        source = f.read()
    jitted = _jitted(rewritten, framework, _scalars(job["plan"]))
    return abstract.prove(source, job["original"], job["name"], vars(module), jitted, job["plan"], deadline)


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


def run_tests(spec: dict, out_path: str) -> None:
    """Each changed test of one version (`spec["version"]`), as written: its outcome ("passed", "failed",
    "skipped", what the runner said), for the parent to set against the other version's (testcases)."""
    version = spec["version"]
    out: dict[str, dict] = {}
    modules: dict[str, object] = {}
    for job in spec["functions"]:
        try:
            if job[version] not in modules:
                modules[job[version]] = _load(job[version], job[f"{version}_root"], f"_synthesized_{version}_{len(modules)}",
                                              keep=True)
            out[job["id"]] = {"outcome": list(testcases.run(modules[job[version]], job["name"], job["plan"]["test"]))}
        except Exception as e:
            out[job["id"]] = {"reason": f"cannot import it: {runtime.describe(e)}"}
        with open(out_path, "w") as f:  # what is done survives a crash or a timeout of the process
            json.dump(out, f)
    with open(out_path, "w") as f:
        json.dump(out, f)


def main(spec_path: str, out_path: str) -> None:
    spec = json.load(open(spec_path))
    warnings.filterwarnings("ignore")
    backend = spec["backend"] if spec["framework"] == "phiml" else None
    runtime.install({"backend": backend, "eager": False, "instrument": {}})
    if backend:
        _warm_up(backend)
    elif spec["framework"] == "jax":
        import jax  # noqa: F401  (before any function's time budget starts)
    if spec.get("version"):  # the changed tests of one version, as its test suite would run them
        run_tests(spec, out_path)
        return
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
        started = time.monotonic()
        proof = None
        if spec["framework"] == "jax" or backend == "jax":
            try:
                proof = _prove(job, modules[("original", job["original"])], rewritten, spec["framework"],
                               started + min(spec["budget"], ABSTRACT_SECONDS))
            except Exception as e:  # the harness, not the function: no proof
                proof = {"verdict": "inconclusive", "reason": f"no abstract proof: {runtime.describe(e)}"}
        try:
            out[job["id"]] = check(original, rewritten, job["plan"], spec["framework"], backend, spec["seed"],
                                   spec["max_examples"], max(0.0, spec["budget"] - (time.monotonic() - started)))
        except Exception as e:  # the harness, not the function
            out[job["id"]] = {"status": "error", "reason": runtime.describe(e)}
        if proof is not None:
            out[job["id"]]["proof"] = proof
        with open(out_path, "w") as f:  # what is done survives a crash or a timeout of the process
            json.dump(out, f)
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

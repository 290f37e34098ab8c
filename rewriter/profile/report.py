"""What the profile runs mean: which functions re-trace, why, what it costs, and what to do.

A function re-traces when its Python body is traced again after the first time: by PhiML (a new
key), by the backend under a PhiML key it already had (dtype, Python numbers on tensorflow), by jax
(a cache miss) or by tensorflow. Traces made inside the trace of an outer function are that outer
function's doing and are not counted against the inner one. `forget_traces=True` is proposed only
for a PhiML jit function that kept tracing keys it never saw again: there it bounds the cache at no
cost. Where keys came back, the cache is doing its job and forgetting would trace them again.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .run import BackendRun

MIN_TRACES_FOR_FORGET = 3  # "keeps being re-traced": one extra trace is a second input signature, not a leak
FORGETTABLE = ("jit_compile", "jit_compile_linear")  # the PhiML transforms that take forget_traces=

# Per reason: how to make the key stable (the cure for the time it costs), and a rule that removes it.
ADVICE = {
    "auxiliary": ("pass the changing value as a tensor (`math.tensor(v)`) and drop it from `auxiliary_args`, "
                  "if the function only computes with it", None),
    "value": ("keep non-tensor arguments to a few values, or pass numbers as tensors; create objects once, or give "
              "their class value equality (`@dataclass(frozen=True)`)", "PML401"),
    "function": ("pass the same function object every call: define it once at module level", "PML101,PML401"),
    "shape": ("pad the changing dimension to a fixed size (and mask it), or round sizes up to a few buckets", None),
    "per-call": ("create the jit function once, at module level (or, where it captures a changing value, once per "
                 "distinct value, kept in a dict)", "PML102,PML302,PML303,PML401"),
    "dtype": ("cast the argument to one dtype before the call", None),
    "python-number": ("pass the number as a tensor (`math.tensor(v)`, `tf.constant(v)`)", None),
    "static": ("make the static argument a traced one, or keep it to a few values", None),
    "arguments": ("pass the same arguments (by name) on every call", None),
    "backend": ("expected: each backend has its own traces", None),
    "backend-internal": ("compare the argument dtypes and Python values between calls", None),
    "other": ("see the reason", None),
}


@dataclass
class FunctionProfile:
    """What `profile` measured of one jit function across backends: its calls, its traces, why it traced again."""
    kind: str
    name: str
    file: str
    line: int
    backends: list[str] = field(default_factory=list)
    calls: int = 0
    traces: int = 0
    hidden_traces: int = 0
    nested_traces: int = 0
    instances: int = 0
    trace_seconds: float = 0.0
    call_seconds: float = 0.0
    max_cache: int = 0
    forget_traces: bool = False
    cache_inspected: str = ""  # where the program calls trace_check on it ("" if it never does)
    returned_keys: int = 0
    older_key_hits: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    texts: dict[str, int] = field(default_factory=dict)
    call_sites: dict[str, int] = field(default_factory=dict)
    trace_sites: dict[str, int] = field(default_factory=dict)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def retraces(self) -> int:
        """Traces beyond the first per backend, not counting those an outer trace caused."""
        own = self.traces - self.nested_traces
        return max(own - len(self.backends), 0) + self.hidden_traces

    @property
    def cause(self) -> str | None:
        """What to fix first: a jit function created per call (every new one traces afresh, whatever
        its key), else the most frequent reason (ties: the first recorded)."""
        reasons = {k: v for k, v in self.reasons.items() if k != "nested"}
        if "per-call" in reasons:
            return "per-call"
        return max(reasons, key=reasons.get) if reasons else None

    @property
    def reason(self) -> str:
        """The first recorded reason of the most frequent kind, and how many re-traces had that kind."""
        texts = [t for t in self.texts if not t.startswith("traced while an outer")]
        if self.cause == "per-call":
            texts = [t for t in texts if t.startswith("a new jit function object")] or texts
        if not texts:
            return ""
        count = self.reasons.get(self.cause, 0) if self.cause else 0
        return texts[0] + (f" (and {count - 1} more like it)" if count > 1 else "")

    @property
    def forget_fix(self) -> bool:
        """Bounding the cache is free here: a PhiML jit function whose keys never came back."""
        return (self.kind in FORGETTABLE and not self.forget_traces and not self.cache_inspected and self.traces - self.nested_traces >= MIN_TRACES_FOR_FORGET * max(len(self.backends), 1)
                and self.returned_keys == 0 and self.older_key_hits == 0 and self.hidden_traces == 0
                and self.cause in ("auxiliary", "value", "function", "shape"))

    @property
    def advice(self) -> str:
        cause = self.cause or "other"
        advice, rule = ADVICE.get(cause, ADVICE["other"])
        parts = []
        if self.forget_traces and self.returned_keys:
            parts.append(f"`forget_traces=True` traced {self.returned_keys} keys again that it had forgotten: remove it, "
                         "or make the key stable")
        elif self.cache_inspected and self.kind in FORGETTABLE and not self.forget_traces:
            parts.append(f"the program inspects its trace cache (`trace_check` at {self.cache_inspected}): "
                         "`forget_traces` is left to you")
        elif self.forget_fix:
            parts.append("`--fix` adds `forget_traces=True`: memory bounded, each new key still traces")
        elif self.kind in FORGETTABLE and self.older_key_hits and cause not in ("per-call",):
            parts.append(f"keys come back ({self.older_key_hits} calls reused an older trace): keep the cache")
        parts.append(f"stable key: {advice}")
        if rule:
            parts.append(f"`phiml-rewrite --select {rule} {self.file}` shows the rewrite")
        return "; ".join(parts)

    def to_json(self) -> dict:
        return {
            "kind": self.kind, "name": self.name, "file": self.file, "line": self.line, "backends": self.backends,
            "calls": self.calls, "traces": self.traces, "retraces": self.retraces, "hidden_traces": self.hidden_traces,
            "nested_traces": self.nested_traces, "instances": self.instances,
            "trace_seconds": round(self.trace_seconds, 4), "call_seconds": round(self.call_seconds, 4),
            "max_cache": self.max_cache, "forget_traces": self.forget_traces, "cache_inspected": self.cache_inspected or None, "returned_keys": self.returned_keys,
            "older_key_hits": self.older_key_hits, "cause": self.cause, "reason": self.reason,
            "reasons": self.reasons, "reason_texts": self.texts, "call_sites": _top(self.call_sites),
            "trace_sites": _top(self.trace_sites), "fix": "forget_traces" if self.forget_fix else None,
            "advice": self.advice,
        }


def _top(counter: dict[str, int], n: int = 5) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda kv: -kv[1])[:n])


def merge(runs: list[BackendRun]) -> list[FunctionProfile]:
    """One profile per traced function of the program, summed over processes and backends."""
    out: dict[tuple, FunctionProfile] = {}
    for run in runs:
        for process in run.processes:
            for r in process.get("functions", []):
                key = (r["kind"], r["file"], r["line"], r["name"])
                fp = out.setdefault(key, FunctionProfile(r["kind"], r["name"], r["file"], r["line"]))
                if run.backend not in fp.backends:
                    fp.backends.append(run.backend)
                for name in ("calls", "traces", "hidden_traces", "nested_traces", "instances", "trace_seconds",
                             "call_seconds", "returned_keys", "older_key_hits"):
                    setattr(fp, name, getattr(fp, name) + r.get(name, 0))
                fp.max_cache = max(fp.max_cache, r.get("max_cache", 0))
                fp.forget_traces = fp.forget_traces or r.get("forget_traces", False)
                fp.cache_inspected = fp.cache_inspected or r.get("cache_inspected") or ""
                for target, source in ((fp.reasons, r["reasons"]), (fp.texts, r["texts"]), (fp.call_sites, r["call_sites"]),
                                       (fp.trace_sites, r["trace_sites"])):
                    for k, v in source.items():
                        target[k] = target.get(k, 0) + v
    return sorted(out.values(), key=lambda f: (-f.retraces, -f.trace_seconds, f.file, f.line))


def retracing(functions: list[FunctionProfile]) -> list[FunctionProfile]:
    return [f for f in functions if f.retraces > 0]


def to_json(command: str, runs: list[BackendRun], skipped: dict[str, str], functions: list[FunctionProfile]) -> dict:
    return {
        "command": command,
        "runs": [{"backend": r.backend, "exit_code": r.exit_code, "seconds": round(r.seconds, 2), "processes": len(r.processes)}
                 for r in runs],
        "skipped_backends": skipped,
        "retracing": [f.to_json() for f in retracing(functions)],
        "traced_once": [f.to_json() for f in functions if f.retraces == 0],
    }

"""Run a command (or a pytest suite) on both trees, per backend, eager and jitted; collect the records.

Every run is a fresh process with the bootstrap on PYTHONPATH: its `sitecustomize` installs the
runtime, which selects the backend, disables jit for eager runs, records the changed units and
counts traces. The runs are independent, so they go to a thread pool of subprocesses (`Jobs`),
which replays join as soon as their inputs are recorded; each subprocess leads a process group of
its own, killed whole at the timeout.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from .. import runtime
from .workspace import PYTEST_PLUGIN, RUNTIME_MODULE, Workspace

PHIML_BACKENDS = ("numpy", "jax", "torch", "tensorflow")
RETURNED = "/returned"  # the calls of the functions a unit returns: "m.py:f/returned" (runtime.recording)
OUTPUT_TAIL = 4000


@dataclass(frozen=True)
class RunSpec:
    """Which run of a verification this is: backend, original or rewritten, eager or jitted."""
    backend: str  # a PhiML backend, or the raw framework(s) the code uses ("jax", "jax+torch")
    version: str  # original | rewritten
    eager: bool
    phiml: bool  # set PhiML's default backend (PhiML code); raw code runs on its own framework
    repeat: bool = False  # the same run once more: does the program reproduce its own results?

    @property
    def label(self) -> str:
        return f"{self.backend}/{self.version}/{'eager' if self.eager else 'jit'}" + ("/repeat" if self.repeat else "")

    @property
    def records_inputs(self) -> bool:
        """The eager original records the inputs (and generator states) that replay feeds back."""
        return self.eager and self.version == "original" and not self.repeat


@dataclass
class RunResult:
    """What one run of a verification left: its exit, output and the calls it recorded."""
    spec: RunSpec
    exit_code: int | None  # None: timed out
    output: str  # the tail of stdout+stderr, for the report
    seconds: float
    calls: dict[str, list[dict]] = field(default_factory=dict)  # "[test::]unit" -> recorded calls
    counts: dict[str, int] = field(default_factory=dict)  # calls with concrete values
    traced: dict[str, int] = field(default_factory=dict)  # calls made while being traced (not recorded)
    phiml_traces: dict[str, int] = field(default_factory=dict)
    jax_compiles: dict[str, int] = field(default_factory=dict)
    tf_traces: dict[str, int] = field(default_factory=dict)  # tf.function traces of the program's functions
    tests: dict[str, str] = field(default_factory=dict)  # pytest node id -> outcome
    test_functions: dict[str, str] = field(default_factory=dict)  # pytest node id -> "tests/test_x.py:TestA.test_b"
    leaked: list[str] = field(default_factory=list)  # modules imported from the real tree, not the copy
    backend_requests: list[str] = field(default_factory=list)  # backends the program chose itself (overridden)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def available_backends() -> dict[str, bool]:
    """Which PhiML backends can run here: a backend whose framework is missing is skipped, never passed."""
    framework = {"numpy": "numpy", "jax": "jax", "torch": "torch", "tensorflow": "tensorflow"}
    return {b: importlib.util.find_spec(framework[b]) is not None for b in PHIML_BACKENDS}


def plan(ws: Workspace, wanted: tuple[str, ...] | None) -> tuple[list[RunSpec], dict[str, str]]:
    """The runs to make, and the backends skipped with the reason."""
    skipped: dict[str, str] = {}
    frameworks = ws.frameworks
    if "phiml" in frameworks:
        backends = [b for b in PHIML_BACKENDS if not wanted or b in wanted]
        installed = available_backends()
        for b in list(backends):
            if not installed[b]:
                skipped[b] = "not installed"
                backends.remove(b)
        phiml = True
    else:
        raw = sorted(frameworks & {"jax", "torch", "tensorflow"})
        backends = ["+".join(raw) if raw else "python"]
        phiml = False
        missing = [f for f in raw if importlib.util.find_spec(f) is None]
        if missing:
            skipped[backends[0]] = f"{', '.join(missing)} not installed"
            backends = []
    specs = [RunSpec(b, version, eager, phiml) for b in backends for version in ("original", "rewritten") for eager in (True, False)]
    return specs, skipped


def command_argvs(runs: tuple[str, ...], pytest_args: tuple[str, ...]) -> list[list[str]]:
    """The commands of one run, in order. `python` at the start of a command means this interpreter:
    it has the backends installed (give a full path to use another one)."""
    if pytest_args:
        return [[sys.executable, "-m", "pytest", "-p", PYTEST_PLUGIN, "-p", "no:cacheprovider", "-q", *pytest_args]]
    out = []
    for run in runs:
        argv = shlex.split(run)
        if not argv:
            raise ValueError("empty command")
        if argv[0] in ("python", "python3", f"python{sys.version_info.major}.{sys.version_info.minor}"):
            argv[0] = sys.executable
        out.append(argv)
    return out


def execute(ws: Workspace, spec: RunSpec, argvs: list[list[str]], cwd_rel: Path, timeout: float, record_inputs: bool) -> RunResult:
    tree = ws.original if spec.version == "original" else ws.rewritten
    out_dir = ws.root / "runs" / spec.label.replace("/", "-").replace("+", "_")
    out_dir.mkdir(parents=True, exist_ok=True)
    config = {
        "backend": spec.backend if spec.phiml else None,
        "eager": spec.eager,
        "instrument": ws.instrument_map(spec.version),
        "out": str(out_dir),
        "record_inputs": record_inputs,
        "real_root": str(ws.real_root),
        "workspace": str(ws.root.resolve()),
        "seed": 0,
    }
    env = _environment(ws, config, out_dir / "config.json")
    start = time.perf_counter()
    exit_code, output = 0, b""
    for argv in argvs:  # the first failing command ends the run
        remaining = timeout - (time.perf_counter() - start)
        try:
            exit_code, out = run_process(argv, tree / cwd_rel, env, remaining)
            output += out
        except OSError as e:
            exit_code, output = 127, output + f"cannot run {argv[0]}: {e}".encode()
        if exit_code is None:
            output += f"\n[cut short: --timeout {timeout:.0f} s reached while running {shlex.join(argv)}]".encode()
        if exit_code != 0:
            break
    result = RunResult(spec, exit_code, output.decode(errors="replace")[-OUTPUT_TAIL:], time.perf_counter() - start)
    _collect(result, out_dir, tree)
    return result


def run_process(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[int | None, bytes]:
    """(exit code, or None if cut short by the timeout; stdout and stderr). The process gets a group
    of its own, killed whole at the timeout: a command's own children (a Jupyter kernel, pytest-xdist
    workers, a multiprocessing pool) would otherwise hold its output open, or run on, orphaned."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    with _LIVE_LOCK:
        _LIVE.add(proc)
    try:
        out, _ = proc.communicate(timeout=max(timeout, 0.1))
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a grandchild that left the group still holds the pipe
            out = b""
        return None, out or b""
    except BaseException:
        _kill_group(proc)
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)


_LIVE: set[subprocess.Popen] = set()  # the runs' processes now running, killed if verify is interrupted
_LIVE_LOCK = threading.Lock()


def kill_running() -> None:
    """Interrupted (Ctrl-C in the main thread): the workers' processes go down with their groups."""
    with _LIVE_LOCK:
        running = list(_LIVE)
    for proc in running:
        _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def _environment(ws: Workspace, config: dict, config_path: Path) -> dict[str, str]:
    config_path.write_text(json.dumps(config))
    env = runtime.select_environment(config["backend"], config["eager"])
    env[runtime.CONFIG_ENV] = str(config_path)
    env["PYTHONPATH"] = os.pathsep.join([str(ws.bootstrap), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def replay(ws: Workspace, reference: RunResult, cwd_rel: Path, timeout: float, again: bool = False) -> tuple[dict[str, list[dict]], str]:
    """The rewritten units, jitted, on the inputs the reference run recorded: (key -> calls, problem).

    This checks a rewritten function even where the program's output does not expose it, and is
    immune to randomness that differs between runs: both sides saw exactly the same arguments, and
    each call starts from the random-generator states the recorded one started from. `again`: a
    second replay, in a fresh process, to see whether the rewrite reproduces its own results.
    """
    items = []
    for key, calls in reference.calls.items():
        file_id, unit = key.rsplit("::", 1)[-1].split(":", 1)
        if file_id.endswith(".ipynb"):
            continue  # a notebook's functions live in a kernel: they are compared through its runs only
        for call in calls:
            inputs = call.get("inputs")
            if not (inputs and not inputs.startswith("!") and "value" in call):
                continue
            item = {"file": str(ws.rewritten / file_id), "unit": unit, "key": key, "index": call["index"], "inputs": inputs}
            if RETURNED in unit:
                item = _returned_item(item, call, reference.calls)
            if item is not None:
                items.append(item)
    if not items:
        in_kernels = reference.calls and all(k.rsplit("::", 1)[-1].split(":", 1)[0].endswith(".ipynb") for k in reference.calls)
        return {}, "not replayed: a notebook's functions live in its kernel" if in_kernels else ""
    spec = reference.spec
    out_dir = ws.root / "runs" / f"replay{'-again' if again else ''}-{spec.backend.replace('+', '_')}"
    out_dir.mkdir(parents=True, exist_ok=True)
    config = {"backend": spec.backend if spec.phiml else None, "eager": False, "instrument": {}, "seed": 0}
    env = _environment(ws, config, out_dir / "config.json")
    (out_dir / "spec.json").write_text(json.dumps({"root": str(ws.rewritten), "items": items}))
    argv = [sys.executable, "-m", RUNTIME_MODULE, "--replay", str(out_dir / "spec.json"), str(out_dir / "out.json")]
    exit_code, output = run_process(argv, ws.rewritten / cwd_rel, env, timeout)
    if exit_code is None:
        return {}, f"replay cut short: --timeout {timeout:.0f} s reached"
    if not (out_dir / "out.json").exists():
        return {}, f"replay failed (exit {exit_code}): {output.decode(errors='replace')[-1000:]}"
    return json.loads((out_dir / "out.json").read_text()), ""


def _returned_item(item: dict, call: dict, calls: dict[str, list[dict]]) -> dict | None:
    """Replay of a call of a function a unit returned: the unit, on the inputs of the call that made
    that function, makes it anew; it is then called on the recorded inputs. Only a function's first
    call is replayed (a later one may depend on what the earlier calls left in its closure), and only
    one level deep."""
    origin = call.get("origin") or {}
    unit, _, pick = item["unit"].partition(RETURNED)
    if origin.get("nth") != 0 or RETURNED in pick:
        return None
    parent = next((c for c in calls.get(origin.get("parent", ""), []) if c["index"] == origin.get("parent_index")), None)
    parent_inputs = (parent or {}).get("inputs")
    if not parent_inputs or parent_inputs.startswith("!"):
        return None
    return {**item, "unit": unit, "parent_inputs": parent_inputs, "pick": int(pick[1:-1]) if pick else None}


def _collect(result: RunResult, out_dir: Path, tree: Path) -> None:
    """Merge what every process of the run recorded (a command may start several)."""
    for path in sorted(out_dir.glob("records-*.json"), key=lambda p: int(p.stem.split("-")[1])):
        data = json.loads(path.read_text())
        for key, calls in data["calls"].items():
            result.calls.setdefault(key, []).extend(calls)
        for key, n in data["counts"].items():
            result.counts[key] = result.counts.get(key, 0) + n
        for key, n in data["skipped_traced"].items():
            result.traced[key] = result.traced.get(key, 0) + n
        for target, source in ((result.phiml_traces, data["phiml_traces"]), (result.jax_compiles, data["jax_compiles"]),
                               (result.tf_traces, data["tf_traces"])):
            for name, n in source.items():
                target[name] = target.get(name, 0) + n
        result.leaked += data.get("leaked", [])
        result.backend_requests += [b for b in data.get("backend_requests", []) if b not in result.backend_requests]
    for path in out_dir.glob("tests-*.json"):
        data = json.loads(path.read_text())
        result.tests.update(data["outcomes"])
        for test, (file, function) in data["functions"].items():
            try:
                rel = Path(file).resolve().relative_to(tree.resolve())
            except ValueError:
                continue  # a test outside the mirror
            result.test_functions[test] = f"{rel.as_posix()}:{function}"


BACKEND_COST = ("tensorflow", "jax", "torch", "numpy")  # slowest to start first: the pool drains evenly


def ordered(specs: list[RunSpec]) -> list[RunSpec]:
    """The eager originals first (replay waits for them), each group slowest backend first."""
    def cost(spec: RunSpec) -> tuple:
        slowest = min((BACKEND_COST.index(f) for f in spec.backend.split("+") if f in BACKEND_COST), default=len(BACKEND_COST))
        return (not spec.records_inputs, slowest, spec.version != "original", spec.eager)

    return sorted(specs, key=cost)


class Jobs:
    """A pool of `jobs` threads, each waiting on one subprocess; a finished job may submit more."""

    def __init__(self, jobs: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=max(1, jobs))
        self.futures: list[Future] = []
        self.lock = threading.Lock()

    def submit(self, fn, *args) -> Future:
        with self.lock:
            future = self.pool.submit(fn, *args)
            self.futures.append(future)
            return future

    def wait(self) -> None:
        """Until every job, including those submitted meanwhile, is done; the first error is raised."""
        while True:
            with self.lock:
                pending = [f for f in self.futures if not f.done()]
            if not pending:
                break
            wait(pending)
        for future in self.futures:
            future.result()

    def __enter__(self) -> Jobs:
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is not None:  # interrupted or failed: nothing more starts, what runs is killed
            for future in self.futures:
                future.cancel()
            kill_running()
        self.pool.shutdown(wait=True)


def run_all(ws: Workspace, specs: list[RunSpec], argvs: list[list[str]], cwd_rel: Path, *, timeout: float, jobs: int | Jobs,
            on_start=None, on_done=None) -> list[RunResult]:
    """All runs, `jobs` at a time (or in a pool the caller shares), in the order of `specs`. The
    eager original records its inputs: replay feeds them back."""
    def one(spec: RunSpec) -> RunResult:
        if on_start:
            on_start(spec)
        result = execute(ws, spec, argvs, cwd_rel, timeout, record_inputs=spec.records_inputs)
        if on_done:
            on_done(result)
        return result

    if isinstance(jobs, Jobs):
        futures = [jobs.submit(one, spec) for spec in specs]
        jobs.wait()
        return [f.result() for f in futures]
    with Jobs(jobs) as pool:
        return run_all(ws, specs, argvs, cwd_rel, timeout=timeout, jobs=pool, on_start=on_start, on_done=on_done)

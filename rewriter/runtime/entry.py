"""Installation in a verified process, the runner for main scripts, and replay of recorded inputs."""
from __future__ import annotations

import ast
import atexit
import json
import os
import pickle
import sys

from . import generators, profiling
from .frameworks import HOOKS, seed
from .instrument import RECORD_NAME, CellInstrumenter, Finder, function_names, instrument
from .recording import Recorder, describe
from .state import CONFIG_ENV, RUNNER_MODULE, state
from .values import NotConcrete, to_plain


def install(config: dict) -> Recorder:
    """Set up this process: hooks for the frameworks, the instrumenting import finder, the dump at exit."""
    state.config.clear()
    state.config.update(config)
    recorder = state.recorder = Recorder(config)
    for path in config.get("instrument", {}):
        recorder.user_functions |= function_names(path)
    hooks = dict(HOOKS)
    if config.get("profile"):  # `phiml-rewrite profile`: trace profiling on top of the backend choice
        profile = profiling.install(config)
        hooks = _chained(hooks, profiling.hooks(profile))
        atexit.register(profile.dump)
    else:
        seed()
        if config.get("out"):
            atexit.register(recorder.dump)
    for name, hook in hooks.items():
        if name in sys.modules:
            hook(sys.modules[name])
    sys.meta_path.insert(0, Finder(config.get("instrument", {}), hooks))
    return recorder


def _chained(first: dict, then: dict) -> dict:
    """Per module, the hooks of both tables, in order."""
    def both(a, b):
        def hook(module):
            a(module)
            b(module)
        return hook

    return {name: both(first[name], then[name]) if name in first and name in then else first.get(name) or then[name]
            for name in {**first, **then}}


def install_from_env() -> None:
    """Called by the generated sitecustomize.py in every Python process the verified command starts."""
    path = os.environ.get(CONFIG_ENV)
    if not path or state.recorder is not None:
        return
    with open(path) as f:
        install(json.load(f))
    main = _main_script()
    if main and os.path.realpath(main) in {os.path.realpath(p) for p in state.config.get("instrument", {})}:
        # The interpreter would run the script uninstrumented, and site customisation cannot run it
        # in its place: start over with this module as the runner (flags kept, same process id).
        argv = sys.orig_argv
        flags = argv[1:len(argv) - len(sys.argv)]
        os.execv(sys.executable, [sys.executable, *flags, "-m", RUNNER_MODULE, *sys.argv])


def _main_script() -> str | None:
    argv = getattr(sys, "orig_argv", [])
    if sys.argv and sys.argv[0] not in ("", "-c", "-m") and os.path.isfile(sys.argv[0]) and len(argv) >= 2:
        return sys.argv[0]
    return None


def run_main(path: str, args: list[str]) -> None:
    """Execute a script as `__main__` with its recorded units instrumented (the interpreter cannot)."""
    import types

    with open(path, "rb") as f:
        source = f.read()
    target = next(t for p, t in state.config.get("instrument", {}).items() if os.path.realpath(p) == os.path.realpath(path))
    code = compile(instrument(ast.parse(source, path), set(target["units"]), target["id"]), path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__dict__[RECORD_NAME] = state.recorder.wrap
    module.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = module
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    exec(code, module.__dict__)


def instrument_notebook(shell, path: str) -> None:
    """In a Jupyter kernel running a notebook (notebook_runner.py): name the cells' code as
    "nb.ipynb:cell 3" for the profile, and under `verify` record the changed units as the cells
    define them (IPython runs each cell's syntax tree through `ast_transformers`)."""
    label = os.path.relpath(os.path.realpath(path), os.path.realpath(state.config.get("root") or os.getcwd()))
    for index, source in _raw_code_cells(path):
        state.cell_files[shell.compile.get_code_name(source, source, 0)] = f"{label}:cell {index}"
    target = next((t for p, t in state.config.get("instrument", {}).items() if os.path.realpath(p) == os.path.realpath(path)), None)
    if target is None or state.recorder is None:
        return
    shell.user_ns[RECORD_NAME] = state.recorder.wrap
    shell.ast_transformers.append(CellInstrumenter(set(target["units"]), target["id"]))


def _raw_code_cells(path: str) -> list[tuple[int, str]]:
    """(1-based index among all cells, source as written) of each code cell."""
    with open(path, encoding="utf-8-sig") as f:
        cells = json.load(f).get("cells", [])
    out = []
    for index, cell in enumerate(cells, 1):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            out.append((index, source if isinstance(source, str) else "".join(source)))
    return out


def flush() -> None:
    """Write this process's records now: a kernel may be shut down without running exit handlers."""
    if state.profile is not None:
        state.profile.dump()
    elif state.recorder is not None and state.config.get("out"):
        state.recorder.dump()


def replay(spec_path: str, out_path: str) -> None:
    """Call units of one tree on inputs recorded in the reference run; record what they return.

    Each call starts from the random-generator states the recorded call started from.
    spec: {"root": tree, "items": [{"file", "unit", "key", "index", "inputs"}]}; an item of a function
    that `unit` returned also has "parent_inputs" (of the call that returned it) and "pick" (its
    index in the returned tuple, or null). A module is
    imported by its path under the tree (as a package module where it is one); `__main__` is aliased
    to it so that objects the program pickled from its main script can be loaded.
    """
    with open(spec_path) as f:
        spec = json.load(f)
    sys.path[:0] = [spec["root"]]
    modules: dict = {}
    out: dict[str, list] = {}
    for item in spec["items"]:
        entry = {"index": item["index"]}
        try:
            if item["file"] not in modules:
                modules[item["file"]] = _load_for_replay(item["file"], spec["root"], len(modules))
            module = modules[item["file"]]
            function = module
            for part in item["unit"].split("."):
                function = getattr(function, part)
            function = getattr(function, "__wrapped__", function) if hasattr(function, "__phiml_rewrite_unit__") else function
            sys.modules["__main__"] = module
            if item.get("parent_inputs"):  # a returned function: made anew by its maker, from the same inputs
                args, kwargs, states = _inputs(item["parent_inputs"])
                generators.restore(states)
                function = function(*args, **kwargs)
                if item.get("pick") is not None:
                    function = function[item["pick"]]
            args, kwargs, states = _inputs(item["inputs"])
            generators.restore(states)  # last: loading the module or the inputs may draw numbers
            result = function(*args, **kwargs)
            entry["value"] = to_plain(result)
        except NotConcrete as e:
            entry["not_concrete"] = str(e)
        except Exception as e:
            entry["error"] = describe(e)
        out.setdefault(item["key"], []).append(entry)
    with open(out_path, "w") as f:
        json.dump(out, f)


def _inputs(path: str):
    with open(path, "rb") as f:
        args, kwargs = pickle.load(f)
        return args, kwargs, pickle.load(f)


def _load_for_replay(path: str, root: str, number: int):
    import importlib
    import importlib.util

    rel = os.path.relpath(path, root)
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    package_dirs = [os.path.join(root, *parts[:i]) for i in range(1, len(parts))]
    if all(os.path.exists(os.path.join(d, "__init__.py")) for d in package_dirs):
        sys.path.insert(0, root)
        return importlib.import_module(".".join(parts))
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(f"__phiml_rewrite_replayed_{number}__", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module

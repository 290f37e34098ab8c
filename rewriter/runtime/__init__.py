"""Runs inside the verified program: backend choice, eager mode, function recording, trace counts.

This package is self-contained (standard library, plus numpy when values are recorded) because
`verify` copies it, as `_phiml_rewrite_verify`, next to a generated `sitecustomize.py` and loads it
into the user's interpreter, which need not have phiml-rewrite installed; it only imports itself
relatively. Configuration comes from the JSON file named by `PHIML_REWRITE_VERIFY_CONFIG`:

    {"backend": "torch" | null,     # PhiML's default backend (null: raw framework code)
     "eager": false,                # disable jit: PhiML jit_compile, jax.jit, torch.jit, tf.function
     "instrument": {"/abs/file.py": {"id": "pkg/file.py", "units": ["step", "Model.forward"]}},
                                    # units to record, as "pkg/file.py:step"
     "out": "/abs/dir",             # records-<pid>.json is written here at exit
     "record_inputs": false,        # pickle the inputs of the first calls (for replay)
     "real_root": "/abs/project", "workspace": "/abs/tmp",   # to detect imports from the real tree
     "seed": 0}

Modules: `values` (results as plain data), `recording` (the Recorder), `instrument` (the AST
transform and the import finder), `frameworks` (hooks run when PhiML, jax, torch or tensorflow are
imported), `generators` (random-generator seeds, and the states captured per recorded call for
replay), `entry` (installation, running the main script, replay), `state` (the process's config
and recorder).
"""
from .entry import flush, install, install_from_env, instrument_notebook, replay, run_main
from .frameworks import BACKEND_ENV, select_environment
from .instrument import RECORD_NAME, defined_names, function_names, instrument
from .recording import Recorder, describe
from .state import CONFIG_ENV, RUNNER_MODULE, state
from .values import NotConcrete, to_plain

__all__ = [
    "BACKEND_ENV", "CONFIG_ENV", "NotConcrete", "RECORD_NAME", "RUNNER_MODULE", "Recorder", "defined_names",
    "describe", "flush", "function_names", "install", "install_from_env", "instrument", "instrument_notebook", "replay",
    "run_main",
    "select_environment", "state", "to_plain",
]

"""The process's verification state: its configuration and its recorder (set by `entry.install`)."""
from __future__ import annotations

CONFIG_ENV = "PHIML_REWRITE_VERIFY_CONFIG"
RUNNER_MODULE = "_phiml_rewrite_verify"  # this package's name where verify installs it


class _State:
    def __init__(self) -> None:
        self.config: dict = {}
        self.recorder = None  # recording.Recorder, once installed
        self.profile = None  # profiling.Profile, in a process run by `phiml-rewrite profile`
        # In a Jupyter kernel running a notebook: the file name IPython compiles each cell under
        # (no such file exists) -> how reports name it, "nb.ipynb:cell 3" (entry.instrument_notebook).
        self.cell_files: dict[str, str] = {}


state = _State()

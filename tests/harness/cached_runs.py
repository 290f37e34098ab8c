"""Runs of the CLI against its result cache: a small project with a hit, a miss and an error, and
`--check` read as JSON."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rewriter.cli import main

from .snippets import TRACED_IF


def cache_project(root: Path, monkeypatch) -> Path:
    """`root` as the working directory, with `pkg/`: a traced `if` (clamp.py), nothing to find
    (plain.py) and a syntax error (broken.py); the cache at its default place."""
    monkeypatch.chdir(root)
    monkeypatch.delenv("PHIML_REWRITE_CACHE_DIR", raising=False)
    (root / "pkg").mkdir()
    (root / "pkg" / "clamp.py").write_text(TRACED_IF)
    (root / "pkg" / "plain.py").write_text("x = 1\n")
    (root / "pkg" / "broken.py").write_text("from phiml import math\n\n\n@math.jit_compile\ndef f(:\n")
    return root


def check_json(*args: str) -> dict:
    """`phiml-rewrite --check --output-format json *args`, its report."""
    return json.loads(CliRunner().invoke(main, ["--output-format", "json", "--check", *args]).stdout)

"""Small projects written into a temporary folder, and `phiml-rewrite verify` run on them as JSON."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from rewriter.cli import main


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Each `name: text` (dedented) under `root`, folders made as needed; returns `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def verify_json(args: list[str]) -> tuple[int, dict]:
    """`phiml-rewrite verify ARGS --output-format json`, in this process: (exit code, the report)."""
    result = CliRunner().invoke(main, ["verify", *args, "--output-format", "json"], catch_exceptions=False)
    return result.exit_code, json.loads(result.output)

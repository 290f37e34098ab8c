"""Notebooks paired by jupytext: one document kept in two files, a `.ipynb` and a text twin
(`.py` in the percent or light format, `.md`), which jupytext keeps in step.

Neither file of a pair is rewritten: writing only one puts the pair out of step (jupytext then
refuses to open it, or takes the inputs of the newer file and drops the other's), and the twins
are not written alike (a `.md` twin is not Python to this tool at all, and a fix of the notebook's
cells is not the fix of the `.py` module). Findings are still reported in both; a note names the
twin and how to apply the fixes to the pair. That is the conservative choice: a pair is the user's
to edit, with the one tool that knows both formats.

A pair is seen from either side, and only when the twin exists on disk (jupytext writes the twin
on the next save; until then the notebook alone is the document): from the notebook's metadata
(`jupytext.formats`, e.g. "ipynb,py:percent"), or from a text file's jupytext header whose
`formats` name `ipynb`. Read here: the formats' extensions and simple directory prefixes; a
prefix this module cannot resolve counts as a twin that may exist.
"""
from __future__ import annotations

import json
import os
from typing import Iterable

from ..findings import FileResult
from . import is_notebook

TEXT_SUFFIXES = (".py", ".md")  # the twins this tool could be asked to process or would leave stale


def formats_of_notebook(source: bytes) -> str | None:
    """The notebook's `metadata.jupytext.formats`, or None."""
    try:
        data = json.loads(source.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    metadata = data.get("metadata") if isinstance(data, dict) else None
    jupytext = metadata.get("jupytext") if isinstance(metadata, dict) else None
    formats = jupytext.get("formats") if isinstance(jupytext, dict) else None
    return formats if isinstance(formats, str) and formats.strip() else None


def formats_of_text(source: bytes, suffix: str) -> str | None:
    """The `formats` in a text notebook's jupytext header (`# ---` comment block of a script, YAML
    front matter of a `.md`), or None. Read as lines of the header, never as code."""
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    prefix = "#" if suffix == ".py" else ""
    lines = text.splitlines()[:60]
    body: list[str] = []
    started = False
    for line in lines:
        stripped = line.strip()
        if not started:
            if not stripped or stripped.startswith("#!") or "coding" in stripped and stripped.startswith("#"):
                continue
            if stripped.replace(" ", "") != prefix + "---":
                return None
            started = True
            continue
        if stripped.replace(" ", "") == prefix + "---":
            break
        if prefix and not stripped.startswith(prefix):
            return None
        body.append(stripped[len(prefix):].strip())
    else:
        return None
    if "jupytext:" not in body:
        return None
    for entry in body[body.index("jupytext:") + 1:]:
        key, _, value = entry.partition(":")
        if key == "formats":
            value = value.strip().strip("'\"")
            return value or None
    return None


def _entries(formats: str) -> list[tuple[str, str]]:
    """(prefix, extension with its suffix) of each format: "nb//ipynb,scripts//.pct.py:percent"."""
    out = []
    for entry in formats.split(","):
        spec = entry.strip().split(":", 1)[0]
        if not spec:
            continue
        prefix, slash, ext = spec.rpartition("/")
        ext = ".py" if ext == "auto" else ext  # the kernel's script extension: Python here
        out.append((prefix + slash, ext if ext.startswith(".") else "." + ext))
    return out


def _resolvable(prefix: str) -> bool:
    """A prefix read here: none, or a relative folder ("scripts/", "../py/"); not jupytext's
    root-relative "notebooks//" nor a file-name prefix."""
    return not prefix or prefix.endswith("/") and "//" not in prefix


def twins(path: str, formats: str) -> list[str]:
    """The files paired with `path` by `formats` that exist; an entry whose place is not resolved
    here is given as written ("scripts//py"), as a twin that may exist."""
    entries = _entries(formats)
    own = [e for e in entries if path.endswith(e[1])]
    if not own:
        return []
    own_prefix, own_ext = max(own, key=lambda e: len(e[1]))  # ".pct.py" over ".py"
    others = [e for e in entries if e != (own_prefix, own_ext)]
    if not _resolvable(own_prefix) or any(not _resolvable(prefix) for prefix, _ in others):
        return [prefix + ext.lstrip(".") for prefix, ext in others]
    directory, stem = os.path.split(path[: len(path) - len(own_ext)])
    root = os.path.normpath(os.path.join(directory, *[".."] * own_prefix.count("/")))  # where the prefixes start
    found = []
    for prefix, ext in others:
        candidate = os.path.join(directory, stem + ext) if not prefix and not own_prefix else \
            os.path.normpath(os.path.join(root, prefix, stem + ext))
        if os.path.exists(candidate):
            found.append(candidate)
    return found


def paired_with(path: str, source: bytes) -> tuple[list[str], str] | None:
    """(the twins of this file on disk, the formats) if jupytext pairs it; None otherwise. A notebook
    is also paired when a text file beside it names it in its header (formats kept in a config)."""
    if is_notebook(path):
        formats = formats_of_notebook(source)
        found = twins(path, formats) if formats else []
        stem = path[: -len(".ipynb")]
        for suffix in TEXT_SUFFIXES:
            twin = stem + suffix
            if twin in found or not os.path.isfile(twin):
                continue
            try:
                with open(twin, "rb") as f:
                    text_formats = formats_of_text(f.read(64 * 1024), suffix)
            except OSError:
                continue
            if text_formats and any(ext == ".ipynb" for _, ext in _entries(text_formats)):
                found.append(twin)
                formats = formats or text_formats
        return (found, formats) if found else None
    suffix = os.path.splitext(path)[1]
    if suffix not in TEXT_SUFFIXES:
        return None
    formats = formats_of_text(source, suffix)
    found = twins(path, formats) if formats else []
    return (found, formats) if found else None


def hold_pairs(results: Iterable[FileResult]) -> None:
    """Keep both files of a jupytext pair as they are: a result that would change one of them is
    changed back, its fixes are not applied, and a note names the twin."""
    for result in results:
        if result.error or not (result.changed or any(f.applied for f in result.findings)) or result.old_source is None:
            continue
        pair = paired_with(result.path, result.old_source)
        if pair is None:
            continue
        found, formats = pair
        names = ", ".join(f"`{os.path.relpath(t, os.path.dirname(result.path) or '.') if os.path.exists(t) else t}`"
                          for t in found)
        result.new_source, result.would_change = None, False
        for finding in result.findings:
            finding.applied = False
        result.notes.append(f"paired by jupytext with {names} (formats \"{formats}\"): neither file is rewritten, "
                            "so the pair stays in step; apply the fixes to one and run `jupytext --sync`")

"""Results per file, keyed by everything that determines them, so that a second run over unchanged
files stats them and does little else.

The key of a file is a hash of: its bytes' digest (known from the file's stat where an earlier run
read it: file_digests.py); phiml-rewrite's own code (every source file of `rewriter`
and `codemods`, so an edited rule never serves an old verdict, even in an editable install); the
libcst and Python versions; and the settings that change a result (the enabled codes, after
select/ignore and per-file-ignores, and the fix and position modes). The path is not part of it:
results are stored without paths and a renamed or copied file is a hit.

The store is one SQLite file (atomic, safe for concurrent runs) in `.phiml-rewrite-cache/` at the
project root, or in the user cache directory when the project is not writable. Runs that depend on
more than the file (`profile --fix` evidence, `verify`'s unit gates) are never cached.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from .file_digests import digest_of
from .findings import FileResult, Finding
from .settings import Settings

if TYPE_CHECKING:
    from .file_digests import FileDigests

DIRECTORY_NAME = ".phiml-rewrite-cache"
SCHEMA = 5  # 5: keys made of the files' digests; 4: findings carry hint, note and related places
KEEP_UNUSED_DAYS = 30  # entries no run has used for this long are dropped
# An entry's time of use is written again only once it is this old: far within KEEP_UNUSED_DAYS, and a
# warm run then writes nothing (marking every hit was a write transaction of every file, every run).
_REMARK_AFTER_S = 86400
_BATCH = 500  # keys per SELECT (SQLite's limit on host parameters is 32766 or 999 on old builds)


_fingerprint: list[str] = []  # (made once per process: tool_fingerprint)


def tool_fingerprint(digests: FileDigests | None = None) -> str:
    """A hash of phiml-rewrite's code and of what it runs on, made once per process (`digests`: a run's,
    which know the tool's own files from their stat, as they know the user's)."""
    if not _fingerprint:
        _fingerprint.append(code_fingerprint(Path(__file__).resolve().parent.parent, digests))
    return _fingerprint[0]


def code_fingerprint(root: Path, digests: FileDigests | None = None) -> str:
    from . import __version__

    files = sorted(os.path.join(folder, name) for package in ("rewriter", "codemods")
                   for folder, _, names in os.walk(root / package) for name in names if name.endswith(".py"))
    if digests is not None:
        digests.known(files)
    h = hashlib.sha256(f"{SCHEMA}|{__version__}|{_libcst_version()}|{sys.version}".encode())
    for path in files:
        if digests is not None:
            digest = digests.digest(path) or digests.read(path)[1]
        else:
            with open(path, "rb") as f:
                digest = digest_of(f.read())
        h.update(f"{os.path.relpath(path, root)}\0{digest}\0".encode())
    return h.hexdigest()


def _libcst_version() -> str:
    """What identifies the installed libcst, without importing it or `importlib.metadata` (a large
    share of a run served from the cache): the bytes of the version module its build writes, found
    by the import system's search alone. Its distribution's version where that module is missing."""
    import importlib.util

    spec = importlib.util.find_spec("libcst")
    for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
        try:
            return hashlib.sha256((Path(folder) / "_version.py").read_bytes()).hexdigest()
        except OSError:
            continue
    from importlib.metadata import version

    return version("libcst")


def settings_key(settings: Settings) -> str | None:
    """What of `settings` a result depends on; None when the result depends on more than the file."""
    if settings.runtime_evidence or settings.unsafe_units is not None or settings.withheld_units or \
            settings.proven_units:
        return None
    return key_of([c.CODE for c in settings.codemods], unsafe_fixes=settings.unsafe_fixes, apply_fixes=settings.apply_fixes,
                  original_positions=settings.original_positions, ast_prefilter=settings.ast_prefilter,
                  rewrite=settings.rewrite, project=settings.project, world=settings.world)


def key_of(codes: Iterable[str], *, unsafe_fixes: bool, apply_fixes: bool, original_positions: bool,
           ast_prefilter: bool, rewrite: bool, project, world=None) -> str:
    """The settings key from its parts (the runner has the codes before it imports any rule)."""
    # What other modules tell the file (rewriter/analysis/facts.py): a file is analysed again exactly
    # when those facts change, not when any other file does; likewise what its project targets.
    facts = project.digest() if project else ""
    targets = world.digest() if world is not None else ""
    return json.dumps([sorted(codes), unsafe_fixes, apply_fixes, original_positions, ast_prefilter, rewrite, facts, targets])


def file_key(digest: str, settings: str) -> str:
    """The key of a file's result: `digest`, its bytes' (file_digests.digest_of), and its settings'."""
    return hashlib.sha256(f"{tool_fingerprint()}|{settings}|{digest}".encode()).hexdigest()


# -- records ------------------------------------------------------------------------------------


def to_record(result: FileResult) -> str | None:
    """The result without its path and original bytes; None for results that must be recomputed
    (an internal error or a parser crash may be fixed in the next run, or be the machine's fault)."""
    if result.error and ("internal error" in result.error or "crashed" in result.error or "cannot read" in result.error):
        return None
    findings = []
    for f in result.findings:
        data = f.to_dict()
        del data["path"]
        findings.append(data)
    new = None if result.new_source is None else base64.b64encode(result.new_source).decode()
    return json.dumps({"findings": findings, "new_source": new, "would_change": result.would_change, "error": result.error,
                       "skipped": result.skipped, "notes": result.notes})


def from_record(record: str, path: str, source: bytes) -> FileResult:
    data = json.loads(record)
    findings = [Finding.from_dict(f, path) for f in data["findings"]]
    new = data["new_source"]
    return FileResult(path=path, findings=findings, old_source=source, error=data["error"], skipped=data["skipped"],
                      new_source=None if new is None else base64.b64decode(new), cached=True,
                      notes=data.get("notes", []), would_change=data.get("would_change", False))


# -- the store ----------------------------------------------------------------------------------


class ResultCache:
    """Lookups and stores by key; every failure of the store degrades to "no cache", never to an error."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / "results.sqlite"
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        self.broken: str | None = None  # why the cache was not used, if it was not

    @classmethod
    def at(cls, directory: str | os.PathLike) -> "ResultCache":
        return cls(Path(directory))

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None or self.broken:
            return self._db
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _mark(self.directory)
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, record TEXT NOT NULL, used REAL NOT NULL)")
            # key: a file's absolute path (file_digests.py)
            db.execute("CREATE TABLE IF NOT EXISTS digests "
                       "(key TEXT PRIMARY KEY, stat TEXT NOT NULL, digest TEXT NOT NULL, used REAL NOT NULL)")
            self._db = db
        except (OSError, sqlite3.Error) as e:
            self.broken = f"cache not used ({self.directory}): {e}"
        return self._db

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The records kept under `keys`, as they were put: text, or bytes (a compressed summary:
        project/summary.Summary.stored_form)."""
        return {key: record for key, (record,) in self._select("results", ("record",), keys).items()}

    def put_many(self, records: dict[str, str | bytes]) -> None:
        self._insert("results", ("record",), {key: (record,) for key, record in records.items()})

    def stats_of(self, paths: Iterable[str]) -> dict[str, tuple[str, str]]:
        """(stat signature, digest) recorded for each of the absolute `paths` (rewriter/file_digests.py)."""
        return self._select("digests", ("stat", "digest"), paths)

    def put_stats(self, entries: dict[str, tuple[str, str]]) -> None:
        self._insert("digests", ("stat", "digest"), entries)

    def _select(self, table: str, columns: tuple[str, ...], keys: Iterable[str]) -> dict[str, tuple]:
        db = self._connect()
        keys = list(dict.fromkeys(keys))
        if db is None or not keys:
            return {}
        found: dict[str, tuple] = {}
        now = time.time()
        stale: list[str] = []  # hits last marked in use long ago (`_REMARK_AFTER_S`)
        try:
            for i in range(0, len(keys), _BATCH):
                chunk = keys[i : i + _BATCH]
                marks = ",".join("?" * len(chunk))
                for key, used, *values in db.execute(
                        f"SELECT key, used, {', '.join(columns)} FROM {table} WHERE key IN ({marks})", chunk):
                    found[key] = tuple(values)
                    if used < now - _REMARK_AFTER_S:
                        stale.append(key)
            if stale:  # remember that they are in use (pruning drops entries unused for long)
                db.execute("BEGIN")
                db.executemany(f"UPDATE {table} SET used = ? WHERE key = ?", [(now, k) for k in stale])
                db.execute("COMMIT")
        except sqlite3.Error as e:
            self.broken = f"cache not used ({self.path}): {e}"
            return {}
        return found

    def _insert(self, table: str, columns: tuple[str, ...], rows: dict[str, tuple]) -> None:
        db = self._connect()
        if db is None or not rows:
            return
        now = time.time()
        marks = ", ".join("?" * (len(columns) + 2))
        try:
            db.execute("BEGIN")
            db.executemany(f"INSERT OR REPLACE INTO {table} (key, {', '.join(columns)}, used) VALUES ({marks})",
                           [(key, *values, now) for key, values in rows.items()])
            db.execute(f"DELETE FROM {table} WHERE used < ?", (now - KEEP_UNUSED_DAYS * 86400,))
            db.execute("COMMIT")
        except sqlite3.Error as e:
            self.broken = f"cache not written ({self.path}): {e}"

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _mark(directory: Path) -> None:
    """Keep the cache out of version control and backups (what ruff and pytest do)."""
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by phiml-rewrite automatically.\n*\n")
    tag = directory / "CACHEDIR.TAG"
    if not tag.exists():
        tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n# phiml-rewrite's result cache: https://bford.info/cachedir/\n")


def default_directory(project_root: str) -> Path:
    """`PHIML_REWRITE_CACHE_DIR`, else `.phiml-rewrite-cache` at the project root if it can be
    written, else the user cache directory (one folder per project root)."""
    explicit = os.environ.get("PHIML_REWRITE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    root = Path(project_root)
    local = root / DIRECTORY_NAME
    if os.access(local if local.exists() else root, os.W_OK):
        return local
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "phiml-rewrite" / "results"
    return user / hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]

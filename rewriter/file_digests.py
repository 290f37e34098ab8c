"""What each file's bytes hash to, known from the file's stat where an earlier run hashed them.

The result cache keys every file by a hash of its bytes, never by the bytes: a run served from the
cache needs those hashes alone, and reading every file to make them was most of what such a run did
besides starting. So the store also keeps, per file, the hash of the bytes last read and the file's
stat at that time: its size, device, inode, mtime and ctime (what git's index compares). A file whose
stat is the one recorded is taken to hold the bytes recorded, and is not read unless its result is
not cached or its bytes are shown.

One change can keep a file's stat: a second write within the same tick of a coarse file system
clock, with the same size (git calls such entries "racily clean"). So a hash is recorded only for a
file whose last change was `SETTLED_NS` before it was stat'ed: any later change falls in a later
tick and changes its mtime and ctime. Tools that restore an mtime (`cp -p`, `rsync -t`, `touch -d`)
cannot set a ctime back. (Windows reports a creation time as ctime: there, as in black's and mypy's
caches, the size and the mtime decide.)
"""
from __future__ import annotations

import hashlib
import os
import time
from typing import Iterable, Protocol

# The coarsest clock a file system stamps changes with ticks every 2 s (FAT); the others' tick more often.
SETTLED_NS = 2_000_000_000


class Store(Protocol):
    """Where the digests are kept between runs (cache.ResultCache)."""

    def stats_of(self, paths: Iterable[str]) -> dict[str, tuple[str, str]]: ...

    def put_stats(self, entries: dict[str, tuple[str, str]]) -> None: ...


def digest_of(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


def _signature(st: os.stat_result) -> str:
    return f"{st.st_size}:{st.st_dev}:{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}"


class FileDigests:
    """The digests of one run's files: those the store knows from their stat (`known`, `digest`),
    and those of the files read (`read`), remembered for the next run by `save`."""

    def __init__(self, cache: Store) -> None:
        self._cache = cache
        self._stats: dict[str, tuple[str, bool]] = {}  # absolute path -> (stat signature, settled)
        self._known: dict[str, str] = {}  # absolute path -> digest, where the recorded stat is its stat
        self._read: dict[str, str] = {}  # absolute path -> the digest of the bytes read in this run
        self._fresh: dict[str, tuple[str, str]] = {}  # absolute path -> (stat signature, digest) to record
        self._absolute: dict[str, str] = {}  # a path as given -> its absolute path (asked for several times)

    def known(self, paths: Iterable[str]) -> None:
        """Stat each of `paths` not stat'ed yet and look up the digests recorded for them."""
        now = time.time_ns()
        asked = []
        for path in paths:
            absolute = self._absolute_path(path)
            if absolute in self._stats:
                continue
            try:
                st = os.stat(absolute)
            except OSError:
                continue  # (read where it is needed: the error is reported there)
            self._stats[absolute] = (_signature(st), max(st.st_mtime_ns, st.st_ctime_ns) <= now - SETTLED_NS)
            asked.append(absolute)
        for absolute, (signature, digest) in self._cache.stats_of(asked).items():
            if self._stats[absolute][0] == signature:
                self._known[absolute] = digest

    def digest(self, path: str) -> str | None:
        """The digest of the file's bytes: of those read in this run, else the one recorded with the
        file's stat (stat'ed now if `known` was not asked for it); None if neither."""
        absolute = self._stated(path)
        return self._read.get(absolute) or self._known.get(absolute)

    def read(self, path: str) -> tuple[bytes, str]:
        """The file's bytes and their digest (OSError as `open` raises it). The digest is recorded
        with the stat taken before the read, if the file had settled then: a change after that stat
        changes the file's ctime, so the record is never taken for the new bytes."""
        stat = self._stats.get(absolute := self._stated(path))
        with open(path, "rb") as f:
            source = f.read()
        digest = self._read[absolute] = digest_of(source)
        if stat is not None and stat[1]:
            self._fresh[absolute] = (stat[0], digest)
        return source, digest

    def _stated(self, path: str) -> str:
        """The absolute path of `path`, stat'ed (`known`) unless it was."""
        absolute = self._absolute_path(path)
        if absolute not in self._stats:
            self.known([absolute])
        return absolute

    def _absolute_path(self, path: str) -> str:
        found = self._absolute.get(path)
        if found is None:
            found = self._absolute[path] = os.path.abspath(path)
        return found

    def save(self) -> None:
        """Record the digests read in this run (the store keeps the last per file)."""
        fresh = {path: entry for path, entry in self._fresh.items() if self._known.get(path) != entry[1]}
        if fresh:
            self._cache.put_stats(fresh)
        self._fresh.clear()

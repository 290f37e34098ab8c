"""The dependencies a project declares, kept in the result cache under the digests of the files read.

Every file's cache key holds what its project targets (World): the declarations of the dependency
files in its folder and the folders above it, and a notebook's own `%pip install` lines. Reading
them parses each such file, and each notebook's JSON with its outputs (images included); a
requirement is parsed by `packaging`, whose import alone costs more than most runs served from the
cache. So the declarations read from a file are kept under that file's digest, which a run knows from
its stat (file_digests.py), and a run over an unchanged project reads none of them.

A folder's record holds the dependency files it found there and the digest of every file read for
it (a requirements file's `-r` includes too): it stands while the folder still holds those files
and none of them changed.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Protocol

from ..file_digests import FileDigests
from .declarations import Declaration, declaring_files, in_folder, in_notebook_source

_SCHEMA = 1


class Records(Protocol):
    """Where the declarations are kept (cache.ResultCache)."""

    def get_many(self, keys) -> dict[str, str]: ...

    def put_many(self, records: dict[str, str]) -> None: ...


class StoredDeclarations:
    """`declarations.in_notebook` and `declarations.in_folder`, from `records` where the digests of the
    files they read are known and unchanged; what is read anew is written by `save`."""

    def __init__(self, records: Records, digests: FileDigests) -> None:
        self._records = records
        self._digests = digests
        self._fresh: dict[str, str] = {}

    def in_notebook(self, path: str) -> list[Declaration]:
        name = os.path.basename(path)  # (it is in the declarations' `where`)
        digest = self._digests.digest(path)
        if digest is not None:
            key = _key("notebook", name, digest)
            record = self._records.get_many([key]).get(key)
            if record is not None:
                return _declarations(json.loads(record))
        try:
            source, digest = self._digests.read(path)
        except OSError:
            return []
        found = in_notebook_source(source, name)
        self._fresh[_key("notebook", name, digest)] = json.dumps(_fields(found))
        return found

    def in_folder(self, folder: str) -> list[Declaration]:
        files = declaring_files(folder)
        if not files:
            return []  # (most folders: nothing to read, nothing to keep)
        key = _key("folder", os.path.abspath(folder), "")
        record = self._records.get_many([key]).get(key)
        if record is not None:
            data = json.loads(record)
            if [list(f) for f in files] == data["files"] and all(self._digests.digest(path) == digest for path, digest in data["read"]):
                return _declarations(data["declarations"])
        read: dict[str, str] = {}

        def reading(path: str) -> bytes:
            source, read[os.path.abspath(path)] = self._digests.read(path)
            return source

        found = in_folder(folder, reading)
        self._fresh[key] = json.dumps({"files": [list(f) for f in files], "read": sorted(read.items()),
                                       "declarations": _fields(found)})
        return found

    def save(self) -> None:
        if self._fresh:
            self._records.put_many(self._fresh)
            self._fresh = {}


def _fields(found: list[Declaration]) -> list[list[str]]:
    return [[d.name, d.spec, d.where, d.text] for d in found]


def _declarations(fields: list[list[str]]) -> list[Declaration]:
    return [Declaration(*f) for f in fields]


def _key(kind: str, name: str, digest: str) -> str:
    """The record's key: the tool's fingerprint is in it, as in every key of the cache (a changed
    reader never serves an old reading)."""
    from ..cache import tool_fingerprint

    return f"declared:{kind}:" + hashlib.sha256(f"{_SCHEMA}|{tool_fingerprint()}|{name}|{digest}".encode()).hexdigest()

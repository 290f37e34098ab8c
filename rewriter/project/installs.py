"""A notebook's own `%pip install` lines, kept in the result cache under the notebook's digest.

Every file's cache key holds what its project targets (World), and a notebook's targets include the
installs its cells run. Reading them parses the notebook's JSON, outputs and all (images included).
Kept under the notebook's digest, which the run knows from its stat (file_digests.py), a run over
unchanged notebooks reads none of them.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Protocol

from ..file_digests import FileDigests
from .declarations import Declaration, in_notebook_source

_SCHEMA = 1


class Records(Protocol):
    """Where the installs are kept (cache.ResultCache)."""

    def get_many(self, keys) -> dict[str, str]: ...

    def put_many(self, records: dict[str, str]) -> None: ...


class StoredInstalls:
    """`declarations.in_notebook`, read from `records` where the notebook's digest is known; those
    read from notebooks are written by `save`."""

    def __init__(self, records: Records, digests: FileDigests) -> None:
        self._records = records
        self._digests = digests
        self._fresh: dict[str, str] = {}

    def __call__(self, path: str) -> list[Declaration]:
        name = os.path.basename(path)  # (it is in the declarations' `where`)
        digest = self._digests.digest(path)
        if digest is None:
            self._digests.known([path])
            digest = self._digests.digest(path)
        if digest is not None:
            record = self._records.get_many([_key(name, digest)]).get(_key(name, digest))
            if record is not None:
                return [Declaration(*fields) for fields in json.loads(record)]
        try:
            source, digest = self._digests.read(path)
        except OSError:
            return []
        found = in_notebook_source(source, name)
        self._fresh[_key(name, digest)] = json.dumps([[d.name, d.spec, d.where, d.text] for d in found])
        return found

    def save(self) -> None:
        if self._fresh:
            self._records.put_many(self._fresh)
            self._fresh = {}


def _key(name: str, digest: str) -> str:
    return "installs:" + hashlib.sha256(f"{_SCHEMA}|{name}|{digest}".encode()).hexdigest()

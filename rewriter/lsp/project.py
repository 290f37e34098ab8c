"""The project index of the workspace, kept as the editor's buffers are (rewriter/project).

The rules see what the other modules of a project say about a file: that a helper here is called
from a jitted function there, what the calls elsewhere pass a jitted function. The server builds
the index of a project the first time it analyses one of its files (every file under the project
root, as runner.project_index finds them; the open buffers as they are in the editor, the others
as on disk), and keeps it current: before a buffer's exact analysis its text replaces the file's
summary, and each other open document whose facts that changes is analysed again.

- All index work runs on one thread of its own, in order (the index is not shared between threads).
- The first analysis waits at most BUILD_WAIT for the build of a large project, the next ones not
  at all; what was analysed without the index is analysed again when it is there.
- A buffer that does not parse keeps the last summary that did: other files do not flicker while
  one is being typed. An edit that leaves the summary as it was (most edits inside a body leave
  what other modules see) costs a parse, not a propagation over the project.
- A closed buffer's file goes back into the index as it is on disk.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from dataclasses import dataclass, field
from typing import Callable

from ..analysis.facts import FileFacts
from ..cache import ResultCache, default_directory
from ..config import Config
from ..project.index import ProjectIndex, project_root

log = logging.getLogger(__name__)
BUILD_WAIT = 2.0  # seconds an analysis waits for the project's index before it goes on without it

Changed = Callable[[set, str], None]  # (real paths whose facts changed, the real path whose text did)


@dataclass
class _Project:
    """The project index of one root, built in the background for the buffers under it."""
    root: str
    built: asyncio.Future | None = None  # -> ProjectIndex | None (None: it could not be built)
    given: dict[str, bytes] = field(default_factory=dict)  # real path -> the bytes the index has (index thread)
    missed: bool = False  # a document was analysed without the index while it was being built


class Projects:
    """The index of each project that has open documents; `changed` and `built` are called on the loop."""

    def __init__(self, changed: Changed, built: Callable[[str], None]) -> None:
        self.wait = BUILD_WAIT
        self._changed = changed
        self._built = built
        self._projects: dict[str, _Project] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="phiml-index")

    def root_of(self, config: Config, path: str) -> str | None:
        """The project root the file's analysis uses (None: the configuration says files are alone)."""
        if not config.project:
            return None
        return os.path.realpath(config.project_root or project_root(path))

    async def facts(self, config: Config, path: str, source: bytes | None,
                    buffers: Callable[[], dict[str, bytes]]) -> FileFacts | None:
        """What the other modules say about `path`, once its summary is `source` (None: leave the index
        as it is). `buffers`: the open buffers' bytes by path, read when the index is built."""
        root = self.root_of(config, path)
        if root is None:
            return None
        loop = self._loop = asyncio.get_running_loop()
        project = self._projects.get(root)
        if project is None:
            project = self._projects[root] = _Project(root)
            project.built = loop.run_in_executor(self._thread, self._build, project, config, path, buffers())
        if not project.built.done():
            if project.missed:
                return None  # one analysis waited already: the others do not, until it is built
            try:
                await asyncio.wait_for(asyncio.shield(project.built), self.wait)
            except asyncio.TimeoutError:
                # Registered here, not at the start: the build may end while wait_for cancels its wait,
                # and a callback on a done future still runs (soon), exactly once.
                project.missed = True
                project.built.add_done_callback(lambda _: self._built(root))
                return None
        index = project.built.result()
        if index is None:
            return None
        # Shielded: a cancelled analysis (a newer keystroke) must not lose which documents to refresh.
        return await asyncio.shield(loop.run_in_executor(self._thread, self._sync, project, index, path, source, loop))

    def close(self, config: Config, path: str) -> None:
        """The buffer of `path` is closed: the file as it is on disk replaces it in the index."""
        root = self.root_of(config, path)
        project = self._projects.get(root) if root is not None else None
        if project is None or not project.built.done() or project.built.result() is None:
            return
        self._thread.submit(self._revert, project, project.built.result(), path, self._loop)

    # -- on the index thread --------------------------------------------------------------------
    def _build(self, project: _Project, config: Config, path: str, buffers: dict[str, bytes]) -> ProjectIndex | None:
        from ..runner import project_index

        cache = _existing_cache(config)
        try:
            index = project_index(config, [path], cache=cache, sources=buffers)
        except Exception:  # a bug must not take the server down: the files are analysed alone
            log.exception("the project index of %s could not be built", project.root)
            return None
        finally:
            if cache is not None:
                cache.close()
        if index is not None:
            for given, source in buffers.items():
                real = os.path.realpath(given)
                if real in index.by_path:
                    project.given[real] = source
        return index

    def _sync(self, project: _Project, index: ProjectIndex, path: str, source: bytes | None,
              loop: asyncio.AbstractEventLoop) -> FileFacts | None:
        try:
            if source is not None:
                self._put(project, index, path, source, loop)
            return index.facts_for(path) or None
        except Exception:
            log.exception("the project index could not take %s", path)
            return None

    def _revert(self, project: _Project, index: ProjectIndex, path: str, loop: asyncio.AbstractEventLoop) -> None:
        try:
            with open(path, "rb") as f:
                source = f.read()
        except OSError:
            source = b""  # gone (or never saved): it tells the other modules nothing
        try:
            self._put(project, index, path, source, loop)
        except Exception:
            log.exception("the project index could not take %s", path)

    def _put(self, project: _Project, index: ProjectIndex, path: str, source: bytes,
             loop: asyncio.AbstractEventLoop) -> None:
        real = os.path.realpath(path)
        if project.given.get(real) == source:
            return
        project.given[real] = source
        changed = index.update(path, source)  # unparseable or unchanged summaries cost no propagation
        if changed:
            loop.call_soon_threadsafe(self._changed, changed, real)


def _existing_cache(config: Config) -> ResultCache | None:
    """The CLI's result cache of the project, if a run made one (it holds the files' summaries);
    the server does not create one."""
    try:
        directory = default_directory(config.root)
        return ResultCache.at(directory) if (directory / "results.sqlite").exists() else None
    except OSError:
        return None

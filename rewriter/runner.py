"""Many files: discover, read, process (in a process pool when it pays), write atomically, summarise.

After the runner, `Finding.applied` means "the fix is in what was written" (the file on disk, or
standard output for `--stdin-filename`). In a dry run nothing is written, so every finding stays
unapplied and `FileResult.new_source` holds the proposed change (what the diff shows).
"""
from __future__ import annotations

import atexit
import contextlib
import difflib
import gc
import io
import os
import sys
import tokenize
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from . import cache as _cache
from . import files as _files
from . import kept_parses, notebooks
from .cache import ResultCache
from .config import Config
from .file_digests import FileDigests, digest_of
from .findings import FileResult
from .settings import Settings
from .workers import Broken, Workers

if TYPE_CHECKING:
    from .survey import Survey  # (it imports the rules: a warm run imports neither)

POOL_MIN_FILES = 8  # fewer files to parse than this: the pool's start-up costs more than it saves
PROGRESS_MIN_FILES = 50  # fewer: a progress bar would only flicker

SettingsFor = Callable[[str], Settings]


# -- one file ---------------------------------------------------------------------------------


def read_source(path: str, digests: FileDigests | None = None) -> bytes | FileResult:
    """The file's bytes, or a FileResult carrying `cannot read: <reason>`; read through `digests`
    where a run has them (they record what they read)."""
    try:
        if digests is not None:
            return digests.read(path)[0]
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        return FileResult(path=path, error=f"cannot read: {e.strerror or e}")


def process_file(path: str, settings: Settings) -> FileResult:
    """Read and process one file; never raises for a bad file."""
    source = read_source(path)
    if isinstance(source, FileResult):
        return source
    return _process_in_worker((path, source, settings))


def _process_in_worker(job: tuple[str, bytes, Settings]) -> FileResult:
    """`_processed`, collected as `_one_file` says (a module-level function: the pool pickles it)."""
    path, source, settings = job
    with _one_file():
        return _processed(path, source, settings)


def _processed(path: str, source: bytes, settings: Settings) -> FileResult:
    """engine.process_source, but a crash becomes that file's error."""
    try:
        if notebooks.is_notebook(path):
            return notebooks.process_notebook(source, path, settings)
        from .engine import process_source  # here: a run served from the cache never loads the engine

        return process_source(source, path, settings)
    except RecursionError:
        return FileResult(path=path, old_source=source, error="too deeply nested to process")
    except Exception as e:  # a bug in a codemod must not take the other files down with it
        reason = f"internal error: {type(e).__name__}: {e} (a bug in phiml-rewrite: please report it)"
        return FileResult(path=path, old_source=source, error=reason)


# -- many files -------------------------------------------------------------------------------


def process_files(
    paths: Sequence[str],
    settings_for: SettingsFor,
    *,
    jobs: int | None = None,
    progress: bool = False,
    cache: ResultCache | None = None,
    first_pass: dict[str, tuple[bytes, Survey]] | None = None,
    workers: Workers | None = None,
    sources: dict[str, bytes] | None = None,
    digests: FileDigests | None = None,
) -> list[FileResult]:
    """Process every file; results in the order of `paths`. Never raises for a bad file.

    Files are read here, looked up in the cache and pre-filtered here (cheap), so only files that
    need parsing travel to the pool, and the pool is only started when there are enough of them.
    `first_pass` (surveyed_index): each file's survey, whose rules are used while its bytes are those
    surveyed and the facts other modules give it cannot let more rules through (Survey.passed_with).
    `workers`: the processes that surveyed the files, if they run: each file goes to its own.
    `sources`: bytes read already, by real path (the index's build read them): taken from there, not
    read again. `digests` (with `cache`): the files' digests known from their stat: where no new code
    is shown, a file whose result is cached and changes nothing is not read.
    """
    results: list[FileResult | None] = [None] * len(paths)
    read: list[tuple[int, str, bytes | None]] = []  # (bytes: None where the file is known by its digest alone)
    keys: dict[int, str] = {}
    # A FileSettings knows a file's cache key without building its Settings (which imports the rules):
    # a run served from the cache imports neither them nor libcst.
    key_of = settings_for.key if isinstance(settings_for, FileSettings) else lambda path: _cache.settings_key(settings_for(path))
    if cache is None or not isinstance(settings_for, FileSettings) or settings_for.rewrite:
        digests = None  # (new code is shown: every file's bytes are)
    if digests is not None:
        digests.known(p for p in paths if not sources or _files.real_path(p) not in sources)
    for i, path in enumerate(paths):
        source = sources.pop(_files.real_path(path), None) if sources else None
        digest = digests.digest(path) if digests is not None and source is None else None
        if source is None and digest is None:
            source = read_source(path, digests)
        if isinstance(source, FileResult):
            results[i] = source
            continue
        read.append((i, path, source))
        if cache is not None and (key := key_of(path)) is not None:
            keys[i] = _cache.file_key(digest or digest_of(source), key)
    hits = cache.get_many(keys.values()) if cache is not None else {}
    renewed = []  # the keys of files changed since their digest was recorded
    for n, (i, path, source) in enumerate(read):
        if source is not None:
            continue
        record = hits.get(keys.get(i, ""))
        if record is not None and not (result := _cache.from_record(record, path, None)).changed:
            results[i] = result
            continue
        # Not cached, or its fixes are reported (jupytext pairs read the bytes): read it after all.
        source = read_source(path, digests)
        if isinstance(source, FileResult):
            results[i] = source
            continue
        read[n] = (i, path, source)
        if i in keys and (key := _cache.file_key(digests.digest(path), key_of(path))) != keys[i]:
            keys[i] = key
            renewed.append(key)
    if renewed:
        hits.update(cache.get_many(renewed))
    read = [entry for entry in read if entry[2] is not None]
    todo: list[tuple[int, tuple[str, bytes, Settings]]] = []
    for i, path, source in read:
        record = hits.get(keys.get(i, ""))
        if record is not None:
            results[i] = _cache.from_record(record, path, source)
            continue
        from .engine import enabled_by_project, wanted_codemods

        settings = settings_for(path)
        surveyed = first_pass.get(_files.real_path(path)) if first_pass else None
        if surveyed is not None and surveyed[0] == source and settings.ast_prefilter:
            passed = surveyed[1].passed_with(settings.project)
            if passed is not None:
                settings = replace(settings, first_pass=passed, outline=surveyed[1].outline)
        # (A survey that let rules through found their words already: only a file judged anew is searched.)
        if settings.first_pass == () or settings.first_pass is None and not enabled_by_project(settings) \
                and not wanted_codemods(source, settings.codemods):
            results[i] = _processed(path, source, settings)  # returns at once: skipped
        else:
            todo.append((i, (path, source, settings)))
    if cache is not None:
        cache.hits, cache.misses = len(hits), len(keys) - len(hits)

    pool, workers = workers, min(jobs or os.cpu_count() or 1, len(todo))
    show = progress and len(todo) >= PROGRESS_MIN_FILES and sys.stderr.isatty()
    with _progress_bar(len(todo), show) as advance:
        if pool is not None and pool.started and todo:
            todo.sort(key=lambda item: -len(item[1][1]))
            surveyed_as = [_files.real_path(job[0]) for _, job in todo]  # (`keys` are the cache's)
            here = _parent_processes(any(job[2].rewrite for _, job in todo))
            try:
                done = pool.map(_process_in_worker, [job for _, job in todo], keys=surveyed_as, advance=advance, here=here)
            except Broken as e:
                done = e.results
            for (i, job), result in zip(todo, done):
                if result is None:  # (a worker died: each file it left is processed alone, as below)
                    result = _process_isolated(job)
                    advance()
                results[i] = result
        elif workers > 1 and len(todo) >= POOL_MIN_FILES:
            # Largest first, small chunks: one big module started last would otherwise be the tail.
            todo.sort(key=lambda item: -len(item[1][1]))
            chunk = max(1, min(16, len(todo) // (workers * 16)))
            import concurrent.futures.process
            import multiprocessing

            # libcst's tables, for workers that parse with it: where no new code is shown (--check),
            # the rules decide on `ast` and a worker builds what it uses only if it parses after all.
            if multiprocessing.get_start_method() == "fork" and any(job[2].rewrite for _, job in todo):
                from .engine import warm

                warm(dict.fromkeys(c for _, (_, _, settings) in todo for c in settings.codemods))
            try:
                with _pool(workers) as pool:
                    for (i, _), result in zip(todo, pool.map(_process_in_worker, [job for _, job in todo], chunksize=chunk)):
                        results[i] = result
                        advance()
            except concurrent.futures.process.BrokenProcessPool:
                # A native crash (libcst's parser on pathological input) killed a worker: isolate
                # every unfinished file in a pool of its own, so only the culprit becomes an error.
                for i, job in todo:
                    if results[i] is None:
                        results[i] = _process_isolated(job)
                        advance()
        else:
            for i, job in todo:
                results[i] = _process_in_worker(job)
                advance()
    if cache is not None:
        fresh = {keys[i]: record for i in keys if keys[i] not in hits and (record := _cache.to_record(results[i])) is not None}
        cache.put_many(fresh)
    done = [r for r in results if r is not None]
    _hold_pairs(done)
    return done


# A run allocates millions of short-lived nodes (two syntax trees per file) and almost no cycles:
# at CPython's default (a young collection every 700 allocations) the collector takes a large share
# of a run's CPU; this threshold cuts most of it for a little more memory (docs/benchmarks.md).
_YOUNG_THRESHOLD = 50_000


@contextlib.contextmanager
def _fewer_collections():
    """Rarer garbage collections while files are surveyed and processed (also in the workers, which
    inherit the setting); the caller's settings are restored after."""
    saved = gc.get_threshold()
    gc.set_threshold(_YOUNG_THRESHOLD, *saved[1:])
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def _no_last_collection_at_exit() -> None:
    """At exit CPython collects the whole heap once more, the run's index, results and analyses
    with it (most of a second after a large corpus: docs/benchmarks.md), only to hand the memory back. Frozen as
    the process exits (`gc.freeze`, registered once with `atexit`), the heap is left to the exit; a
    process that goes on after a run (tests, an editor) collects as before. Nothing of ours needs a
    finalizer at exit: the cache is closed and every file written by then."""
    atexit.unregister(gc.freeze)  # once, however many runs the process makes
    atexit.register(gc.freeze)


@contextlib.contextmanager
def _kept_to_the_end():
    """What is alive on entry (the project index, every file's survey) is out of the collector's reach
    until the end (`gc.freeze`). The surveys come back from the workers while young collections run,
    so they sit in the young generations; the next middle-generation collection traversed them all
    for nothing (docs/benchmarks.md, "Internal costs"). Frozen
    objects are still freed when their last reference goes; the heap is unfrozen after."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextlib.contextmanager
def _one_file(leaves_no_cycle: bool = False):
    """No garbage collection while one file is analysed, and one young collection after it.

    A file's trees live until its analysis ends, and cycles among what the analysis built (closures,
    analyses that point back at their owner) still hold them after. A collection in mid-file
    traverses the live trees for nothing and promotes them, to be traversed again in an older
    generation; one after the file finds everything it allocated in the young generation, and
    traverses only what cycles still hold: less collector time, and a lower peak of memory
    (docs/benchmarks.md, "Internal costs"). Nested:
    the outermost file collects.

    `leaves_no_cycle` (a survey: tests/test_runner.py): a collection after it would only traverse
    what it keeps (its summary, the parse kept for the file's processing) and free nothing; what is
    alive is set aside from the collector instead (`gc.freeze`, no traversal), and the run unfreezes
    the heap at its end (`_kept_to_the_end`)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if leaves_no_cycle:
            gc.freeze()  # (before collections are back on: none may traverse it first)
            gc.enable()
        else:
            gc.enable()
            gc.collect(0)


def _surveyed(job):
    """survey.survey of one file, as `_one_file` says of a survey (module-level: the pool pickles it)."""
    from .survey import survey

    with _one_file(leaves_no_cycle=True):
        return survey(job)


@contextlib.contextmanager
def _pool(workers: int):
    """A process pool whose forked workers leave the objects they inherit alone: the parent's heap is
    frozen out of the garbage collector's reach first (`gc.freeze`), so a collection in a worker does
    not touch, and so copy, every page it shares with the parent."""
    import concurrent.futures

    gc.freeze()
    try:
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
            yield pool
    finally:
        gc.unfreeze()


def _process_isolated(job: tuple[str, bytes, Settings]) -> FileResult:
    import concurrent.futures.process

    try:
        with concurrent.futures.ProcessPoolExecutor(max_workers=1) as pool:
            return pool.submit(_process_in_worker, job).result()
    except concurrent.futures.process.BrokenProcessPool:
        return FileResult(path=job[0], old_source=job[1], error="the parser crashed on this file (left unchanged)")


@contextlib.contextmanager
def _progress_bar(total: int, show: bool) -> Iterator[Callable[[], None]]:
    """A transient rich progress bar on stderr, or a no-op."""
    if not show:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("phiml-rewrite"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("files", total=total)
        yield lambda: bar.advance(task)


# -- writing ----------------------------------------------------------------------------------


def atomic_write(path: str, data: bytes) -> None:
    """Write through a temporary file in the same directory, fsync, rename over the target.

    Readers see the old or the new file, never half of one; mode (and, when allowed, owner) are
    kept. A symbolic link is written through: its target is replaced, the link stays a link.
    """
    import tempfile  # (here: only a write needs it)

    target = os.path.realpath(path)
    st = os.stat(target)
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".phiml-rewrite.tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, st.st_mode & 0o7777)
        if hasattr(os, "chown"):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                pass  # not ours to give away; the mode still matches
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def write_result(result: FileResult) -> None:
    """Write a changed file unless it changed on disk since it was read; record what happened."""
    if not result.changed or result.error:
        return
    current = read_source(result.path)
    if isinstance(current, FileResult) or current != result.old_source:
        result.error = "changed on disk during the run; not written"
        return
    try:
        atomic_write(result.path, result.new_source)
    except OSError as e:
        result.error = f"cannot write: {e.strerror or e}"


def _settle(result: FileResult, written: bool) -> None:
    """Make `applied` mean "written"."""
    if not written or result.error:
        for finding in result.findings:
            finding.applied = False


# -- a whole run ------------------------------------------------------------------------------


@dataclass
class Summary:
    """The counts a run reports at its end (the JSON output's `summary`)."""
    files: int = 0  # files read (scanned)
    skipped: int = 0  # files the pre-filter proved need no parsing
    changed: int = 0  # files rewritten (or, in a dry run, that would be)
    findings: int = 0
    fixed: int = 0  # findings whose fix was written (or, in a dry run, would be)
    remaining: int = 0  # findings left unfixed
    errors: int = 0  # files that could not be processed
    cached: int = 0  # files whose result came from the cache
    libcst_parsed: int = 0  # files libcst parsed in this run (the others were read on `ast` alone, or not at all)
    written: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        def n(count: int, word: str) -> str:
            return f"{count} {word}{'' if count == 1 else 's'}"

        cached = f", {self.cached} from the cache" if self.cached else ""
        text = f"Scanned {n(self.files, 'file')} ({self.skipped} skipped by the pre-filter{cached}): {n(self.findings, 'finding')}"
        if self.written:
            text += f", {self.fixed} fixed in {n(self.changed, 'file')}, {self.remaining} remaining"
        else:
            text += f", {self.fixed} fixable; {n(self.changed, 'file')} would change"
        if self.errors:
            text += f"; {n(self.errors, 'error')}"
        return text + "."


@dataclass
class Report:
    """A run's results, one per file, and their counts: the exit code follows from them."""
    results: list[FileResult]  # in path order; paths that could not be used carry `error`
    summary: Summary

    @property
    def errors(self) -> list[FileResult]:
        return [r for r in self.results if r.error]

    @property
    def exit_code(self) -> int:
        """2: some file could not be processed; 1: something left to report or change; else 0."""
        if self.summary.errors:
            return 2
        if self.summary.remaining or (not self.summary.written and self.summary.changed):
            return 1
        return 0


def summarize(results: Sequence[FileResult], written: bool, fixed: int) -> Summary:
    return Summary(
        files=sum(1 for r in results if r.old_source is not None or r.cached),  # (cached: maybe not read)
        skipped=sum(1 for r in results if r.skipped and not r.error),
        changed=sum(1 for r in results if r.changed and not r.error),
        findings=sum(len(r.findings) for r in results),
        fixed=fixed,
        remaining=sum(len(r.remaining) for r in results),
        errors=sum(1 for r in results if r.error),
        cached=sum(1 for r in results if r.cached),
        libcst_parsed=sum(1 for r in results if r.libcst_parsed),
        written=written,
    )


class FileSettings:
    """Settings per file; with a project index, each file's facts from the other modules. Also the
    cache key of a file's result, which needs the enabled rules' codes, not the rules (`key`)."""

    def __init__(self, config: Config, apply_fixes: bool, original_positions: bool, index, rewrite: bool,
                 declared=None) -> None:
        self.config, self.apply_fixes, self.original_positions = config, apply_fixes, original_positions
        self.index, self.rewrite = index, rewrite
        self.world = world_reader(config, index, declared)

    def __call__(self, path: str) -> Settings:
        return Settings(
            codemods=self.config.codemods_for(path),
            unsafe_fixes=self.config.unsafe_fixes,
            apply_fixes=self.apply_fixes,
            original_positions=self.original_positions,
            rewrite=self.rewrite,
            project=project_facts(self.index, path),
            world=self.world(path, self.config.project_root),
        )

    def key(self, path: str) -> str:
        """`cache.settings_key(self(path))`."""
        return _cache.key_of(self.config.codes_for(path), unsafe_fixes=self.config.unsafe_fixes,
                             apply_fixes=self.apply_fixes, original_positions=self.original_positions,
                             ast_prefilter=True, rewrite=self.rewrite, project=project_facts(self.index, path),
                             world=self.world(path, self.config.project_root))


def settings_for(config: Config, apply_fixes: bool = True, original_positions: bool = False, index=None,
                 rewrite: bool = True, declared=None) -> FileSettings:
    """Settings per file (FileSettings; `declared`: as for `world_reader`)."""
    return FileSettings(config, apply_fixes, original_positions, index, rewrite, declared)


def world_reader(config: Config, index=None, declared=None):
    """Each file's World (rewriter/project/world.py): what its project targets, and who may call it.
    `declared`: where the project's declarations are read (project.stored_declarations; None: the files)."""
    from .project.world import WorldReader

    return WorldReader(config.target_setting(), index, declared=declared)


def project_facts(index, path: str):
    """What the project index tells `path` (None: nothing, or no index: analysed alone)."""
    return (index.facts_for(path) or None) if index is not None else None


def project_index(config: Config, paths: Sequence[str], cache: ResultCache | None = None, sources: dict | None = None,
                  summarize=None, read: dict[str, bytes] | None = None, digests: FileDigests | None = None):
    """The index of the project `paths` belong to (every file under its root, with the run's
    excludes), or None when the configuration says files are analysed alone. `summarize`: how the
    files the cache does not hold are summarized; `read`: filled with the bytes read; `digests`:
    the files' digests known from their stat (ProjectIndex.build)."""
    if not config.project:
        return None
    from .project.index import ProjectIndex, project_root

    _files.forget_real_paths()  # (links may have changed: the build reads the real paths resolved here)
    root = config.project_root or project_root(paths[0] if paths else ".")
    found = _files.discover(
        [root], exclude=config.exclude, extend_exclude=config.extend_exclude, base=config.root,
        extend_include=config.extend_include,
    )
    files = list(found.files)
    known = {_files.real_path(f) for f in files}
    files += [p for p in paths if os.path.isfile(p) and _files.real_path(p) not in known]
    return ProjectIndex.build(root, files, cache=cache, sources=sources, summarize=summarize, read=read, digests=digests,
                              paths_resolved=True)


def surveyed_index(config: Config, paths: Sequence[str], cache: ResultCache | None = None, jobs: int | None = None,
                   workers: Workers | None = None, read: dict[str, bytes] | None = None,
                   digests: FileDigests | None = None):
    """`project_index`, with the files it must summarize surveyed in worker processes (rewriter/survey.py):
    one ast parse each for its summary and, for the files of `paths`, the rules that may fire in
    them. Returns the index and, by real path, (the bytes surveyed, their survey). `workers`: the
    processes to survey in, kept for the processing (else a pool of the run's `jobs`); `read`,
    `digests`: as for `project_index`."""
    first_pass: dict[str, tuple[bytes, Survey]] = {}
    processed: set[str] = set()

    def processed_paths() -> set[str]:
        """The real paths of `paths`, asked once the index's build has begun: it forgets the real paths
        known before (files.forget_real_paths), and each is an lstat."""
        if not processed and paths:
            processed.update(_files.real_path(p) for p in paths)
        return processed

    def summarize(files: list[tuple[str, bytes]]) -> list:
        own = processed_paths()
        work = [(path, source, config.codemods_for(path) if _files.real_path(path) in own else None)
                for path, source in files]
        if any(codemods for _, _, codemods in work):
            from .survey import warm

            warm()  # (before the pool forks its workers: each inherits it)
        # Largest first: the last files surveyed are then small ones, and no process waits long at the
        # end for another's (workers._next_batch).
        order = sorted(range(len(work)), key=lambda i: -len(work[i][1]))
        surveys: list = [None] * len(work)
        for i, found in zip(order, _map(_surveyed, [work[i] for i in order], jobs, workers)):
            surveys[i] = found
        for (path, source, _), found in zip(work, surveys):
            if found.first_pass is not None:
                first_pass[_files.real_path(path)] = (source, found)
        return [found.summary for found in surveys]

    index = project_index(config, paths, cache, summarize=summarize, read=read, digests=digests)
    if read:  # (only the files of `paths` are processed: the others' bytes are not held through it)
        own = processed_paths()
        for key in [key for key in read if key not in own]:
            del read[key]
    return index, first_pass


def _map(function, items: list, jobs: int | None, pool: Workers | None = None) -> list:
    """`function` over `items` (jobs of files: path first), in worker processes when there are enough
    of them: `pool`'s, which then own the files they ran, else a pool of their own."""
    workers = min(pool.count if pool is not None else jobs or os.cpu_count() or 1, len(items))
    if workers > 1 and len(items) >= POOL_MIN_FILES:
        chunk = max(1, min(32, len(items) // (workers * 8)))
        if pool is not None:
            try:
                return pool.map(function, items, chunk=chunk, keys=[_files.real_path(item[0]) for item in items])
            except Broken as e:  # (as below: what no worker finished is done here)
                return [function(item) if done is None else done for item, done in zip(items, e.results)]
        import concurrent.futures.process

        try:
            with _pool(workers) as executor:
                return list(executor.map(function, items, chunksize=chunk))
        except concurrent.futures.process.BrokenProcessPool:
            pass  # a worker died (a native crash): do it here, as it was done before there were workers
    return [function(item) for item in items]


def run(
    paths: Sequence[str],
    config: Config,
    *,
    write: bool = False,
    jobs: int | None = None,
    progress: bool = False,
    force_exclude: bool = False,
    cache: ResultCache | None = None,
    rewrite: bool = True,
) -> Report:
    """Discover the files under `paths`, process them, write the fixes if `write`; never raises per file.
    `rewrite=False` (nothing will show the new code): the results say which files would change, not how."""
    _files.forget_real_paths()
    found = _files.discover(
        paths,
        exclude=config.exclude,
        extend_exclude=config.extend_exclude,
        base=config.root,
        force_exclude=force_exclude,
        extend_include=config.extend_include,
    )
    _no_last_collection_at_exit()
    with _fewer_collections(), _run_workers(config, found.files, jobs, write or rewrite) as workers:
        read: dict[str, bytes] = {}  # what the index's build read: processed as read there, not read again
        digests = FileDigests(cache) if cache is not None else None
        if digests is not None:
            _cache.tool_fingerprint(digests)  # (its own files known from their stat too)
        index, first_pass = surveyed_index(config, found.files, cache, jobs, workers, read, digests) \
            if found.files else (None, {})
        with _kept_to_the_end():  # the index and the surveys
            # Without --in-place the file on disk stays the original: report positions in it.
            declared = _stored_declarations(cache, digests)
            settings = settings_for(config, original_positions=not write, index=index, rewrite=write or rewrite,
                                    declared=declared)
            results = process_files(found.files, settings, jobs=jobs, progress=progress, cache=cache, first_pass=first_pass,
                                    workers=workers, sources=read, digests=digests)
            if write or rewrite:  # (a run that computes no rewrite has no rewritten text to read)
                from .project.settle import settle

                results = settle(results, index, lambda path, text: _held(_process_in_worker((path, text, settings(path)))))
        if digests is not None:
            digests.save()
        if declared is not None:
            declared.save()
    if write:
        for result in results:
            write_result(result)
    return conclude(results + [FileResult(path=p, error=reason) for p, reason in found.errors], written=write)


def _stored_declarations(cache: ResultCache | None, digests: FileDigests | None):
    """Declarations kept in `cache` under the digests of the files read (project.stored_declarations);
    None without a cache."""
    if cache is None or digests is None:
        return None
    from .project.stored_declarations import StoredDeclarations

    return StoredDeclarations(cache, digests)


def _parent_processes(rewrite: bool) -> bool:
    """Whether this process processes files beside the forked workers of a run (`rewrite`: it shows
    new code). Not where new code is shown: libcst parses there, and a crash of its parser must take
    a forked worker only (the file is then processed alone: process_files), not the run."""
    return not rewrite


@contextlib.contextmanager
def _run_workers(config: Config, paths: Sequence[str], jobs: int | None, rewrite: bool) -> Iterator[Workers | None]:
    """The worker processes of a run over `paths` (None: one job, or too few files), started only if
    the survey uses them; and the parses kept here, forgotten at the end. Where new code is shown,
    libcst's tables are built before they fork (engine.warm), for every worker to inherit."""
    count = min(jobs or os.cpu_count() or 1, len(paths))
    try:
        if count < 2 or len(paths) < POOL_MIN_FILES:
            yield None
            return

        def warm() -> None:
            if rewrite:
                from .engine import warm as warm_libcst

                warm_libcst(dict.fromkeys(c for path in paths for c in config.codemods_for(path)))

        # Where the forked workers alone process files, the parses the parent's own surveys would keep
        # for it are never read.
        stop_keeping = None if _parent_processes(rewrite) else kept_parses.stop_keeping
        with Workers(count, before_start=warm, after_start=stop_keeping) as workers:
            yield workers
    finally:
        kept_parses.clear()


def conclude(results: list[FileResult], *, written: bool) -> Report:
    """Settle `applied` (it means "written"), sort by path and count."""
    fixed = 0
    for result in results:
        if not result.error:
            fixed += sum(1 for f in result.findings if f.applied)
        _settle(result, written=written)
    results.sort(key=lambda r: r.path)
    return Report(results, summarize(results, written, fixed))


def run_stdin(source: bytes, filename: str, config: Config, *, write: bool = True, force_exclude: bool = False,
              rewrite: bool = True) -> Report:
    """`--stdin-filename`: one buffer, configured as if it were `filename`.

    `write`: the caller prints `new_source` (or the unchanged buffer) to standard output; `rewrite`
    as for `run`.
    """
    if force_exclude and _files.is_excluded(
        filename, exclude=config.exclude, extend_exclude=config.extend_exclude, base=config.root
    ):
        return conclude([FileResult(path=filename, old_source=source, skipped=True)], written=write)
    # A dry run reports at the buffer's own positions, as for files (an editor places them there).
    index = project_index(config, [filename], sources={filename: source}) if os.path.exists(filename) else None
    settings = settings_for(config, original_positions=not write, index=index, rewrite=write or rewrite)
    result = _process_in_worker((filename, source, settings(filename)))
    _hold_pairs([result])
    return conclude([result], written=write)


def _held(result: FileResult) -> FileResult:
    _hold_pairs([result])
    return result


def _hold_pairs(results: Sequence[FileResult]) -> None:
    """Files paired by jupytext are left alone (rewriter/notebooks/pairs.py), whoever writes them
    (check, verify, profile --fix): after the cache, as whether the twin exists is not in the bytes."""
    if any(r.changed or any(f.applied for f in r.findings) for r in results):
        from .notebooks.pairs import hold_pairs

        hold_pairs(results)


# -- showing a change -------------------------------------------------------------------------


def decode(source: bytes) -> str:
    """The module's text in its own encoding (PEP 263 / BOM); latin-1 when that fails (display only)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return source.decode("latin-1")


def _lines(text: str) -> list[str]:
    # newline="": split on \n, \r\n and \r but keep each ending as it is.
    return io.StringIO(text, newline="").readlines()


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    """A `diff -u` style patch with a/ b/ headers (`git apply -p1`); line endings kept as in the file.

    Absolute paths keep their own root: `a/tmp/x.py`, never `a//tmp/x.py`.
    """
    out = []
    shown = path.replace(os.sep, "/").lstrip("/")
    for line in difflib.unified_diff(_lines(decode(old)), _lines(decode(new)), f"a/{shown}", f"b/{shown}"):
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:  # the last line has no newline: say so, like diff(1)
            out.append(line + "\n")
            out.append("\\ No newline at end of file\n")
    return "".join(out)


def iter_diffs(results: Sequence[FileResult]) -> Iterator[str]:
    for r in results:
        if r.changed and not r.error:
            yield notebooks.cell_diffs(r.path, r.old_source, r.new_source) if notebooks.is_notebook(r.path) \
                else unified_diff(r.path, r.old_source, r.new_source)

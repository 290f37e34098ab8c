"""Worker processes that live from the survey to the processing, each file processed where it was surveyed.

A run surveys every file in worker processes (rewriter/survey.py), then processes the few that some
rule may fire in. A pool hands each task to whichever worker is free, so a file's processing used to
land in another process than its survey and parse the file again. Here the runner chooses: a free
worker takes its own files first, so it reads the parse its survey kept (rewriter/kept_parses.py);
one with none left takes another's, from the end of that worker's queue, so that the processes
finish together. The run's own process is one of the workers: with N jobs, N - 1 processes are
forked, and the parent takes items between looks at their pipes (a map may keep it out: a file whose
processing may crash the interpreter, where libcst parses, is isolated in a forked worker). Each
item it takes is one less to pickle there and back, and one process less whose caches and
copied pages the run pays for. The processes are forked together, before the parent runs a thread
of its own (forking beside a running thread can leave a lock held in the child), and each talks over
a pipe. multiprocessing is imported when they start: a run served from the cache starts none.
"""
from __future__ import annotations

import gc
import signal
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    import multiprocessing.connection


class Broken(RuntimeError):
    """A worker died (a native crash): `results` holds what the others finished (None: not done)."""

    def __init__(self, results: list) -> None:
        super().__init__("a worker process died")
        self.results = results


class Workers:
    """`count` workers: this process and `count - 1` forked ones, started on the first `map` (forked
    then: the parent's heap is first frozen out of the collector's reach, so that a collection in a
    worker does not copy every page it shares with the parent). `before_start`: what to build first,
    for every worker to inherit; `after_start`: what to do here once they are forked. In `owner`, this
    process is worker `count - 1`."""

    def __init__(self, count: int, before_start: Callable[[], None] | None = None,
                 after_start: Callable[[], None] | None = None) -> None:
        self.count = count
        self._before_start, self._after_start = before_start, after_start
        self._processes: list = []
        self._pipes: list[multiprocessing.connection.Connection] = []
        self._busy: set[int] = set()
        self._frozen = False
        self.broken = False
        self.owner: dict[Any, int] = {}  # what a worker read (a key the caller chooses) -> that worker
        self.here = count - 1  # this process's number among the workers

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def started(self) -> bool:
        """Whether the processes run (forked by a `map`), and none of them died."""
        return bool(self._processes) and not self.broken

    def close(self) -> None:
        """Let idle workers end; a worker still busy (the run was interrupted) is stopped."""
        for worker, (process, pipe) in enumerate(zip(self._processes, self._pipes)):
            if worker in self._busy:
                process.terminate()
            else:
                try:
                    pipe.send(None)
                except OSError:
                    pass
        for process, pipe in zip(self._processes, self._pipes):
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
            pipe.close()
        self._processes, self._pipes, self._busy = [], [], set()
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def _start(self) -> None:
        if self._before_start is not None:
            self._before_start()
        import multiprocessing

        gc.freeze()
        self._frozen = True
        context = multiprocessing.get_context()
        for _ in range(self.here):
            here, there = context.Pipe()
            # Daemonic: a Workers nobody closed does not hold the interpreter's exit (no worker starts
            # processes of its own, which a daemonic one may not).
            process = context.Process(target=_serve, args=(there,), daemon=True)
            process.start()
            there.close()
            self._processes.append(process)
            self._pipes.append(here)
        if self._after_start is not None:
            self._after_start()

    def map(self, function: Callable, items: Sequence, *, chunk: int = 1, keys: Sequence | None = None,
            advance: Callable[[], None] | None = None, here: bool = True) -> list:
        """`function` (module-level) of each item, in the workers, in the order of `items`; `chunk`
        items are handed to a forked worker at a time, one to this process. `keys`: what each item is
        known by in `owner`; an item whose key a worker owns goes to it first, and a worker that runs
        an item owns its key after. `here`: this process takes items too (else its own go to the
        others). Raises the function's exception, or `Broken` when a worker died (no worker is used
        after that)."""
        results: list = [None] * len(items)
        if self.broken:
            raise Broken(results)
        if not self._processes and self.here:
            self._start()
        own: list[deque[int]] = [deque() for _ in range(self.here + 1)]  # (the last: this process's)
        anyone: deque[int] = deque()
        for i in range(len(items)):
            worker = self.owner.get(keys[i]) if keys is not None else None
            if worker == self.here and not here:
                worker = None
            (own[worker] if worker is not None else anyone).append(i)
        batches: dict[int, list[int]] = {}

        def feed(worker: int) -> None:
            batch = _next_batch(worker, own, anyone, chunk)
            if not batch:
                return
            self._busy.add(worker)  # (before the send: one interrupted leaves it busy, and `close` stops it)
            try:
                self._pipes[worker].send((function, [items[i] for i in batch]))
            except OSError:  # its process is gone (killed while it waited): the batch is not done
                self.broken = True
                return
            batches[worker] = batch

        def done(i: int, result, worker: int) -> None:
            results[i] = result
            if keys is not None:
                self.owner[keys[i]] = worker
            if advance is not None:
                advance()

        def collect(timeout: float | None) -> None:
            """The replies of the forked workers that are ready (waiting up to `timeout`; None: until
            one is), each worker fed its next batch."""
            for ready in wait([self._pipes[w] for w in batches], timeout):
                worker = by_pipe[id(ready)]
                batch = batches.pop(worker)
                try:
                    kind, out = self._pipes[worker].recv()
                except (EOFError, OSError):
                    self.broken = True  # (its process is gone: `close` reaps it)
                    continue
                except Exception as e:  # a reply that pickled but does not unpickle here
                    raise RuntimeError(f"a worker's reply could not be read: {type(e).__name__}: {e}") from e
                self._busy.discard(worker)
                if kind == "raised":
                    raise out
                for i, result in zip(batch, out):
                    done(i, result, worker)
                if not self.broken:
                    feed(worker)

        from multiprocessing.connection import wait

        by_pipe = {id(pipe): worker for worker, pipe in enumerate(self._pipes)}
        try:
            for worker in range(len(self._processes)):
                if not self.broken:
                    feed(worker)
            while True:
                # One item here at a time, the workers' replies read between two (a worker done waits
                # at most one item for its next batch); once none is left here, only their replies.
                mine = _next_batch(self.here, own, anyone, 1) if here and not self.broken else []
                if mine:
                    done(mine[0], function(items[mine[0]]), self.here)
                    if batches:
                        collect(0)
                elif batches:
                    collect(None)
                else:
                    break
        except BaseException:
            self.broken = True  # (replies still in flight are not read: these processes serve no more)
            raise
        if self.broken:
            raise Broken(results)
        return results


def _next_batch(worker: int, own: list[deque[int]], anyone: deque[int], chunk: int) -> list[int]:
    """Up to `chunk` items for a free `worker`: its own first, then anyone's, then the last of the
    longest queue another worker owns. Of anyone's, at most a share of what is left (with N workers,
    1/(2N) of it, at least one item): batches shrink as the queue does, so that no worker is handed
    a long batch at the end while the others have none left and wait for it (the parent of a two-job
    run waited a tenth of a second so for the survey's last batch: docs/benchmarks.md, "stop 74")."""
    for queue, from_end in ((own[worker], False), (anyone, False), (max(own, key=len), True)):
        if queue:
            size = min(chunk, len(queue))
            if queue is anyone:
                size = min(size, max(1, len(queue) // (2 * len(own))))
            return [queue.pop() if from_end else queue.popleft() for _ in range(size)]
    return []


def _serve(pipe: multiprocessing.connection.Connection) -> None:
    """A worker: runs each batch it is sent, sends back its results or the exception; ends on None.
    Ctrl-C is the parent's to handle (it stops the workers): a worker printing its own traceback
    for it would only bury the parent's message."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            message = pipe.recv()
        except EOFError:
            return
        if message is None:
            return
        function, batch = message
        try:
            reply: tuple = ("done", [function(item) for item in batch])
        except BaseException as e:  # (the parent raises it: a bug, or an interrupt)
            reply = ("raised", e)
        try:
            pipe.send(reply)
        except Exception as e:  # a result or an exception that does not pickle
            pipe.send(("raised", RuntimeError(f"a worker's reply could not be sent: {type(e).__name__}: {e}")))

"""The run's worker processes (rewriter/workers.py): results in order, each item where its key was
read, the others shared so the processes finish together, and a crash or a bug reported as the
stdlib's pool reports them. And the parses a survey keeps for its file's processing (kept_parses)."""
from __future__ import annotations

import ast
import os

import pytest

from rewriter import kept_parses, runner
from rewriter.config import Config
from rewriter.workers import Broken, Workers


def pid_and(x):
    return os.getpid(), x


def square(x):
    return x * x


def dies_at_three(x):
    if x == 3:
        os._exit(7)
    return x


def raises_at_two(x):
    if x == 2:
        raise ValueError("two")
    return x


def test_results_come_in_the_order_of_the_items():
    with Workers(2) as workers:
        assert workers.map(square, list(range(40)), chunk=3) == [x * x for x in range(40)]
        assert workers.map(square, []) == []


def test_an_item_goes_to_the_worker_that_read_its_key():
    with Workers(2) as workers:
        # One item each, in the order the workers are fed: the first to worker 0.
        (pid0, _), (pid1, _) = workers.map(pid_and, [0, 1], keys=["a", "b"])
        assert pid0 != pid1 and workers.owner == {"a": 0, "b": 1}
        keys = [f"file{i}" for i in range(12)]
        workers.owner.update({key: i % 2 for i, key in enumerate(keys)})
        # Six at a time: the forked worker is handed all of its own at once. This process takes its
        # own one at a time, first one at once; a forked worker done first takes the rest of them
        # (from the end): under load it may, so which of this process's items it ran is not fixed.
        out = workers.map(pid_and, list(range(12)), keys=keys, chunk=6)
        pids = [pid for pid, _ in out]
        assert pids[0::2] == [pid0] * 6
        mine = pids[1::2]
        taken = mine.count(pid0)
        assert mine == [pid1] * (6 - taken) + [pid0] * taken and taken < 6
        assert [x for _, x in out] == list(range(12))


def test_the_next_batch_is_the_workers_own_then_anyones_then_the_end_of_the_longest():
    from collections import deque

    from rewriter.workers import _next_batch

    own, anyone = [deque([1, 2]), deque([3, 4, 5, 6])], deque([7])
    assert _next_batch(0, own, anyone, 3) == [1, 2]
    assert _next_batch(0, own, anyone, 3) == [7]
    assert _next_batch(0, own, anyone, 2) == [6, 5]
    assert _next_batch(1, own, anyone, 5) == [3, 4]
    assert _next_batch(1, own, anyone, 5) == []


def test_batches_of_anyones_items_shrink_as_the_queue_does():
    """No worker is handed a long batch at the end while the others have nothing left to do."""
    from collections import deque

    from rewriter.workers import _next_batch

    own, anyone = [deque(), deque()], deque(range(100))
    sizes = []
    while batch := _next_batch(0, own, anyone, 23):
        sizes.append(len(batch))
    assert sizes[0] == 23 and sizes == sorted(sizes, reverse=True) and sizes[-3:] == [1, 1, 1] and sum(sizes) == 100
    own = [deque(range(10)), deque()]  # a worker's own items: handed `chunk` at a time, as before
    assert len(_next_batch(0, own, deque(), 6)) == 6


def test_a_worker_with_none_of_its_own_left_takes_anothers_from_the_end():
    keys = [f"file{i}" for i in range(6)]
    with Workers(2) as workers:
        workers.owner.update(dict.fromkeys(keys, 0))  # worker 0 read them all
        out = workers.map(pid_and, list(range(6)), keys=keys)
        assert len({pid for pid, _ in out}) == 2  # worker 1 was not left idle
        assert [x for _, x in out] == list(range(6))
        # what worker 1 took came off the end of worker 0's queue
        assert out[-1][0] != out[0][0]


def test_this_process_is_one_of_the_workers():
    """With N workers, N - 1 processes are forked: this one takes items too, unless a map keeps it out."""
    with Workers(2) as workers:
        out = workers.map(pid_and, list(range(10)), keys=[f"k{i}" for i in range(10)])
        assert len(workers._processes) == 1
        assert {pid for pid, _ in out} == {os.getpid(), workers._processes[0].pid}
        assert {workers.owner[f"k{i}"] for i, (pid, _) in enumerate(out) if pid == os.getpid()} == {workers.here}
        # Kept out: what this process read goes to the forked worker.
        out = workers.map(pid_and, list(range(10)), keys=[f"k{i}" for i in range(10)], here=False)
        assert {pid for pid, _ in out} == {workers._processes[0].pid}
        assert [x for _, x in out] == list(range(10))


def test_a_dead_worker_is_broken_with_what_the_others_finished():
    with Workers(3) as workers:
        workers.owner[3] = 0  # (fed to a forked worker first: never taken here)
        with pytest.raises(Broken) as raised:
            workers.map(dies_at_three, list(range(8)), keys=list(range(8)))
        results = raised.value.results
        assert results[3] is None
        assert all(r is None or r == i for i, r in enumerate(results))
        assert workers.broken and not workers.started
        with pytest.raises(Broken):  # no worker is used after that
            workers.map(square, [1])


class TwoArguments(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} {b}")  # (pickles, but unpickles with one argument: its `args`)


def raises_what_does_not_unpickle(x):
    if x == 0:
        raise TwoArguments(1, 2)
    return x


def test_a_worker_killed_while_it_waited_is_broken_not_a_broken_pipe():
    """Found in review: only reading a reply was guarded, so sending to a worker that died between
    two maps (the OOM killer, between the survey and the processing) raised BrokenPipeError."""
    import signal

    with Workers(3) as workers:
        assert workers.map(square, [1, 2, 3, 4]) == [1, 4, 9, 16]
        os.kill(workers._processes[1].pid, signal.SIGKILL)
        workers._processes[1].join()
        with pytest.raises(Broken) as raised:
            workers.map(square, list(range(6)))
        assert all(r is None or r == i * i for i, r in enumerate(raised.value.results))
        assert workers.broken


def test_a_reply_that_does_not_unpickle_breaks_the_workers():
    """Found in review: the parent's failure to read a reply left the others' replies in flight, and
    the next map read one of them as its own results."""
    with Workers(2) as workers:
        with pytest.raises(RuntimeError, match="could not be read"):
            workers.map(raises_what_does_not_unpickle, [0, 1])
        with pytest.raises(Broken):
            workers.map(square, [10, 11])


def test_a_run_with_the_cache_in_workers_finds_what_one_without_does(tmp_path):
    """Found in review: the processing's branch for the workers rebound `keys`, the cache's keys by
    file, so every first run of two jobs with a cache raised TypeError once it had processed."""
    from rewriter.cache import ResultCache

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "hot.py").write_bytes(JITTED)
    for i in range(7):
        (tmp_path / f"cold{i}.py").write_bytes(b"z = 1\n")
    config = Config(root=str(tmp_path))
    for _ in range(2):  # the first run fills the cache, the second reads it
        cache = ResultCache.at(str(tmp_path / ".cache"))
        report = runner.run([str(tmp_path)], config, jobs=2, cache=cache, rewrite=False)
        cache.close()
        assert [f.code for r in report.results for f in r.findings] == ["PML201"]


def test_an_exception_in_a_worker_is_raised_here():
    with Workers(2) as workers:
        with pytest.raises(ValueError, match="two"):
            workers.map(raises_at_two, list(range(5)))


def test_a_kept_parse_is_taken_once_and_only_for_the_same_bytes():
    kept_parses.clear()
    tree = ast.parse(b"x = 1\n")
    kept_parses.keep(b"x = 1\n", tree)
    assert kept_parses.take(b"x = 2\n") is None
    assert kept_parses.take(b"x = 1\n") is tree
    assert kept_parses.take(b"x = 1\n") is None


def test_kept_parses_stay_within_their_budget(monkeypatch):
    kept_parses.clear()
    monkeypatch.setattr(kept_parses, "BUDGET", 10)
    kept_parses.keep(b"a = 1\n", ast.parse("a = 1\n"))
    kept_parses.keep(b"bb = 22\n", ast.parse("bb = 22\n"))  # 6 + 8 > 10: not kept
    assert kept_parses.take(b"bb = 22\n") is None and kept_parses.take(b"a = 1\n") is not None
    kept_parses.clear()


JITTED = b"import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def test_a_file_is_parsed_once_from_its_survey_to_its_processing(tmp_path, monkeypatch):
    """One job: the survey's parse of the file a rule fires in is the one its rules read."""
    from rewriter.analysis import ast_names

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "hot.py").write_bytes(JITTED)
    (tmp_path / "cold.py").write_bytes(b"y = 2\n")
    parsed = []
    real = ast_names.parse
    monkeypatch.setattr(ast_names, "parse", lambda source: (parsed.append(source), real(source))[1])
    for module in ("rewriter.survey", "rewriter.engine", "rewriter.analysis.ast_module", "rewriter.prefilter",
                   "rewriter.project.index", "rewriter.project.summary"):
        imported = __import__(module, fromlist=["_"])
        for name in ("parse", "python_parse"):
            if getattr(imported, name, None) is real:
                monkeypatch.setattr(imported, name, ast_names.parse)
    report = runner.run([str(tmp_path)], Config(root=str(tmp_path)), jobs=1, rewrite=False)
    assert [f.code for r in report.results for f in r.findings] == ["PML201"]
    assert parsed.count(JITTED) == 1
    assert not kept_parses._kept  # the run forgets what it kept


def test_a_run_in_workers_finds_what_a_run_in_one_process_does(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    for i in range(12):
        (tmp_path / f"m{i:02}.py").write_bytes(JITTED if i % 3 == 0 else b"z = %d\n" % i)
    config = Config(root=str(tmp_path))
    alone = runner.run([str(tmp_path)], config, jobs=1, rewrite=False)
    together = runner.run([str(tmp_path)], config, jobs=2, rewrite=False)
    seen = [[(r.path, f.to_dict()) for f in r.findings] for r in alone.results]
    assert seen == [[(r.path, f.to_dict()) for f in r.findings] for r in together.results]
    assert sum(map(len, seen)) == 4


def test_the_parent_keeps_parses_only_where_it_processes_files(tmp_path, monkeypatch):
    """Two jobs: the run's own process surveys files too; where no new code is shown it processes those
    it surveyed, reading the parses it kept; where new code is shown only the forked worker processes
    files, so the parent keeps none (they would only take memory)."""
    (tmp_path / "pyproject.toml").write_text("")
    for i in range(12):
        (tmp_path / f"m{i:02}.py").write_bytes(JITTED + b"# %d\n" % i)
    parent, kept = os.getpid(), []
    real = kept_parses.keep

    def keep(source, tree):
        real(source, tree)
        if os.getpid() == parent:
            kept.append(source in kept_parses._kept)

    monkeypatch.setattr(kept_parses, "keep", keep)
    config = Config(root=str(tmp_path))
    checked = runner.run([str(tmp_path)], config, jobs=2, rewrite=False)
    assert kept and all(kept)  # (the parent surveyed some, and kept them for its processing)
    kept.clear()
    shown = runner.run([str(tmp_path)], config, jobs=2, rewrite=True)
    assert kept and not any(kept)
    assert kept_parses._keeping and not kept_parses._kept  # the run's end: kept nothing, keeps again
    codes = [[f.code for f in r.findings] for r in checked.results]
    assert codes == [[f.code for f in r.findings] for r in shown.results] == [["PML201"]] * 12

"""The runner: reading, processing in a pool or not, writing atomically, counting."""
from __future__ import annotations

import concurrent.futures
import os
import stat

import pytest

from conftest import TEST_CODEMODS
from rewriter import runner
from rewriter.config import Config
from rewriter.engine import Settings


def settings_for(path: str) -> Settings:
    return Settings(codemods=TEST_CODEMODS)


@pytest.fixture
def config(tmp_path, fake_rules) -> Config:
    return Config(root=str(tmp_path))


def test_in_place_keeps_mode_and_crlf_line_endings(tmp_path, config):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = foo(1)\r\ny = 2\r\n")
    path.chmod(0o754)
    report = runner.run([str(tmp_path)], config, write=True)
    assert path.read_bytes() == b"x = bar(1)\r\ny = 2\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o754
    assert report.exit_code == 0
    assert [f.applied for f in report.results[0].findings] == [True]
    assert [p.name for p in tmp_path.iterdir()] == ["a.py"]  # no temporary file left behind


def test_files_with_nothing_to_change_are_never_written(tmp_path, config):
    untouched = {
        "no_trigger.py": b"x = 1\n",
        "trigger_no_finding.py": b"foo = 1  # mentions foo, is not a call\n",
        "report_only.py": b"qux()\n",
    }
    for name, data in untouched.items():
        (tmp_path / name).write_bytes(data)
        os.utime(tmp_path / name, ns=(1_000_000_000, 1_000_000_000))
    report = runner.run([str(tmp_path)], config, write=True)
    for name, data in untouched.items():
        assert (tmp_path / name).read_bytes() == data
        assert (tmp_path / name).stat().st_mtime_ns == 1_000_000_000
    assert report.summary.changed == 0 and report.summary.skipped == 1
    assert report.exit_code == 1  # report_only.py: a finding remains


def test_dry_run_writes_nothing_and_reports_the_change(tmp_path, config):
    path = tmp_path / "a.py"
    path.write_bytes(b"foo()\nqux()\n")
    report = runner.run([str(path)], config, write=False)
    assert path.read_bytes() == b"foo()\nqux()\n"
    result = report.results[0]
    assert result.new_source == b"bar()\nqux()\n"
    assert not any(f.applied for f in result.findings)  # nothing was written
    s = report.summary
    assert (s.files, s.changed, s.findings, s.fixed, s.remaining, s.errors) == (1, 1, 2, 1, 2, 0)
    assert report.exit_code == 1
    assert "1 fixable; 1 file would change" in str(s)


def test_in_place_exit_code_is_1_only_if_findings_remain(tmp_path, config):
    (tmp_path / "a.py").write_bytes(b"foo()\n")
    assert runner.run([str(tmp_path)], config, write=True).exit_code == 0
    (tmp_path / "b.py").write_bytes(b"baz()\n")  # unsafe fix: not applied by default
    report = runner.run([str(tmp_path)], config, write=True)
    assert report.exit_code == 1 and report.summary.remaining == 1
    unsafe = config.override(unsafe_fixes=True)
    assert runner.run([str(tmp_path)], unsafe, write=True).exit_code == 0
    assert (tmp_path / "b.py").read_bytes() == b"bar()\n"


def test_file_changed_on_disk_during_the_run_is_not_written(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"foo()\n")
    [result] = runner.process_files([str(path)], settings_for)
    path.write_bytes(b"foo()\nfoo()\n")  # an editor saved meanwhile
    runner.write_result(result)
    assert path.read_bytes() == b"foo()\nfoo()\n"
    assert result.error == "changed on disk during the run; not written"
    report = runner.conclude([result], written=True)
    assert report.exit_code == 2 and report.summary.fixed == 0
    assert not any(f.applied for f in result.findings)


def test_unreadable_files_are_errors_and_the_others_are_still_processed(tmp_path):
    (tmp_path / "a.py").write_bytes(b"foo()\n")
    (tmp_path / "dir.py").mkdir()
    paths = [str(tmp_path / "a.py"), str(tmp_path / "dir.py"), str(tmp_path / "vanished.py")]
    a, d, v = runner.process_files(paths, settings_for)
    assert a.error is None and a.new_source == b"bar()\n"
    assert d.error == "cannot read: Is a directory"
    assert v.error == "cannot read: No such file or directory"
    report = runner.conclude([a, d, v], written=False)
    assert report.summary.errors == 2 and report.exit_code == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_permission_denied(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"foo()\n")
    path.chmod(0)
    [result] = runner.process_files([str(path)], settings_for)
    assert result.error == "cannot read: Permission denied"


def test_binary_and_syntax_error_files(tmp_path, config):
    (tmp_path / "bin.py").write_bytes(b"foo\x00\x01\x02")
    (tmp_path / "bad.py").write_bytes(b"def foo(:\n")
    (tmp_path / "ok.py").write_bytes(b"foo()\n")
    report = runner.run([str(tmp_path)], config, write=True)
    by_name = {os.path.basename(r.path): r for r in report.results}
    assert "binary" in by_name["bin.py"].error
    assert "syntax error" in by_name["bad.py"].error
    assert by_name["ok.py"].error is None and (tmp_path / "ok.py").read_bytes() == b"bar()\n"
    assert (tmp_path / "bad.py").read_bytes() == b"def foo(:\n"
    assert report.exit_code == 2


def test_missing_path_becomes_an_error_result_in_path_order(tmp_path, config, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.py").write_bytes(b"x = 1\n")
    report = runner.run(["b.py", "a_missing.py"], config)
    assert [(r.path, r.error) for r in report.results] == [
        ("a_missing.py", "no such file or directory"),
        ("b.py", None),
    ]
    assert report.exit_code == 2


def test_symlinked_file_is_written_through_the_link(tmp_path, config):
    real = tmp_path / "real.py"
    real.write_bytes(b"foo()\n")
    link = tmp_path / "link.py"
    os.symlink(real, link)
    runner.run([str(link)], config, write=True)
    assert link.is_symlink() and real.read_bytes() == b"bar()\n"


def test_atomic_write_replaces_the_content(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"old\n")
    path.chmod(0o600)
    runner.atomic_write(str(path), b"new\n")
    assert path.read_bytes() == b"new\n" and stat.S_IMODE(path.stat().st_mode) == 0o600


def _comparable(results):
    return [(r.path, r.error, r.new_source, r.skipped, [f.to_dict() for f in r.findings]) for r in results]


def test_process_pool_gives_the_same_results_as_in_process(tmp_path, monkeypatch):
    for i in range(12):
        body = [b"x = 1\n", b"foo(%d)\nqux()\n" % i, b"baz()\n", b"def (:\n"][i % 4]
        (tmp_path / f"m{i:02}.py").write_bytes(body)
    paths = sorted(str(p) for p in tmp_path.iterdir())
    pools = []

    class SpyPool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    from rewriter import engine

    warm = engine.warm
    monkeypatch.setattr(engine, "warm", lambda codemods: (pools.append("warmed"), warm(codemods)))
    monkeypatch.setattr(runner, "POOL_MIN_FILES", 2)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", SpyPool)
    serial = runner.process_files(paths, settings_for, jobs=1)
    assert pools == []
    parallel = runner.process_files(paths, settings_for, jobs=3)
    assert pools == ["warmed", 3]  # the tables are built once, before the workers are forked
    assert _comparable(parallel) == _comparable(serial)
    assert [r.path for r in parallel] == paths


def test_few_files_run_in_process(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_bytes(b"foo()\n")

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started for one file")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    [result] = runner.process_files([str(tmp_path / "a.py")], settings_for, jobs=8)
    assert result.new_source == b"bar()\n"


def test_unified_diff_keeps_line_endings_and_encoding():
    old = "# -*- coding: latin-1 -*-\r\nx = foo('é')\r\n".encode("latin-1")
    new = "# -*- coding: latin-1 -*-\r\nx = bar('é')\r\n".encode("latin-1")
    diff = runner.unified_diff("p/a.py", old, new)
    assert diff.startswith("--- a/p/a.py\n+++ b/p/a.py\n")
    assert "-x = foo('é')\r\n+x = bar('é')\r\n" in diff


def test_unified_diff_marks_a_missing_final_newline():
    diff = runner.unified_diff("a.py", b"foo()", b"bar()")
    assert diff.endswith("-foo()\n\\ No newline at end of file\n+bar()\n\\ No newline at end of file\n")


def test_undecodable_source_is_shown_as_latin1():
    assert runner.decode(b"x = '\xff'\n") == "x = '\xff'\n"


def test_permission_denied_even_as_root(tmp_path, monkeypatch):
    """CI runs as root, where chmod 0 does not stop reads: simulate the kernel's refusal instead."""
    denied, ok = tmp_path / "denied.py", tmp_path / "ok.py"
    denied.write_bytes(b"foo()\n")
    ok.write_bytes(b"foo()\n")
    real_open = open

    def guarded_open(path, *args, **kwargs):
        if os.fspath(path) == str(denied):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", guarded_open)
    d, o = runner.process_files([str(denied), str(ok)], settings_for)
    assert d.error == "cannot read: Permission denied"
    assert o.error is None and o.new_source == b"bar()\n"


def test_a_run_without_the_rewrite_reports_what_the_rewrite_would_do():
    """--check and the machine formats skip the fixpoint: the same findings, the same files would change."""
    from dataclasses import replace
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    paths = [str(root / "golden" / case) for case in ("traced-if", "jit-in-loop")]
    config = Config(root=str(root), project=False)
    full = runner.run(paths, config, write=False, jobs=1)
    quick = runner.run(paths, config, write=False, jobs=1, rewrite=False)
    assert [f.to_dict() for r in quick.results for f in r.findings] == [f.to_dict() for r in full.results for f in r.findings]
    assert [r.path for r in quick.results if r.changed] == [r.path for r in full.results if r.changed]
    # (the run that shows no fix parses fewer files with libcst: those whose rules are all decided on `ast`)
    assert replace(quick.summary, libcst_parsed=0) == replace(full.summary, libcst_parsed=0) and full.summary.changed > 5
    assert quick.summary.libcst_parsed < full.summary.libcst_parsed
    assert all(r.new_source is None for r in quick.results)


def test_the_survey_lets_through_the_rules_the_engine_would(tmp_path):
    """One ast parse per file serves the index and the pre-filter (rewriter/survey.py): the rules it lets
    through are those the engine lets through, and a file changed since its survey is judged afresh."""
    from pathlib import Path

    from rewriter.engine import _candidates

    root = Path(__file__).resolve().parent.parent
    files = sorted(str(p) for d in ("traced-if", "functional-gradient") for p in (root / "golden" / d).glob("*.py"))
    files += [str(p) for p in sorted((root / "examples").glob("*.py"))]
    config = Config(root=str(root), project=True)
    index, first_pass = runner.surveyed_index(config, files, jobs=1)
    settings_for = runner.settings_for(config, original_positions=True, index=index)
    assert len(first_pass) == len(files)
    for path in files:
        source, surveyed = first_pass[os.path.realpath(path)]
        settings = settings_for(path)
        passed = surveyed.passed_with(settings.project)
        if not settings.project:
            assert passed == surveyed.first_pass, path
        if passed is not None:
            assert set(passed) == {c.CODE for c in _candidates(source, settings)}, path
    surveyed = runner.process_files(files, settings_for, jobs=1, first_pass=first_pass)
    alone = runner.process_files(files, settings_for, jobs=1)
    assert [[f.to_dict() for f in r.findings] for r in surveyed] == [[f.to_dict() for f in r.findings] for r in alone]
    assert [r.skipped for r in surveyed] == [r.skipped for r in alone] and any(r.skipped for r in alone)

    changed = tmp_path / "a.py"
    changed.write_text("x = 1\n")
    index, first_pass = runner.surveyed_index(Config(root=str(tmp_path)), [str(changed)], jobs=1)
    changed.write_text("import jax\n\n\ndef train(xs):\n    for x in xs:\n        step = jax.jit(lambda v: v + 1)\n        x = step(x)\n    return x\n")
    [result] = runner.process_files([str(changed)], runner.settings_for(Config(root=str(tmp_path)), index=index),
                                    first_pass=first_pass)
    assert first_pass[os.path.realpath(changed)][1].first_pass == () and result.findings  # judged on what it holds now


def _surveys_judged_again(tmp_path):
    """The project under `tmp_path` surveyed, and what each file's survey says given the facts of the
    others (`Survey.passed_with`, by file name; None: judged again), each answer checked against a
    fresh judgement with those facts. (The files, the surveys and the settings, for the processing.)"""
    from rewriter.engine import _candidates

    files = sorted(str(p) for p in tmp_path.glob("*.py"))
    config = Config(root=str(tmp_path), project=True)
    index, first_pass = runner.surveyed_index(config, files, jobs=1)
    settings_for = runner.settings_for(config, original_positions=True, index=index)
    decided = {}
    for path in files:
        source, surveyed = first_pass[os.path.realpath(path)]
        settings = settings_for(path)
        decided[os.path.basename(path)] = passed = surveyed.passed_with(settings.project)
        if passed is not None:
            assert set(passed) == {c.CODE for c in _candidates(source, settings)}, path
    return files, first_pass, settings_for, decided


def _processed_as_without_surveys(files, settings_for, first_pass):
    """The files processed with their surveys, whose findings are those processed without them."""
    results = runner.process_files(files, settings_for, jobs=1, first_pass=first_pass)
    alone = runner.process_files(files, settings_for, jobs=1)
    assert [[f.to_dict() for f in r.findings] for r in results] == [[f.to_dict() for f in r.findings] for r in alone]
    return results


def test_factories_elsewhere_are_judged_again_only_where_a_gate_reads_their_names(tmp_path):
    """A file given only factories by other modules keeps its survey's rules unless it calls one in a
    loop (or calls one for what it calls there): then it is judged again, and the retracing rule fires."""
    (tmp_path / "factory.py").write_text(
        "import jax\n\n\ndef make_step(scale):\n    return jax.jit(lambda x: x * scale)\n")
    (tmp_path / "unread.py").write_text(
        "import jax\nfrom factory import make_step\n\nstep = make_step(2.0)\n\n\n"
        "def run(x):\n    return jax.jit(lambda v: v + 1)(step(x))\n")
    (tmp_path / "looped.py").write_text(
        "import jax\nfrom factory import make_step\n\nfast_abs = jax.jit(abs)\n\n\n"
        "def run(xs):\n    out = []\n    for x in xs:\n        step = make_step(2.0)\n        out.append(step(x))\n    return out\n")
    files, first_pass, settings_for, decided = _surveys_judged_again(tmp_path)
    assert settings_for(str(tmp_path / "unread.py")).project.factories and decided["unread.py"] is not None
    assert decided["looped.py"] is None and first_pass[os.path.realpath(tmp_path / "looped.py")][1].factory_pass is not None
    results = _processed_as_without_surveys(files, settings_for, first_pass)
    assert "PML401" in {f.code for r in results for f in r.findings}


def test_no_collection_while_one_file_is_analysed_and_its_cycles_collected_after():
    import gc

    class Cycle:
        pass

    assert gc.isenabled()
    collected = []
    gc.callbacks.append(lambda phase, info: collected.append(info["generation"]) if phase == "stop" else None)
    try:
        with runner._one_file():
            assert not gc.isenabled()
            with runner._one_file():  # nested: the outer one decides
                assert not gc.isenabled()
            assert not gc.isenabled() and not collected
            a, b = Cycle(), Cycle()
            a.other, b.other = b, a
            witness = __import__("weakref").ref(a)
            del a, b
        assert gc.isenabled()
        assert collected == [0] and witness() is None  # one young collection found the file's cycle
    finally:
        gc.callbacks.pop()


def test_a_survey_leaves_no_cycle_that_holds_the_file_s_tree():
    """Without a cycle, a file's syntax tree is freed as soon as its survey returns: a collection
    after it (runner._one_file) need not traverse the tree. The pre-filter's traced analysis and the
    summary's reader each held one through a back-reference."""
    import ast
    import gc

    from rewriter.registry import all_codemods
    from rewriter.survey import survey

    source = b"""import jax
import jax.numpy as jnp
from functools import partial
N = 3
SIZES = (1, -2, [3, 4.5])

def helper(x, n):
    if n > 0:
        return x * n
    return x

@partial(jax.jit, static_argnums=(1,))
def step(x, n):
    y = helper(x, n)
    for i in range(N):
        y = y + i
    if y.sum() > 0:
        return jnp.zeros(3)
    return y

fast = jax.jit(helper, static_argnames=("n",))
"""
    gc.collect()
    gc.disable()
    try:
        found = survey(("m.py", source, list(all_codemods())))
        assert found.first_pass  # the walk and the traced analysis ran
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
    finally:
        gc.set_debug(0)
        gc.enable()
    left = list(gc.garbage)
    gc.garbage.clear()
    assert [o for o in left if isinstance(o, ast.AST)] == []
    assert left == []  # no cycle at all: ast.literal_eval's closures were one per literal read


def test_a_survey_sets_what_it_keeps_aside_without_a_collection():
    """A survey leaves no cycle (above): no young collection follows it, which would only traverse its
    summary and kept parse; they are frozen instead, and a run unfreezes the heap at its end."""
    import gc

    from rewriter.registry import all_codemods
    from rewriter.runner import _surveyed

    source = b"import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    _surveyed(("m.py", source, list(all_codemods())))  # (what it imports on first use, imported)
    gc.unfreeze()
    phases: list[str] = []
    gc.collect()
    frozen = gc.get_freeze_count()
    gc.callbacks.append(lambda phase, info: phases.append(phase))
    try:
        found = _surveyed(("m.py", source, list(all_codemods())))
        assert found.first_pass and phases == [] and gc.get_freeze_count() > frozen
    finally:
        gc.callbacks.pop()
        gc.unfreeze()


def test_processing_a_file_leaves_no_cycle_that_holds_its_tree():
    """Once a pass over a file is over, its libcst tree and the analysis of it are freed by reference
    counting (FileContext.release): a cycle through them (the scopes' bindings and reads, a rule that
    holds its own bound methods) left every tree to the collector's traversal, 0.43 of 0.45 CPU s of
    collection on the whole benchmark corpus. Every golden case, reported and fixed."""
    import gc
    from pathlib import Path

    import libcst as cst

    from rewriter.analysis import scope_model
    from rewriter.engine import process_source
    from rewriter.registry import all_codemods

    root = Path(__file__).resolve().parent.parent / "golden"
    paths = sorted(p for p in root.rglob("*.py") if not p.name.endswith(".expected.py"))
    assert len(paths) > 200
    kept = (cst.CSTNode, scope_model.Scope, scope_model.Access, scope_model.BaseAssignment)
    modes = [Settings(all_codemods(), unsafe_fixes=True), Settings(all_codemods(), apply_fixes=False, original_positions=True)]
    gc.collect()
    held: dict[str, list[str]] = {}
    for path in paths:
        for settings in modes:
            gc.disable()
            try:
                process_source(path.read_bytes(), str(path), settings)
                gc.set_debug(gc.DEBUG_SAVEALL)
                gc.collect(0)  # (what this file allocated: nothing was promoted while collections were off)
            finally:
                gc.set_debug(0)
                gc.enable()
            left = sorted({type(o).__name__ for o in gc.garbage if isinstance(o, kept)})
            gc.garbage.clear()
            if left:
                held[str(path.relative_to(root))] = left
    assert held == {}


def test_a_run_leaves_its_heap_uncollected_at_exit(tmp_path, monkeypatch):
    """CPython's last collection at exit would traverse the whole run's heap; a run freezes it at
    exit instead, registered once however many runs a process makes."""
    import atexit
    import gc

    registered = []
    monkeypatch.setattr(atexit, "register", lambda f, *a, **k: registered.append(f))
    monkeypatch.setattr(atexit, "unregister", lambda f: registered.remove(f) if f in registered else None)
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    for _ in range(2):
        runner.run([str(tmp_path)], Config(root=str(tmp_path)))
    assert registered == [gc.freeze]


def test_the_index_is_out_of_the_collectors_reach_while_files_are_processed(tmp_path, monkeypatch):
    """The surveys and the index come back from the workers into the young generations; frozen while
    the files are processed, no collection traverses them, and the heap is unfrozen after the run."""
    import gc

    (tmp_path / "a.py").write_bytes(b"import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n")
    frozen = []
    process_files = runner.process_files

    def watched(*args, **kwargs):
        frozen.append(gc.get_freeze_count())
        return process_files(*args, **kwargs)

    monkeypatch.setattr(runner, "process_files", watched)
    report = runner.run([str(tmp_path)], Config(root=str(tmp_path)))
    assert [f.code for r in report.results for f in r.findings] == ["PML201"]
    assert frozen[0] > 0 and gc.get_freeze_count() == 0


def test_a_run_reads_each_file_once_and_processes_the_bytes_its_index_read(tmp_path, monkeypatch):
    """The index's build reads every file of the project; the processing takes those bytes instead of
    reading the files again (a warm run over 1,466 files read each twice), and so analyses what was
    summarized. A file the build could not read is read, and reported, where it is processed."""
    import builtins

    (tmp_path / "a.py").write_bytes(b"import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n")
    (tmp_path / "b.py").write_bytes(b"def g(y):\n    return y\n")
    opened: list[str] = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda file, *a, **k: opened.append(os.fspath(file)) or real_open(file, *a, **k))
    report = runner.run([str(tmp_path)], Config(root=str(tmp_path)))
    assert [f.code for r in report.results for f in r.findings] == ["PML201"]
    python_files = [path for path in opened if path.endswith(".py")]
    assert sorted(python_files) == sorted({str(tmp_path / "a.py"), str(tmp_path / "b.py")}), opened
    # A run over one file of the project: the index reads them all; the bytes kept for the processing
    # are that file's alone.
    held: list[dict] = []
    process_files = runner.process_files
    monkeypatch.setattr(runner, "process_files", lambda *a, **k: held.append(dict(k["sources"])) or process_files(*a, **k))
    runner.run([str(tmp_path / "a.py")], Config(root=str(tmp_path)))
    assert list(held[0]) == [os.path.realpath(tmp_path / "a.py")]


def test_a_file_without_any_gated_rules_words_is_judged_again_for_factories_only_where_it_calls_one_in_a_loop(tmp_path):
    """A file none of whose words a gated rule has is not walked in the survey; factories of other modules
    enable the retracing and jit-in-loop rules there without words. The survey asks those rules' gates
    (at once: no read spells a jit API) and reads `factory_sensitive` off the summary's walk, so such a
    file is judged again only where it calls a factory's product in a loop, as a walked file is."""
    from rewriter.engine import TriggerWords
    from rewriter.prefilter import has_gate
    from rewriter.registry import all_codemods

    (tmp_path / "factory.py").write_text(
        "import jax\n\n\ndef make_step(scale):\n    return jax.jit(lambda x: x * scale)\n")
    (tmp_path / "plain.py").write_text(
        "from factory import make_step\n\nstep = make_step(2.0)\n\n\ndef run(x):\n    return step(x)\n")
    (tmp_path / "looped.py").write_text(
        "from factory import make_step\n\n\ndef run(xs):\n    out = []\n    for x in xs:\n"
        "        step = make_step(2.0)\n        out.append(step(x))\n    return out\n")
    gated = [c for c in all_codemods() if has_gate(c)]
    for name in ("plain.py", "looped.py"):
        assert not TriggerWords((tmp_path / name).read_bytes()).any_wanted(gated), name
    files, first_pass, settings_for, decided = _surveys_judged_again(tmp_path)
    assert settings_for(str(tmp_path / "plain.py")).project.factories and decided["plain.py"] == ()
    assert decided["looped.py"] is None
    results = _processed_as_without_surveys(files, settings_for, first_pass)
    assert [f.code for r in results if r.path.endswith("looped.py") for f in r.findings] == ["PML401"]

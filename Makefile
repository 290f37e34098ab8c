# Every target does its own set-up: `make demo` and `make test` work from a fresh clone.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export TF_CPP_MIN_LOG_LEVEL := 3
export OMP_NUM_THREADS := 1

.PHONY: install demo test test-libcst-newest check lint types accept-snapshots accept-real-code bench fuzz clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned resolve pulls gigabytes of CUDA wheels.
	$(BIN)/pip install --quiet "torch==2.13.0"
	$(BIN)/pip install --quiet -e ".[backends,notebooks,dev]"
	touch $(STAMP)

# The package as users install it: a wheel, whose hot modules are compiled (rewriter/_build.py), in a
# venv of its own with the versions of its dependencies that .venv has. `make bench` measures it and
# tests/test_compiled.py holds it to the checkout's output; rebuilt when the sources change.
WHEEL_VENV := .venv-wheel
WHEEL_STAMP := $(WHEEL_VENV)/.installed
SOURCES := $(shell find rewriter codemods -name '*.py')

$(WHEEL_STAMP): $(STAMP) pyproject.toml $(SOURCES)
	test -x $(WHEEL_VENV)/bin/python || $(PY) -m venv $(WHEEL_VENV)
	# (build/lib holds what earlier builds staged, modules since removed or no longer compiled among them)
	rm -rf $(WHEEL_VENV)/dist build/lib.* build/bdist.*
	$(BIN)/pip wheel --quiet --no-deps -w $(WHEEL_VENV)/dist .
	$(BIN)/pip freeze --exclude-editable > $(WHEEL_VENV)/constraints.txt
	$(WHEEL_VENV)/bin/pip install --quiet -c $(WHEEL_VENV)/constraints.txt $(WHEEL_VENV)/dist/*.whl
	$(WHEEL_VENV)/bin/pip install --quiet --force-reinstall --no-deps $(WHEEL_VENV)/dist/*.whl
	touch $(WHEEL_STAMP)

# Findings and the diff phiml-rewrite would apply to examples/ (writes nothing; exit 1 = findings).
demo: $(STAMP)
	$(BIN)/phiml-rewrite --no-progress --unsafe-fixes examples; test $$? -le 1
	# exit 3 = the rewrite agrees where compared; functions of the other examples are not called by this program.
	$(BIN)/phiml-rewrite verify examples --unsafe-fixes --run "python examples/phiml_diffusion.py"; test $$? -eq 0 -o $$? -eq 3
	# Without a program: each changed function on inputs synthesized from its call sites, values flowing in and
	# annotations, and changed tests run as written (exit 3 = the rest has no inputs to draw: jit assignments, notebooks...).
	$(BIN)/phiml-rewrite verify examples --unsafe-fixes --max-examples 30 --budget 10; test $$? -eq 0 -o $$? -eq 3
	# A notebook runs itself in a Jupyter kernel: the original fails on jax and tensorflow (PML201), the rewrite agrees.
	$(BIN)/phiml-rewrite verify examples/phiml_notebook.ipynb --unsafe-fixes
	# Re-tracing, measured by running the programs (exit 1 = some function re-traces, as it should here).
	# torch: the only backend on which the original PhiML demo runs to the end (PML201 breaks jax and tensorflow).
	$(BIN)/phiml-rewrite profile --backend torch -- python examples/phiml_diffusion.py torch; test $$? -le 1
	$(BIN)/phiml-rewrite profile -- python examples/jax_training.py; test $$? -le 1

# --dist loadgroup: every batch of golden executions (tests/harness/golden_batches.py) runs on one worker.
test: $(STAMP) $(WHEEL_STAMP) lint types
	$(BIN)/python -m pytest -n 2 --dist loadgroup tests

# pyproject.toml bounds libcst to the releases `make test` has run on. This runs the quick suite against
# libcst's newest release, whatever the bound, installed beside the venv's own (CI runs it after `make
# test`): when it passes on a release past the bound, raise the bound.
LIBCST_NEWEST := $(VENV)/libcst-newest
test-libcst-newest: $(STAMP)
	rm -rf $(LIBCST_NEWEST)
	$(BIN)/pip install --quiet --no-deps --target $(LIBCST_NEWEST) libcst
	PYTHONPATH=$(LIBCST_NEWEST) $(BIN)/python -c "import importlib.metadata as m, libcst; print('libcst', m.version('libcst'), 'from', libcst.__file__)"
	PYTHONPATH=$(LIBCST_NEWEST) PHIML_FUZZ_EXAMPLES=20 $(BIN)/python -m pytest -n 2 -q -m "not backends and not slow and not lsp" tests

lint: $(STAMP)
	$(BIN)/ruff check rewriter codemods tests benchmarks

# mypy, at the strictness each module passes (pyproject.toml, [tool.mypy]).
types: $(STAMP)
	$(BIN)/mypy

# The quick inner loop: every test that runs no program on a backend, starts no language server and
# is not marked slow, with fewer fuzzing examples. `make test` runs everything.
check: $(STAMP) lint types
	PHIML_FUZZ_EXAMPLES=20 $(BIN)/python -m pytest -n 2 -q -m "not backends and not slow and not lsp" tests

# After a reviewed change of what the rules say: rewrite the golden cases' snapshots (golden/**/*.snap)
# that differ; `git diff golden/` shows what changed (tests/harness/snapshots.py).
accept-snapshots: $(STAMP)
	$(BIN)/python -m tests.harness.snapshots --accept

# After a change of the rules: rewrite tests/real_code_expectations.json from a fresh real-code run,
# keeping the verdicts of findings still there; new ones say "unreviewed" (and fail) until a person
# writes "correct" or "false-positive (accepted: <why>)" (docs/hardening.md).
accept-real-code: $(STAMP)
	$(BIN)/python -m tests.harness.real_code --accept

# The fuzzing of tests/test_fuzz.py at length (CI runs 80 examples per strategy): generated programs
# and mutated golden cases must not crash the tool, must give code that parses, a second run must
# change nothing, and files without findings must stay byte-identical.
FUZZ_EXAMPLES ?= 3000
fuzz: $(STAMP)
	PHIML_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -n 2 tests/test_fuzz.py --hypothesis-show-statistics

# fixit, the linter the throughput benchmark compares with, gets a venv of its own: it pins an older
# click than phiml-rewrite's.
FIXIT_VENV := .venv-fixit
bench: $(STAMP) $(WHEEL_STAMP)
	test -x $(FIXIT_VENV)/bin/fixit || ($(PY) -m venv $(FIXIT_VENV) && $(FIXIT_VENV)/bin/pip install --quiet "fixit==2.2.1")
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(FIXIT_VENV) $(WHEEL_VENV) .pytest_cache build *.egg-info

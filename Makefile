# Quick start: `make demo` runs the audit on the embedded sandbox; `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

NOTEBOOKS_STAMP := $(VENV)/.notebooks-installed

.PHONY: demo test test-unit test-browser test-apart test-in-browser test-waiting explore docs docs-serve lint typecheck fmt bench serve clean constraints lab notebook-state

# The environment: pip installs uv (one binary wheel, pinned in constraints.txt), and uv the
# pinned set, pip itself upgraded for the packaging tests (they install a wheel as a user's
# pip would). In a new venv on this two-core machine (2026-12-06), pip alone took 70 s and
# this takes 13 s, on the longest path of a fresh clone's `make test` (both streams wait for
# it). uv compiles no bytecode: the tests keep theirs under .venv/pycache anyway (below).
$(STAMP): pyproject.toml constraints.txt lyt_toolkit/_version.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c constraints.txt uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c constraints.txt \
	  --upgrade-package pip -e '.[test,docs]' pip
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/lyt demo

# Two streams at once. One: ruff and the unasync check (seconds), then the unit tests on
# two workers (shown as they run): the longest part, started as soon as it can be. The
# other: the fuzzed documents, the packaging tests and the notebooks through nbval beside the
# browser tests (one JupyterLab, one Chromium) and the tests that wait on the clock (WAITING);
# mostly waiting on installs, kernels, pages and windows, it fills what the first leaves idle
# and ends before it. Two workers, not three: the run is mostly
# CPU-bound (both cores busy from first test to last), and a third worker's start-up and
# contention cost CPU that the two streams' tests would use (fresh clones of the same tests,
# 2026-12-07: three workers 13:44 and 1,377 s of CPU, two 13:28 and 1,220 s, then 14:34
# and 1,334 s: clones spread by a minute, so one sample each says little of the wall time;
# on 2026-12-04, when the machine still had idle to fill, three had been the faster). The
# second stream's output
# is kept in $(BROWSER_LOG) and shown when both streams are done; either failing fails
# `make test`. The checks that are not tests (mypy, the import contracts' own run, the
# site's strict build) are `make lint` and `make docs`, which CI runs after `make test`
# (.ci/run): in `make test` until 2026-12-07 they took about 160 s of the two cores' CPU
# from the unit tests, the longest path (a fresh clone's `make test` 16:08, 1,665 s CPU).
BROWSER_LOG := $(VENV)/test-browser.log

# The tests keep compiled modules, and pytest its rewritten test modules, under
# .venv/pycache whatever the environment says (not beside the sources: no machine path
# lands in the working tree): else every one of the suite's Python
# processes (the workers, the CLI and apply subprocesses, kernels) compiles every module
# again, about half of each worker's collection. Only nbval's run loads the nbval plugin (its
# schema checks import a grammar library that takes seconds).
# Only the fuzz run loads schemathesis' plugin (about 0.9 s of CPU in each process that
# loads it, most of it at collection; measured 2026-12-06).
test test-unit test-browser test-apart test-in-browser test-waiting: export PYTHONDONTWRITEBYTECODE :=
test test-unit test-browser test-apart test-in-browser test-waiting: export PYTHONPYCACHEPREFIX := $(abspath $(VENV))/pycache
NO_NBVAL := -p no:nbval
NO_FUZZ := -p no:schemathesis

# Schemathesis gives every operation of a fuzzed document the same test ID, and xdist keeps
# one test per ID: on the workers, all but one operation would silently not run. These files
# run whole in the second stream instead (tests/conftest.py refuses repeated IDs on a worker).
FUZZ := tests/sandbox/test_fuzz.py tests/sandbox/test_hostile_reference_fuzz.py
# The packaging tests build the wheel and install it twice (pip, as a user would; then uv, at
# the dependencies' lower bounds, where a copy of the tests runs): about two minutes of one
# process. With pip for the lower bounds too they took 85 s of CPU and 5:16, against 51 s and
# 1:46 (loaded machine, 2026-12-07). They run in the second stream too, which otherwise
# mostly waits on kernels and pages.
PACKAGING := tests/packaging
# The tests that mostly wait on the clock (a budget window's reset, a client's timeout, a
# delay fault) rather than compute, marked `pytest.mark.waits` (a whole file by its
# `pytestmark`; spelled so, this finds them): in the per-test profile of the unit run
# (2026-12-07, CPU against wall) 237 s of the two workers' 1,528 s of wall but 40 s of their
# CPU in 13 files, about 30 s more in 11 tests of other files. On a worker their waits hold
# up the files queued behind them while the machine has CPU to spare; they run in a third
# process of the second stream instead (test-waiting), beside the others (fresh clones of the
# same tests, 2026-12-07: 14:59 with the 13 files there, 16:33 with them on the workers; one
# sample each). The unit run deselects them (`-m "not waits"`).
WAITING := $(shell grep -rlE --include='test_*.py' 'pytest\.mark\.waits' tests)

test: $(STAMP)
	@rm -f $(BROWSER_LOG)
	$(MAKE) --no-print-directory -j4 test-browser test-unit; status=$$?; \
	  echo "--- test-apart, test-in-browser and test-waiting ($(BROWSER_LOG)):"; cat $(BROWSER_LOG); exit $$status

test-unit: $(STAMP)
	$(BIN)/ruff check lyt_toolkit tests benchmarks docs/_hooks scripts
	$(BIN)/python scripts/unasync.py --check
	$(BIN)/pytest $(NO_NBVAL) $(NO_FUZZ) -n 2 --dist loadfile tests --ignore=tests/browser \
	  $(FUZZ:%=--ignore=%) --ignore=$(PACKAGING) -m "not waits"

# Three runs beside each other (on the job slots `make -j4` leaves free; one after the other
# without -j): test-apart (the fuzzed documents (FUZZ) and the packaging tests, then nbval),
# test-in-browser and test-waiting (WAITING). The browser tests mostly wait on kernels and
# pages (55 % of a core when run alone); until 2026-12-06 they ran after the packaging tests
# and before nbval: the
# three pytest runs took 8:00 one after the other and 5:00 this way, with the same CPU time
# (264 s, 256 s; back to back, the machine loaded by other runs). Each run keeps a pytest
# cache of its own: the unit tests' run writes the default one.
test-browser: $(STAMP)
	$(MAKE) --no-print-directory --output-sync=target test-apart test-in-browser test-waiting \
	  > $(BROWSER_LOG) 2>&1

test-apart: $(STAMP)
	$(BIN)/pytest $(NO_NBVAL) $(FUZZ) $(PACKAGING) -o cache_dir=.pytest_cache/apart
	$(BIN)/pytest $(NO_FUZZ) --nbval --nbval-current-env notebooks \
	  --nbval-sanitize-with notebooks/sanitize.cfg -p no:randomly -o cache_dir=.pytest_cache/apart

test-waiting: $(STAMP)
	$(BIN)/pytest $(NO_NBVAL) $(NO_FUZZ) -m waits $(WAITING) -o cache_dir=.pytest_cache/waiting

test-in-browser: $(STAMP)
	$(BIN)/pytest $(NO_NBVAL) $(NO_FUZZ) tests/browser -p no:randomly \
	  -o cache_dir=.pytest_cache/browser

# The property tests (Hypothesis) with new examples each run: `make test` tries the same
# ones every time (tests/conftest.py). RUNS=N runs them N times.
RUNS ?= 1
PROPERTY_TESTS = $(shell grep -rl --include='test_*.py' '@given' tests)
explore: $(STAMP)
	for run in $$(seq $(RUNS)); do \
	  $(BIN)/pytest -n 2 -q --hypothesis-profile explore $(PROPERTY_TESTS) && \
	  $(BIN)/pytest -q --hypothesis-profile explore $(FUZZ) || exit 1; \
	done

# The site (docs/, mkdocs.yml) into site/, every warning an error: broken links and
# references, a public name missing from the reference (docs/_hooks/hooks.py).
DOCS_ENV := DISABLE_MKDOCS_2_WARNING=true NO_MKDOCS_2_WARNING=1
docs: $(STAMP)
	$(DOCS_ENV) $(BIN)/mkdocs build --strict

docs-serve: $(STAMP)
	$(DOCS_ENV) $(BIN)/mkdocs serve

# JupyterLab in the project's environment, the notebooks trusted (their stored widgets show).
# As root, add LAB_ARGS=--allow-root.
LAB_ARGS ?=
$(NOTEBOOKS_STAMP): $(STAMP)
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c constraints.txt -e '.[notebooks]'
	touch $(NOTEBOOKS_STAMP)

lab: $(NOTEBOOKS_STAMP)
	$(BIN)/jupyter trust notebooks/*.ipynb
	$(BIN)/jupyter lab $(LAB_ARGS) notebooks/

# Re-execute the notebooks in place and store their widget state (tests/browser/notebook_state.py).
notebook-state: $(STAMP)
	$(BIN)/python tests/browser/notebook_state.py notebooks/*.ipynb

# scripts/unasync.py --check: each sync class generated from its async twin is up to date.
lint: $(STAMP)
	$(BIN)/ruff check lyt_toolkit tests benchmarks docs/_hooks scripts
	$(BIN)/ruff format --check lyt_toolkit tests benchmarks docs/_hooks scripts
	$(BIN)/python scripts/unasync.py --check
	$(MAKE) typecheck

# mypy checks the package and the tests ([tool.mypy] in pyproject.toml): the tests' shared
# helpers and every test file, so a shared helper's changed signature fails here, not in a
# full test run. Cold, as on CI's clean clone, on the loaded two-core machine (2026-12-06):
# 47-49 s of CPU, against 38-40 s when 64 test files were left out. Then the benchmarks, a
# run of their own: they are scripts that import each other by name (MYPYPATH), and some
# of those names are test packages' (economics, pull); on the first run's cache, 2 s more.
typecheck: $(STAMP)
	$(BIN)/mypy
	MYPYPATH=benchmarks $(BIN)/mypy benchmarks
	$(BIN)/lint-imports --no-cache

fmt: $(STAMP)
	$(BIN)/ruff format lyt_toolkit tests benchmarks docs/_hooks scripts
	$(BIN)/ruff check --fix lyt_toolkit tests benchmarks docs/_hooks scripts

bench: $(STAMP)
	$(BIN)/python benchmarks/sandbox_pagination.py
	$(BIN)/python benchmarks/sandbox_requests.py
	$(BIN)/python benchmarks/pull.py
	$(BIN)/python benchmarks/bulk.py
	$(BIN)/python benchmarks/quota.py
	$(BIN)/python benchmarks/diff.py
	$(BIN)/python benchmarks/economics.py
	$(BIN)/python benchmarks/plan.py
	$(BIN)/python benchmarks/rehearsal.py
	$(BIN)/python benchmarks/edited_csv.py
	$(BIN)/python benchmarks/scale.py load
	$(BIN)/python benchmarks/startup.py

serve: $(STAMP)
	$(BIN)/lyt sandbox serve

# Rewrite constraints.txt from what the project's environment holds now (after changing
# a dependency in pyproject.toml: install it into .venv, check, then run this).
constraints: $(STAMP)
	{ head -n 2 constraints.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -v -i '^lyt'; } > constraints.tmp
	mv constraints.tmp constraints.txt

clean:
	rm -rf $(VENV) site reports .pytest_cache .ruff_cache tests/browser/screenshots

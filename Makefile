# Quick start: `make demo` runs the audit on the embedded sandbox; `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck fmt bench serve clean constraints

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/lyt demo

test: $(STAMP)
	$(BIN)/ruff check lyt_toolkit tests benchmarks
	$(MAKE) typecheck
	$(BIN)/pytest -n 2 --dist loadfile tests
	$(BIN)/pytest --nbval --nbval-current-env notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:randomly

lint: $(STAMP)
	$(BIN)/ruff check lyt_toolkit tests benchmarks
	$(BIN)/ruff format --check lyt_toolkit tests benchmarks
	$(MAKE) typecheck

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

fmt: $(STAMP)
	$(BIN)/ruff format lyt_toolkit tests benchmarks
	$(BIN)/ruff check --fix lyt_toolkit tests benchmarks

bench: $(STAMP)
	$(BIN)/python benchmarks/sandbox_pagination.py
	$(BIN)/python benchmarks/pull.py
	$(BIN)/python benchmarks/bulk.py
	$(BIN)/python benchmarks/quota.py
	$(BIN)/python benchmarks/diff.py

serve: $(STAMP)
	$(BIN)/lyt sandbox serve

# Rewrite constraints.txt from what the project's environment holds now (after changing
# a dependency in pyproject.toml: install it into .venv, check, then run this).
constraints: $(STAMP)
	{ head -n 2 constraints.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -v -i '^lyt'; } > constraints.tmp
	mv constraints.tmp constraints.txt

clean:
	rm -rf $(VENV) reports .pytest_cache .ruff_cache

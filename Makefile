# The two set-up commands of the README: `make demo` runs the main job, `make test` the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench

$(BIN)/codedesk: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/codedesk
	$(BIN)/codedesk demo

lint: $(BIN)/codedesk
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

bench: $(BIN)/codedesk
	$(BIN)/python bench/job_overhead.py

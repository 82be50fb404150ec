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

# Three pytest processes, each with its own dev server: the suite mostly waits (on Temporal, git,
# subprocesses), so with two it kept two cores half busy (36 CPU-minutes in a 35-minute run);
# three share them better. A file's tests stay in one process (--dist loadfile): its session
# fixtures (the big crash templates, the agent installs) are made once.
TEST_WORKERS ?= 3

# The 30 slowest tests are listed at the end: where the suite's time goes (docs/development.md).
test: lint
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --durations=30

# Every bench script in bench/ (but its helpers, the floor program and the profiler) writes its JSON to bench/results/; then the
# table of docs/performance.md is made from those files.
BENCHES := $(filter-out common floor report profile_job,$(basename $(notdir $(wildcard bench/*.py))))

bench: $(BIN)/codedesk
	mkdir -p bench/results
	for name in $(BENCHES); do \
		$(BIN)/python bench/$$name.py --out bench/results/$$name.json || exit 1; \
	done
	$(BIN)/python bench/report.py docs/performance.md

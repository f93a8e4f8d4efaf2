# The two commands of the README: `make run` (run the bot) and `make test` (run the tests).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Four test processes on two cores: the end-to-end tests wait on the sandbox and the bot's
# child processes as much as they compute; worksteal evens out the long ones at the end.
PYTEST_ARGS ?= -n 4 --dist worksteal

.PHONY: run test lint demo bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[sandbox,dev,postgres]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot run $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict adapters rulebase bot cogs db games sandbox playtest bench migrations tests conftest.py
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

demo: $(STAMP)
	$(BIN)/python -m bot demo

bench: $(STAMP)
	$(BIN)/python -m bench load

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

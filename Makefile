# The two commands of the README: `make demo` and `make test`. Both install into .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install demo test lint bubblewrap
install: $(VENV)/.installed

# Agents' commands run in a bubblewrap sandbox (cursorish/core/sandbox.py): install it where we
# can (root with apt, e.g. a fresh CI machine), else say how; there is no silent fallback.
bubblewrap:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (the sandbox of agents' commands)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap; \
	  else \
	    echo "cursorish needs bubblewrap for its command sandbox:" \
	      "sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)" >&2; \
	    exit 1; \
	  fi; }

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

demo: install bubblewrap
	$(BIN)/cursorish demo

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint bubblewrap
	$(BIN)/python -m pytest

# The single entry point for building, previewing and testing the guide.
# README.md, .ci/run, the contributing pages and the CI workflows call these targets.

PYTHON    ?= python3
VENV      ?= .venv
BUILDDIR  ?= _build
SPHINXOPTS ?=
BIN       := $(VENV)/bin
LAB_VENV  ?= .venv-lab
SPHINX    := $(BIN)/python -m sphinx
# conf.py lives at the repository root; the pages live in docs/.
SPHINXFLAGS := -c . -W --keep-going -n $(SPHINXOPTS)

.DEFAULT_GOAL := help
.PHONY: help venv html serve test lint lab clean bench check-commands sglang-drift flag-history linkcheck

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

# The virtual environment is rebuilt when it is missing or older than a requirements file.
$(BIN)/.installed: requirements.txt requirements-pinned.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "The pins resolve on Python 3.11; $(PYTHON) is " + sys.version.split()[0] + ". Run: make PYTHON=python3.11 ...")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-pinned.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .  # the checker, speccheck/ (pyproject.toml)
	touch $@

venv: $(BIN)/.installed ## Create or refresh .venv from the pinned requirements.

html: $(BIN)/.installed ## Build the site into _build/html (warnings are errors).
	@mkdir -p $(BUILDDIR)
	$(SPHINX) -b html $(SPHINXFLAGS) -w $(BUILDDIR)/html-warnings.log docs $(BUILDDIR)/html

serve: $(BIN)/.installed ## Live-reloading preview on http://127.0.0.1:8000.
	$(BIN)/sphinx-autobuild -c . --host 127.0.0.1 --port 8000 docs $(BUILDDIR)/serve

test: html ## Build the site if needed, then run the whole test suite.
	BUILDDIR=$(BUILDDIR) $(BIN)/python -m pytest tests

# Needs a network, so it is not part of `make test`; ignores are listed and explained in conf.py.
# Notebooks are not executed: links in their outputs are not checked.
linkcheck: $(BIN)/.installed ## Check every external link with Sphinx's linkcheck (needs a network).
	$(SPHINX) -b linkcheck -c . -n --keep-going -D nbsphinx_execute=never $(SPHINXOPTS) docs $(BUILDDIR)/linkcheck

lint: $(BIN)/.installed ## Run the pre-commit hooks (.pre-commit-config.yaml) on every tracked file.
	$(BIN)/pre-commit run --all-files --show-diff-on-failure

# JupyterLab lives in its own environment (requirements-lab.txt): the build never
# installs or imports it. The lab's "python3" kernel is the build environment's
# Python, so a notebook runs in the lab exactly as it runs in the build.
$(LAB_VENV)/bin/.installed: requirements-lab.txt $(BIN)/.installed
	$(PYTHON) -m venv $(LAB_VENV)
	$(LAB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LAB_VENV)/bin/python -m pip install --quiet -r requirements-lab.txt
	JUPYTER_PATH=$(abspath $(LAB_VENV))/share/jupyter $(BIN)/python -m ipykernel install \
	  --prefix $(abspath $(LAB_VENV)) --name python3 --display-name "Python 3 (the guide's $(VENV))"
	touch $@

lab: $(LAB_VENV)/bin/.installed ## Open the notebooks in JupyterLab (installed on first use into .venv-lab).
	JUPYTER_PATH=$(abspath $(LAB_VENV))/share/jupyter $(LAB_VENV)/bin/jupyter lab docs

bench: $(BIN)/.installed ## Measure build times, notebook times and page weight against the budgets (LIGHTHOUSE=1 adds Lighthouse).
	$(BIN)/python tools/bench.py --html $(BUILDDIR)/html --out $(BUILDDIR)/bench.json $(if $(LIGHTHOUSE),--lighthouse)

# `make check-commands FILE...` (or PAGES=...): the file names after the target are checked, not built.
CHECK_FILES := $(filter-out check-commands,$(if $(filter check-commands,$(MAKECMDGOALS)),$(MAKECMDGOALS)))
check-commands: $(BIN)/.installed ## Check commands in FILE... (Markdown, notebooks, shell; docs/ by default); STRICT=1 fails on warnings.
	$(BIN)/python tools/check_commands.py $(if $(STRICT),--strict) $(or $(CHECK_FILES),$(PAGES),docs)

FROM ?= 0.5.14
TO   ?= $(shell sed -n 's/^sglang==//p' requirements-pinned.txt)
sglang-drift: $(BIN)/.installed ## Compare the speculative flags of two SGLang releases (FROM=0.5.14 TO=pinned); writes docs/_data.
	$(BIN)/python tools/sglang_drift.py --from $(FROM) --to $(TO) --cache $(BUILDDIR)/sglang-releases \
	  --json docs/_data/sglang-drift-$(FROM)-$(TO).json

# Downloads every SGLang wheel from 0.4.0 to the pin once (pip download --no-deps) into the cache; never run by a build.
flag-history: $(BIN)/.installed ## Regenerate speccheck/data/flag-history.json from every SGLang release's parser.
	$(BIN)/python tools/flag_history.py --cache $(BUILDDIR)/sglang-wheels --out speccheck/data/flag-history.json

clean: ## Remove build outputs (keeps .venv).
	rm -rf $(BUILDDIR) .pytest_cache

# The files named after `make check-commands` are its arguments, not targets.
ifneq ($(filter check-commands,$(MAKECMDGOALS)),)
.PHONY: $(CHECK_FILES)
$(CHECK_FILES):
	@:
endif

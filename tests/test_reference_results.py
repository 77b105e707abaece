"""The published history: for each machine in results/, the curated matrix and the newest
environment's whole suite at one commit, with no failed cell and no series of an earlier suite;
the post's table renders from it, and html/ was published from it."""

import json
import os
import re
import subprocess
import sys

import pytest
from asv.results import iter_results_for_machine

from dsib_tools import chains, matrix
from dsib_tools.publish import REFERENCE_MACHINE, published_machines

from .conftest import ROOT, committed, documentation
from .results_copy import current_benchmarks

MACHINE = REFERENCE_MACHINE
RESULTS = committed("results")
# What a machine's whole-suite run was recorded without, by a decision (`make record LEAVE_OUT=`):
# on xeon-m207-2c-24g, the servers' memory cases ran under series 4's label with commit 60e20e8's
# sampler (asv takes the benchmarks from the clone and the measured package from the commit);
# records/matrix-runs/README.md tells it.
LEFT_OUT = {"xeon-m207-2c-24g": r"\.track_server_added_"}


def curated_at(commit):
    """asv.conf.json as it was at ``commit``: the curated matrix the history at that commit ran."""
    return json.loads(
        subprocess.run(
            ["git", "show", commit + ":" + matrix.CURATED_CONFIG],
            cwd=ROOT,
            check=True,
            stdout=subprocess.PIPE,
            universal_newlines=True,
        ).stdout
    )


def _published_profile(res):
    return (res.env_vars or {}).get("DSIB_PROFILE") == "default"


def whole_suite_run(machine):
    """The newest environment's run of ``machine`` at the published scale: the one `make bench` makes,
    the newest environment of the curated matrix at the run's commit."""

    def whole(res):
        entry = matrix.newest(curated_at(res.commit_hash)["include"])
        same = all(res.params.get(k) == v for k, v in dict(entry["req"], python=entry["python"]).items())
        return same and not chains.keeps_freed_memory(res.env_vars)  # glibc's defaults, as make bench runs

    runs = [r for r in iter_results_for_machine(RESULTS, machine) if _published_profile(r) and whole(r)]
    assert runs, "machine %s has no run of the newest environment of its commit's matrix" % machine
    return max(runs, key=lambda r: r.date or 0)


def _environments_run(machine):
    """The environments of ``machine``'s matrix at the commit of its whole-suite run, and the whole
    suite's own where it is none of them (glibc's defaults beside a matrix that keeps freed memory)."""
    whole = whole_suite_run(machine)
    include = curated_at(whole.commit_hash)["include"]
    return len(include) + (not any(chains.ran_in(e, whole.params, whole.env_vars or {}) for e in include))


def test_the_reference_machine_is_published():
    assert published_machines(RESULTS)[0] == MACHINE


def test_committed_results_render_the_full_table():
    table = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "table",
            "post",
            "--machine",
            MACHINE,
            "--env",
            "DSIB_PROFILEdefault",
            "--with-2019",
            "--results-dir",
            RESULTS,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert table.returncode == 0, table.stderr
    assert "profile `default` (1,000,000 rows per month)" in table.stdout
    assert "commit `%s`" % whole_suite_run(MACHINE).commit_hash[:8] in table.stdout
    rows = [line for line in table.stdout.splitlines() if line.startswith("| ") and "Benchmark" not in line]
    assert len(rows) == 7
    for row in rows:
        assert "failed" not in row and "skipped" not in row and "n/a" not in row, row
        for measured in row.split("|")[2:4]:  # Parquet, CSV: a median, its spread and sample count
            assert re.search(r"\(IQR \S+–\S+, n=([2-9]|\d\d+)\)$|\(one sample\)$", measured.strip()), row
    assert "pyarrow26.0.1" in table.stdout, "of a release matrix, the table shows the newest releases"
    readme = documentation()
    assert (
        "<!-- generated: table post --results-dir results --machine %s --env DSIB_PROFILEdefault --with-2019 -->"
        % MACHINE
        in readme
    ), "the README shows this table, generated (test_readme keeps it equal)"


def test_committed_site_was_published_from_the_committed_results():
    with open(committed("html/index.json")) as f:
        index = json.load(f)
    environments = set(
        (machine, res.env_name, (res.env_vars or {}).get("DSIB_PROFILE"))
        for machine in published_machines(RESULTS)
        for res in iter_results_for_machine(RESULTS, machine)
    )
    published = [e for e in environments if e[2] == "default"]
    ran = sum(_environments_run(m) for m in published_machines(RESULTS))
    assert len(published) == ran, "each machine's matrix at the commit of its whole-suite run, and that run"
    assert index["params"]["machine"] == published_machines(RESULTS), "the reference machine first"
    assert index["params"]["env-DSIB_PROFILE"] == ["default"], (
        "asv's graphs hold the published scale only: its summaries would join two scales in one line"
    )
    suite, machines = set(current_benchmarks(RESULTS)), published_machines(RESULTS)
    left_out = set(b for b in suite if all(re.search(LEFT_OUT.get(m, "^$"), b) for m in machines))
    assert suite - left_out == set(index["benchmarks"]), "all but what every machine left out"
    assert len(index["graph_param_list"]) == len(published), (
        "every environment of every published machine is in asv's graphs"
    )
    assert os.path.exists(committed("html/index.html"))


@pytest.mark.parametrize("machine", published_machines(RESULTS))
def test_each_machine_has_the_curated_matrix_and_the_whole_suite_at_one_commit(machine, tmp_path):
    """Every environment of asv.conf.json at the commit of the machine's whole-suite run ran at that
    commit, with no failed cell (asv's null); the newest environment ran every benchmark of
    benchmarks.json."""
    benchmarks = current_benchmarks(RESULTS)
    whole = whole_suite_run(machine)
    left_out = set(b for b in benchmarks if machine in LEFT_OUT and re.search(LEFT_OUT[machine], b))
    assert set(whole.get_all_result_keys()) == set(benchmarks) - left_out, "the whole suite on the newest environment"
    config = tmp_path / "asv.conf.json"
    config.write_text(json.dumps(curated_at(whole.commit_hash)))
    record = matrix.run_check(RESULTS, machine, whole.commit_hash, "default", str(config))
    for environment in record["environments"]:
        assert environment["found"] == 1, "no run (or several) of %s at %s" % (environment, whole.commit_hash[:8])
        assert environment["failed"] == [], environment
        assert environment["ran"] > 0, environment


@pytest.mark.parametrize("machine", published_machines(RESULTS))
def test_no_published_result_is_of_an_earlier_suite(machine):
    """Every result in results/ is at a benchmark version of benchmarks.json: asv would hide any
    other, and the report would show its cases as "not run" (the earlier series are not published)."""
    benchmarks = current_benchmarks(RESULTS)
    for res in iter_results_for_machine(RESULTS, machine):
        for key in res.get_all_result_keys():
            assert key in benchmarks and res.benchmark_version[key] == benchmarks[key]["version"], (res.env_name, key)


def test_the_engines_beside_the_studies_give_both_medians_their_spread_and_ratio():
    """The README's engines table, from the reference machine's whole-suite run: every compared pair
    measured (no skip, failure or gap), each median with its IQR and samples, and their ratio."""
    from dsib_tools.report_engines import STUDY_ROWS

    command = "report --studies --results-dir results --machine %s --env DSIB_PROFILEdefault" % MACHINE
    assert "<!-- generated: %s -->" % command in documentation(), "the README shows this table, generated"
    out = subprocess.run(
        [sys.executable, "-m", "dsib_tools"]
        + command.replace("--results-dir results", "--results-dir " + RESULTS).split(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert out.returncode == 0, out.stderr
    assert "commit `%s`" % whole_suite_run(MACHINE).commit_hash[:8] in out.stdout
    rows = [line.split(" | ") for line in out.stdout.splitlines() if line.startswith("| ") and "compared" not in line]
    assert [row[0][2:] for row in rows] == [label for label, *_ in STUDY_ROWS]
    for row in rows:
        for median in row[2:4]:
            assert re.fullmatch(r"\S+ \(IQR \S+–\S+, n=([3-9]|\d\d+)\)", median), row
        assert re.fullmatch(r"\d+(\.\d)?x", row[4]), row


def test_a_figure_over_a_minute_reads_minutes_then_seconds_with_one_space_between():
    from dsib_tools.report_cells import format_seconds

    assert format_seconds(184.0) == "3min 4.0s"
    assert format_seconds(255.0) == "4min 15.0s"
    assert not re.search(r"\dmin  ", documentation()), "a generated figure of minutes has two spaces"

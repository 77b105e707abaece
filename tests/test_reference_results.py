"""The committed reference run: results/ renders the post's table, and html/ was published from it."""

import json
import os
import re
import subprocess
import sys

from dsib_tools.matrix import newest

from .conftest import ROOT, committed, documentation
from .results_copy import current_benchmarks

MACHINE = "xeon-2c-24g"


def test_committed_results_render_the_full_table():
    table = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "table",
            "--machine",
            MACHINE,
            "--env",
            "DSIB_PROFILEdefault",
            "--with-2019",
            "--results-dir",
            committed("results"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert table.returncode == 0, table.stderr
    assert "profile `default` (1,000,000 rows per month)" in table.stdout
    rows = [line for line in table.stdout.splitlines() if line.startswith("| ") and "Benchmark" not in line]
    assert len(rows) == 7
    for row in rows:
        assert "failed" not in row and "skipped" not in row and "n/a" not in row, row
        for measured in row.split("|")[2:4]:  # Parquet, CSV: a median, its spread and sample count
            assert re.search(r"\(IQR \S+–\S+, n=([2-9]|\d\d+)\)$|\(one sample\)$", measured.strip()), row
    assert "| 3a WRITE | 406ms (IQR 390ms–441ms, n=10) | 10.69s (one sample) |" in table.stdout, (
        "the committed run's CSV write is one sample, and says so"
    )
    assert "pyarrow26.0.1" in table.stdout, "of a release matrix, the table shows the newest releases"
    readme = documentation()
    assert (
        "<!-- generated: table --results-dir results --machine %s --env DSIB_PROFILEdefault --with-2019 -->" % MACHINE
        in readme
    ), "the README shows this table, generated (test_readme keeps it equal)"


def test_committed_site_was_published_from_the_committed_results():
    with open(committed("html/index.json")) as f:
        index = json.load(f)
    assert MACHINE in index["params"]["machine"]
    assert index["params"]["env-DSIB_PROFILE"] == ["default"], "the scale is a parameter of every graph"
    assert set(current_benchmarks()) == set(index["benchmarks"])
    assert os.path.exists(committed("html/index.html"))


MATRIX_COMMIT = "ff373297"


def test_the_curated_matrix_is_committed_with_no_failed_benchmark():
    """Every environment of asv.conf.json as it was at the matrix commit has a whole run at that
    commit on the reference machine, at the benchmark versions of benchmarks.json (asv would hide
    any other), and not one cell of it failed (asv's null). The newest environment has gained the
    engines' libraries since, and so a name of its own: its history comes with the re-run."""
    from asv.results import iter_results_for_machine

    include = json.loads(
        subprocess.run(
            ["git", "show", MATRIX_COMMIT + ":asv.conf.json"],
            cwd=ROOT,
            check=True,
            stdout=subprocess.PIPE,
            universal_newlines=True,
        ).stdout
    )["include"]
    with open(os.path.join(ROOT, "asv.conf.json")) as f:
        now = json.load(f)["include"]
    assert [e for e in now if e not in include] == [newest(now)], "only the newest environment changed since"
    benchmarks = current_benchmarks()
    runs = [
        r
        for r in iter_results_for_machine(committed("results"), MACHINE)
        if r.commit_hash.startswith(MATRIX_COMMIT) and (r.env_vars or {}).get("DSIB_PROFILE") == "default"
    ]
    for entry in include:
        wanted = dict(entry["req"], python=entry["python"])
        found = [r for r in runs if all(r.params.get(k) == v for k, v in wanted.items())]
        assert len(found) == 1, "no run (or several) of %s: %s" % (wanted, [r.env_name for r in found])
        res = found[0]
        assert set(res.get_all_result_keys()) == set(benchmarks), res.env_name
        for key in benchmarks:
            assert res.benchmark_version[key] == benchmarks[key]["version"], (res.env_name, key)
            values = res.get_result_value(key, res.get_result_params(key))
            values = values if isinstance(values, list) else [values]
            assert None not in values, "%s failed in %s" % (key, res.env_name)


def test_a_report_of_the_first_suites_results_says_not_run_not_failed():
    """The committed history is the first suite's: its cases had other names, and a report of it
    says so rather than calling every cell failed."""
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "report",
            "--machine",
            MACHINE,
            "--env",
            "DSIB_PROFILEdefault",
            "--results-dir",
            committed("results"),
            "--source",
            "nyc_taxi",
            "--variant",
            "plain",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert report.returncode == 0, report.stderr
    assert "failed" not in report.stdout and "| read, page cache | not run |" in report.stdout

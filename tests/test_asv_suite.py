"""The README's `make bench` at `tiny`, for real: asv runs the whole suite, publishes the site,
prints the table, and leaves every committed file as it was.

The working tree is snapshotted into a throwaway git repository, because asv
builds and installs the package from a commit: this tests the code as it is
now, not as last committed.
"""

import glob
import itertools
import json
import math
import os
import sys

import pytest

from .conftest import ENV_DIR, ROOT, committed
from .tiny_bench import MACHINE, capture, expected_benchmarks, git_status, tiny_results

# The session's `make bench` (asv_tiny) holds a PostgreSQL and a QuestDB for its run.
pytestmark = [pytest.mark.asv, pytest.mark.server]


def expected_skip(benchmark, given, versions):
    """Why a cell must skip in this environment, from the registries alone; None if it must run."""
    from dsib import catalog, counters
    from dsib.formats import FORMATS
    from dsib_tools import suite

    cls, given = suite.owner(benchmark), dict(given)
    # asv's own skip of a method's cells (skip_params): an engine that says why it does not measure
    # that method (Spark's createDataFrame has no driver-side peak memory: Engine.unmeasured).
    method = getattr(cls, benchmark.rsplit(".", 1)[1])
    if tuple(given[name] for name in cls.param_names) in [tuple(p) for p in getattr(method, "skip_params", [])]:
        return "skip_params of %s" % benchmark
    if suite.COUNTS_MODULE + "." in benchmark and counters.available() is not None:
        return counters.available()  # an instruction count where the machine has no counter
    operation = getattr(cls, "operation", None)
    if operation is None:  # the process baseline and the generator
        return FORMATS[given["format"]].unavailable(versions) if "format" in given else None
    return catalog.BUILT_IN.cell_skip_reason(
        operation, given, "tiny", versions, "cat" if operation == "categorize_then_write" else "plain"
    )


def test_asv_runs_every_benchmark_without_failure(asv_tiny):
    from dsib import pagecache

    run = asv_tiny["run"]
    assert run.returncode == 0, run.stdout[-6000:]
    (res,) = tiny_results(asv_tiny)
    assert "DSIB_PROFILEtiny" in res.env_name, "the profile is part of the series"
    assert expected_benchmarks() == set(res.get_all_result_keys())
    assert pagecache.eviction_supported(asv_tiny["work"])[0], "cold reads would skip here"
    with open(os.path.join(asv_tiny["results"], "benchmarks.json")) as f:
        names = dict((k, v["param_names"]) for k, v in json.load(f).items() if isinstance(v, dict))
    ran = skipped = 0
    for key in res.get_all_result_keys():
        params = res.get_result_params(key)
        values = res.get_result_value(key, params)
        combos = list(itertools.product(*params)) if params else [()]
        values = values if isinstance(values, list) else [values]
        for combo, value in zip(combos, values):
            given = list(zip(names[key], [c.strip("'") for c in combo]))
            assert value is not None, "%s%s failed: %s" % (key, combo, run.stdout[-4000:])
            is_skip = isinstance(value, float) and math.isnan(value)
            reason = expected_skip(key, given, dict((k, v) for k, v in res.params.items() if v))
            assert is_skip == (reason is not None), "%s %s: skipped=%s, expected %s" % (key, combo, is_skip, reason)
            ran, skipped = ran + (not is_skip), skipped + is_skip
    assert ran > 1500, "every cell the rules say must run did: %d ran, %d skipped" % (ran, skipped)


def test_the_benchmark_environment_samples_with_the_pinned_asv_runner(asv_tiny):
    """asv would install the newest asv_runner; the plugin installs the tools' pin instead."""
    from importlib import metadata

    with open(os.path.join(ROOT, "requirements.txt")) as f:
        pinned = [line.split("==")[1].strip() for line in f if line.startswith("asv_runner==")]
    assert pinned == [metadata.version("asv_runner")], "the tools run the pinned asv_runner"
    installed = glob.glob(os.path.join(ENV_DIR, "*", "lib", "python*", "site-packages", "asv_runner-*.dist-info"))
    assert installed, "the run built its environment in %s" % ENV_DIR
    assert set(os.path.basename(d) for d in installed) == {"asv_runner-%s.dist-info" % pinned[0]}


def test_make_bench_publishes_the_site_of_its_run_beside_the_committed_history(asv_tiny):
    html = asv_tiny["html"]
    assert os.path.exists(os.path.join(html, "index.html")), asv_tiny["run"].stdout[-3000:]
    with open(os.path.join(html, "index.json")) as f:
        index = json.load(f)
    assert expected_benchmarks() <= set(index["benchmarks"])
    graphs = glob.glob(os.path.join(html, "graphs", "**", "reads.ReadFromBytes.time_read.json"), recursive=True)
    assert any("DSIB_PROFILE-tiny" in g for g in graphs), graphs
    committed_machines = set(os.listdir(committed("results"))) - {"benchmarks.json"}
    assert committed_machines and committed_machines | {MACHINE} <= set(index["machines"]), index["machines"]


def test_make_bench_leaves_every_committed_file_alone(asv_tiny):
    """Its results and site go to build/ (ignored): no committed file is deleted or changed, and
    nothing new appears outside the ignored directories."""
    assert asv_tiny["run"].returncode == 0, asv_tiny["run"].stdout[-3000:]
    assert git_status(asv_tiny["repo"]) == ""


def test_comparison_table_from_the_run(asv_tiny):
    table = capture(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "table",
            "post",
            "--results-dir",
            asv_tiny["results"],
            "--machine",
            MACHINE,
            "--with-2019",
        ],
        ROOT,
        asv_tiny["env"],
    )
    assert table.returncode == 0, table.stdout
    rows = [line for line in table.stdout.splitlines() if line.startswith("| ") and "Benchmark" not in line]
    assert [r.split("|")[1].strip() for r in rows] == [
        "1a READ",
        "1b READ with str",
        "1c READ with cat",
        "2 cont. READ",
        "3a WRITE",
        "3b WRITE with str",
        "3c WRITE with cat",
    ]
    for row in rows:
        assert "failed" not in row and "skipped" not in row and "n/a" not in row, row
        assert row in asv_tiny["run"].stdout, "make bench printed the same table"
    assert "profile `tiny` (10,000 rows per month)" in table.stdout


def test_the_run_keeps_every_sample_so_its_statistics_can_be_recomputed(asv_tiny):
    from asv_runner.statistics import compute_stats

    from dsib_tools import compare, suite

    (res,) = tiny_results(asv_tiny)
    name = suite.name(suite.reads.ReadFromPageCache, "time_read") + "('nyc_taxi', 'parquet', 'plain')"
    value, (stats, samples), _ = compare.load_cells(asv_tiny["results"], MACHINE, res.commit_hash)[name]
    assert samples and len(samples) == stats["repeat"], (samples, stats)
    assert compute_stats(samples, stats["number"])[0] == value


def test_the_run_logged_the_machines_load_over_every_benchmark(asv_tiny):
    """make bench ran asv under dsib_tools.machine_load's watch: each benchmark's window is covered, and
    the table and report say what else the machine was doing (a figure under load is marked)."""
    from benchmarks.engines import IngestIntoEngine, QueryFromEngine, SerializeForQuestDB
    from dsib_tools import machine_load as load
    from dsib_tools import suite

    (res,) = tiny_results(asv_tiny)
    logs = load.Machine(asv_tiny["results"], MACHINE)
    assert len(logs.logs) == 1, "one log per asv run"
    windows = dict((key, logs.of(res, key)) for key in res.get_all_result_keys())
    assert all(w is not None and w.seconds > 0 for w in windows.values()), windows
    assert "dsib: machine load during this run: " in asv_tiny["run"].stdout
    busy = set(logs.busy_keys(res))
    shown = {
        "table post": set(suite.name(c.cls, c.method) for c in suite.POST_2019),
        "report": set(suite.name(r.cls, r.method) for r in suite.GRID if r.kind == "time")
        | set(
            suite.name(cls, method)
            for cls in (IngestIntoEngine, QueryFromEngine, SerializeForQuestDB)
            for method in suite.methods(cls)
            if method.startswith("time_")
        ),
    }
    for command, keys in sorted(shown.items()):
        out = capture(
            [sys.executable, "-m", "dsib_tools"]
            + command.split()
            + ["--results-dir", asv_tiny["results"], "--machine", MACHINE],
            ROOT,
            asv_tiny["env"],
        ).stdout
        assert "machine load during the run: other processes " in out, out[:2000]
        assert ("%d benchmarks ran under load" % len(busy) in out) == bool(busy), out[:2000]
        # The line on the whole run says "(under load)" of the run itself; the tables mark figures.
        figures = "\n".join(line for line in out.splitlines() if "machine load during the run" not in line)
        assert ("(under load)" in figures) == bool(busy & keys), (command, sorted(busy), figures[:2000])

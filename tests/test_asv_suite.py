"""The whole suite through real asv at `tiny`: run, publish, report.

The working tree is snapshotted into a throwaway git repository, because asv
builds and installs the package from a commit: this tests the code as it is
now, not as last committed.
"""
import glob
import itertools
import json
import math
import os
import subprocess
import sys

import pytest

from dsib.__main__ import derive_config

from .conftest import ENV_DIR, ROOT, snapshot_working_tree

MACHINE = "dsib-test"
EXPECTED = {
    "file_formats.Read.time_read", "file_formats.Write.time_write",
    "file_formats.ContinuousRead.time_continuous_read", "file_formats.ContinuousRead.peakmem_continuous_read",
    "file_formats.ContinuousRead.track_month_frame", "file_formats.ContinuousRead.peakmem_first_month_only",
    "file_formats.ContinuousRead.peakmem_baseline", "generation.PrepareMonth.time_prepare_plain_month",
    "generation.PrepareMonth.time_string_columns",
    "grid.Read.time_read", "grid.ReadPeakMemory.peakmem_read", "grid.ReadPeakMemory.peakmem_baseline",
    "grid.ColdRead.time_cold_read", "grid.Sizes.track_file_size", "grid.Sizes.track_frame_size",
    "grid.Write.time_write", "grid.Write.peakmem_write", "grid.Write.time_write_to_disk",
    "grid.CategorizeThenWrite.time_categorize_and_write", "grid.ContinuousRead.time_continuous_read",
    "grid.ContinuousRead.peakmem_continuous_read",
}


def _available(fmt):
    try:
        fmt.check_available()
        return True
    except NotImplementedError:
        return False


def expected_skip(benchmark, params):
    """Why a cell must skip in this environment, from the registries alone; None if it must run."""
    from data_prep import get_dataset
    from dsib.formats import get_format

    given = dict(params)
    if "format" not in given:
        return None
    fmt = get_format(given["format"])
    if not _available(fmt):
        return "unavailable"
    variant = given.get("variant", "cat" if "CategorizeThenWrite" in benchmark else "plain")
    if variant not in fmt.variants:
        return "variant"
    writes = ".Write." in benchmark or "CategorizeThenWrite" in benchmark
    if writes and not fmt.times_write:
        return "shared writer"
    if "CategorizeThenWrite" in benchmark and not get_dataset(given["dataset"]).categorizable():
        return "no categorizable text"
    return None


def _run(args, cwd, env):
    proc = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    return proc


@pytest.fixture(scope="module")
def asv_tiny(tiny_data_dir, tmp_path_factory):
    work = str(tmp_path_factory.mktemp("asv"))
    repo = os.path.join(work, "repo")
    snapshot_working_tree(repo)
    with open(os.path.join(ROOT, "asv.conf.json")) as f:
        conf = derive_config(json.load(f), profile="tiny", results_dir=os.path.join(work, "results"),
                             html_dir=os.path.join(work, "html"), env_dir=ENV_DIR, envs="newest")
    config = os.path.join(repo, ".asv-test.conf.json")  # beside the plugin: asv imports it from here
    with open(config, "w") as f:
        json.dump(conf, f)
    env = dict(os.environ, DSIB_DATA_DIR=tiny_data_dir)
    asv = [sys.executable, "-m", "asv"]
    subprocess.run([sys.executable, "-m", "dsib", "machine", MACHINE], cwd=ROOT, check=True, env=env)
    run = _run(asv + ["run", "--config", config, "--machine", MACHINE, "--quick", "--show-stderr", "HEAD^!"],
               repo, env)
    return {"work": work, "repo": repo, "config": config, "env": env, "asv": asv, "run": run}


def _results(asv_tiny):
    from asv.results import iter_results_for_machine

    return list(iter_results_for_machine(os.path.join(asv_tiny["work"], "results"), MACHINE))


def test_asv_runs_every_benchmark_without_failure(asv_tiny):
    from dsib import pagecache

    run = asv_tiny["run"]
    assert run.returncode == 0, run.stdout[-6000:]
    (res,) = _results(asv_tiny)
    assert "DSIB_PROFILEtiny" in res.env_name, "the profile is part of the series"
    assert EXPECTED <= set(res.get_all_result_keys())
    assert pagecache.eviction_supported(asv_tiny["work"])[0], "cold reads would skip here"
    with open(os.path.join(asv_tiny["work"], "results", "benchmarks.json")) as f:
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
            reason = expected_skip(key, given)
            assert is_skip == (reason is not None), "%s %s: skipped=%s, expected %s" % (key, combo, is_skip, reason)
            ran, skipped = ran + (not is_skip), skipped + is_skip
    assert ran > 1000 and skipped < ran / 5


def test_asv_publish_builds_the_site(asv_tiny):
    publish = _run(asv_tiny["asv"] + ["publish", "--config", asv_tiny["config"]], asv_tiny["repo"],
                   asv_tiny["env"])
    assert publish.returncode == 0, publish.stdout
    html = os.path.join(asv_tiny["work"], "html")
    assert os.path.exists(os.path.join(html, "index.html"))
    with open(os.path.join(html, "index.json")) as f:
        index = json.load(f)
    assert EXPECTED <= set(index["benchmarks"])
    graphs = glob.glob(os.path.join(html, "graphs", "**", "file_formats.Read.time_read.json"), recursive=True)
    assert any("DSIB_PROFILE-tiny" in g for g in graphs), graphs


def test_comparison_table_from_the_run(asv_tiny):
    table = _run([sys.executable, "-m", "dsib", "table", "--results-dir",
                  os.path.join(asv_tiny["work"], "results"), "--with-2019"], ROOT, asv_tiny["env"])
    assert table.returncode == 0, table.stdout
    rows = [line for line in table.stdout.splitlines() if line.startswith("| ") and "Benchmark" not in line]
    assert [r.split("|")[1].strip() for r in rows] == [
        "1a READ", "1b READ with str", "1c READ with cat", "2 cont. READ", "3a WRITE", "3b WRITE with str",
        "3c WRITE with cat"]
    for row in rows:
        assert "failed" not in row and "skipped" not in row and "n/a" not in row, row
    assert "profile `tiny` (10,000 rows per month)" in table.stdout


def test_every_format_report_has_a_value_in_every_case_that_makes_sense(asv_tiny):
    report = _run([sys.executable, "-m", "dsib", "report", "--results-dir",
                   os.path.join(asv_tiny["work"], "results")], ROOT, asv_tiny["env"])
    assert report.returncode == 0, report.stdout
    tables = [t for t in report.stdout.split("\n\n") if t.startswith("| ")]
    assert len(tables) == 9, "three datasets x three variants"
    assert "failed" not in report.stdout
    header = tables[0].splitlines()[0]
    assert "| parquet |" in header and "| npy |" in header
    warm = [line for line in tables[0].splitlines() if line.startswith("| read, warm |")][0]
    assert warm.count("·") == 1, "only pandas-msgpack cannot run in this pandas: %s" % warm


def test_site_page_is_linked_from_the_asv_dashboard(asv_tiny):
    html = os.path.join(asv_tiny["work"], "html")
    if not os.path.exists(os.path.join(html, "index.html")):
        test_asv_publish_builds_the_site(asv_tiny)
    for _ in range(2):  # the link is added once, however often the page is rebuilt
        site = _run([sys.executable, "-m", "dsib", "site", "--results-dir", os.path.join(asv_tiny["work"], "results"),
                     "--html-dir", html], ROOT, asv_tiny["env"])
        assert site.returncode == 0, site.stdout
    with open(os.path.join(html, "index.html")) as f:
        assert f.read().count('href="dsib/index.html"') == 1
    with open(os.path.join(html, "dsib", "index.html")) as f:
        page = f.read()
    for heading in ("The 2019 baseline", "Every format", "Fidelity"):
        assert "<h2" in page and heading in page
    assert page.count("<table>") == 1 + 9 + 1
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")

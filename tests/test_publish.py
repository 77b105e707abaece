"""The staging copy `make publish` gives asv, and the rewrites of asv's files after it."""

import filecmp
import json
import os
import shutil

import asv
import pytest

from dsib_tools.publish import (
    REFERENCE_MACHINE,
    REWRITES,
    fill_missing_graphs,
    open_on_newest_release,
    rewrite,
    stage,
)

from .conftest import committed
from .results_copy import current_benchmarks, current_keys

RESULTS = committed("results")


def _result_files(results_dir):
    for machine in sorted(os.listdir(results_dir)):
        folder = os.path.join(results_dir, machine)
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.endswith(".json") and name != "machine.json":
                    yield machine, name, os.path.join(folder, name)


def test_staging_keeps_every_environments_current_results_and_leaves_results_alone(tmp_path):
    """The release matrix's environments hold a selection of the suite, the newest all of it: each
    is staged with the current results it has, none left out."""
    source = str(tmp_path / "results")
    shutil.copytree(RESULTS, source)
    staging = str(tmp_path / "staging")
    left_out = stage(source, staging)
    assert not filecmp.dircmp(RESULTS, source).diff_files, "the results are only read"
    benchmarks = current_benchmarks(RESULTS)
    staged = {}
    for machine, name, path in _result_files(staging):
        with open(path) as f:
            result = json.load(f)
        version = result["result_columns"].index("version")
        assert all(benchmarks[k]["version"] == row[version] for k, row in result["results"].items()), name
        staged.setdefault((machine, result["env_name"]), set()).update(result["results"])
    complete = {}
    for machine, name, path in _result_files(RESULTS):
        with open(path) as f:
            result = json.load(f)
        complete.setdefault((machine, result["env_name"]), set()).update(current_keys(result, benchmarks))
    assert staged == complete and left_out == []
    assert any(keys != set(benchmarks) for keys in staged.values()), "the matrix's selections are staged too"
    with open(os.path.join(staging, "benchmarks.json")) as f:
        assert set(k for k, v in json.load(f).items() if isinstance(v, dict)) == set().union(*staged.values())


def test_staging_one_profile_leaves_the_other_scales_results_out(tmp_path):
    """The curated matrix's history holds a `full` run beside the `default` history: `make publish`
    stages `default` alone, every one of its files, and no file of another scale."""
    history = committed("records/curated-results")
    profiles = {}
    for machine, name, path in _result_files(history):
        with open(path) as f:
            profiles[(machine, name)] = (json.load(f).get("env_vars") or {}).get("DSIB_PROFILE")
    assert "default" in profiles.values() and set(profiles.values()) - {"default"}, "a run of another scale"
    staging = str(tmp_path / "staging")
    stage(history, staging, "default")
    staged = set((machine, name) for machine, name, _ in _result_files(staging))
    assert staged == set(key for key, profile in profiles.items() if profile == "default")


def test_an_environment_gets_an_empty_graph_for_a_benchmark_it_lacks(tmp_path):
    """asv publishes no graph of a benchmark for an environment without it; its graph page would
    fail that request. Each is filled with an empty one, at asv's own path, and nothing else."""
    html = tmp_path / "html"
    params = [{"machine": "m", "pyarrow": "1.0"}, {"machine": "m", "pyarrow": "2.0"}]
    with_both = html / "graphs" / "machine-m" / "pyarrow-2.0"
    with_one = html / "graphs" / "machine-m" / "pyarrow-1.0"
    for folder, names in ((with_both, ("a.x", "b.y")), (with_one, ("a.x",))):
        folder.mkdir(parents=True)
        for name in names:
            (folder / (name + ".json")).write_text("[[1, 2.0]]")
    (html / "index.json").write_text(json.dumps({"benchmarks": {"a.x": {}, "b.y": {}}, "graph_param_list": params}))
    assert fill_missing_graphs(str(html)) == 1
    assert json.loads((with_one / "b.y.json").read_text()) == []
    assert (with_both / "b.y.json").read_text() == "[[1, 2.0]]"
    assert fill_missing_graphs(str(html)) == 0
    (html / "index.json").write_text(
        json.dumps({"benchmarks": {"a.x": {}}, "graph_param_list": [{"machine": "elsewhere"}]})
    )
    with pytest.raises(ValueError, match="not asv 0.6's layout"):
        fill_missing_graphs(str(html))


def test_asv_files_are_rewritten_once_and_a_changed_asv_is_refused(tmp_path):
    www = str(tmp_path / "www")
    shutil.copytree(os.path.join(os.path.dirname(asv.__file__), "www"), www)
    for name, anchor, patch in REWRITES:
        path = os.path.join(www, name)
        assert rewrite(path, anchor, patch) and not rewrite(path, anchor, patch)
        with open(path) as f:
            assert f.read().count(patch) == 1
        with open(path, "w") as f:
            f.write("/* another asv */")
        with pytest.raises(ValueError):
            rewrite(path, anchor, patch)


def test_the_newest_release_comes_first(tmp_path):
    index = {
        "params": {"pyarrow": ["0.11.1", "26.0.1", "8.0.0"], "python": ["3.11", "3.7"], "machine": ["m"]},
        "graph_param_list": [
            {"pyarrow": "0.11.1", "python": "3.7", "machine": "m"},
            {"pyarrow": "26.0.1", "python": "3.11", "machine": "m"},
            {"pyarrow": "8.0.0", "python": "3.7", "machine": "m"},
        ],
    }
    with open(str(tmp_path / "index.json"), "w") as f:
        json.dump(index, f)
    for _ in range(2):
        open_on_newest_release(str(tmp_path))
    with open(str(tmp_path / "index.json")) as f:
        params = json.load(f)["params"]
    assert params == {"pyarrow": ["26.0.1", "0.11.1", "8.0.0"], "python": ["3.11", "3.7"], "machine": ["m"]}


def test_of_the_newest_releases_the_dashboard_opens_on_the_published_scale_on_the_reference_machine(tmp_path):
    """The newest releases also ran at `full`, and on a second machine: asv's dashboard still opens
    on `default` on the reference machine, whatever order asv lists them in."""
    newest = {"pyarrow": "26.0.1", "python": "3.11"}
    graphs = [
        dict(newest, machine="other-2c", **{"env-DSIB_PROFILE": "default"}),
        dict(newest, machine=REFERENCE_MACHINE, **{"env-DSIB_PROFILE": "full"}),
        dict(newest, machine=REFERENCE_MACHINE, **{"env-DSIB_PROFILE": "default"}),
        {"pyarrow": "0.11.1", "python": "3.7", "machine": REFERENCE_MACHINE, "env-DSIB_PROFILE": "default"},
    ]
    index = {
        "params": {"machine": ["other-2c", REFERENCE_MACHINE], "env-DSIB_PROFILE": ["full", "default"]},
        "graph_param_list": graphs,
    }
    with open(str(tmp_path / "index.json"), "w") as f:
        json.dump(index, f)
    open_on_newest_release(str(tmp_path))
    with open(str(tmp_path / "index.json")) as f:
        params = json.load(f)["params"]
    assert params == {"machine": [REFERENCE_MACHINE, "other-2c"], "env-DSIB_PROFILE": ["default", "full"]}


def test_of_the_newest_releases_the_dashboard_opens_on_make_bench_s_run_not_the_matrix_s():
    """The release matrix's newest environment keeps freed memory, beside `make bench`'s run of the
    same releases with glibc's defaults (every benchmark): the dashboard opens on the latter,
    whichever asv lists first."""
    from dsib_tools import chains
    from dsib_tools.publish import newest_environment

    newest = {"pyarrow": "26.0.1", "pandas": "3.1.1", "python": "3.11", "machine": REFERENCE_MACHINE}
    bench = dict(newest, **{"env-DSIB_PROFILE": "default"})
    kept = dict(bench, **dict(("env-" + k, v) for k, v in chains.FREED_MEMORY_KEPT.items()))
    older = {"pyarrow": "25.0.1", "pandas": "3.1.1", "python": "3.11", "machine": REFERENCE_MACHINE}
    for graphs in ([kept, bench, older], [older, bench, kept]):
        assert newest_environment(graphs) is bench


def test_a_run_of_a_selection_publishes_that_selection(tmp_path):
    """`make bench FORMAT=parquet`: the run's environment has a few benchmarks, the history's
    results are stale. The fullest environment's benchmarks are published, and benchmarks.json
    lists no other (asv would list them with no graph behind them)."""
    benchmarks = current_benchmarks(RESULTS)
    files = []
    for machine, name, path in _result_files(RESULTS):
        with open(path) as f:
            held = len(current_keys(json.load(f), benchmarks))
        files.append((-held, machine, name, path))  # the fullest run first, then any other
    files = [f[1:] for f in sorted(files)]
    source = tmp_path / "results"
    shutil.copytree(RESULTS, str(source), ignore=shutil.ignore_patterns("*-*.json"))
    machine, name, path = files[0]
    with open(path) as f:
        run = json.load(f)
    chosen = sorted(current_keys(run, benchmarks))[:3]
    run["results"] = dict((k, run["results"][k]) for k in chosen)
    with open(str(source / machine / name), "w") as f:
        json.dump(run, f)
    machine, name, path = files[1]
    with open(path) as f:
        stale = json.load(f)
    version = stale["result_columns"].index("version")
    for row in stale["results"].values():
        row[version] = "an older version"
    with open(str(source / machine / name), "w") as f:
        json.dump(stale, f)
    staging = str(tmp_path / "staging")
    left_out = stage(str(source), staging)
    with open(os.path.join(staging, "benchmarks.json")) as f:
        listed = json.load(f)
    assert sorted(k for k, v in listed.items() if isinstance(v, dict)) == chosen
    assert [(m, e, lacking) for m, e, lacking in left_out] == [(machine, stale["env_name"], chosen)]
    assert sorted(n for m, n, _ in _result_files(staging)) == [files[0][1]]

"""Tmp copies of a committed results tree in which a real result file poses as another release.

The tree is the curated matrix's history (records/curated-results: one environment per release,
glibc's defaults, and a `full` run beside): a real history that the release view's and the
comparisons' tests relabel. The copies keep every real file and add one rewritten from a real
one, so the values under test are the reference run's, only relabelled (and, where a test says
so, scaled). The published history's own tests read results/ (test_reference_results)."""

import glob
import json
import os
import shutil

from .conftest import committed

MACHINE = "epyc-2c-24g"
RESULTS = committed("records/curated-results")
STATS = ("stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75")


def raw_results(results_dir=RESULTS, machine=MACHINE):
    """{path: the result file's JSON} for the published scale, read without asv."""
    found = {}
    for path in glob.glob(os.path.join(results_dir, machine, "*.json")):
        with open(path) as f:
            d = json.load(f)
        if d.get("env_vars", {}).get("DSIB_PROFILE") == "default":
            found[path] = d
    return found


def current_benchmarks(results_dir=RESULTS):
    with open(os.path.join(results_dir, "benchmarks.json")) as f:
        return dict((k, v) for k, v in json.load(f).items() if isinstance(v, dict))


def current_keys(d, benchmarks):
    """The benchmarks of one raw result file whose version is benchmarks.json's (what asv publishes)."""
    version = d["result_columns"].index("version")
    return [k for k, row in d["results"].items() if k in benchmarks and row[version] == benchmarks[k]["version"]]


def reference_file(results_dir=RESULTS):
    """The newest real result file of pyarrow 26.0.1 / pandas 3.1.1, preferring the most current results."""
    benchmarks = current_benchmarks(results_dir)
    files = [
        (p, d)
        for p, d in raw_results(results_dir).items()
        if d["params"].get("pyarrow") == "26.0.1" and d["params"].get("pandas") == "3.1.1"
    ]
    assert files, "no pyarrow 26.0.1 / pandas 3.1.1 result in %s" % results_dir
    return max(files, key=lambda pd: (pd[1]["date"], len(current_keys(pd[1], benchmarks))))[0]


def copy_results(tmp_path):
    target = str(tmp_path / "results")
    shutil.copytree(RESULTS, target)
    return target


def _times(values, factor):
    if isinstance(values, list):
        return [_times(v, factor) for v in values]
    return None if values is None else values * factor


def pose_as(path, results_dir, scale=None, env_vars=None, tag="posed", **params):
    """Save a copy of result file ``path`` into ``results_dir`` under other env ``params`` (and
    ``env_vars``, added to the file's), its environment's name marked ``tag``.

    ``scale``: {benchmark: factor} multiplies its values, statistics and samples, so that asv's
    significance test sees the same spread, only shifted. Returns the new file's path."""
    with open(path) as f:
        d = json.load(f)
    d["params"].update(params)
    d["python"] = d["params"]["python"]
    d["env_name"] = "virtualenv-py%s-pandas%s-pyarrow%s%s-%s-DSIB_PROFILEdefault" % (
        tuple(d["params"][k] for k in ("python", "pandas", "pyarrow"))
        + ("".join("-%s%s" % (k, params[k]) for k in ("msgpack", "numpy") if k in params), tag)
    )
    if env_vars:
        d["env_vars"] = dict(d.get("env_vars") or {}, **env_vars)
        d["env_name"] += "".join("-%s%s" % kv for kv in sorted(env_vars.items()))
    columns = d["result_columns"]
    for key, factor in (scale or {}).items():
        row = d["results"][key]  # asv drops trailing empty columns: index only what is there
        for column in ("result", "samples") + STATS:
            if columns.index(column) < len(row):
                row[columns.index(column)] = _times(row[columns.index(column)], factor)
    target = os.path.join(results_dir, d["params"]["machine"], "%s-%s.json" % (d["commit_hash"][:8], d["env_name"]))
    with open(target, "w") as f:
        json.dump(d, f)
    return target

"""Two shards at `tiny`, merged, against one unsharded run, and an interrupted shard resumed: real asv
runs through make (`make run-matrix SHARD=i/N`, `make merge-results`)."""

import glob
import json
import math
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from dsib_tools import matrix

from .conftest import ENV_DIR, asv_failures, run_with_progress, snapshot_working_tree
from .test_shard import TEST_ENTRIES

# `make run-matrix` holds a PostgreSQL and a QuestDB for its run.
pytestmark = [pytest.mark.asv, pytest.mark.server]
MACHINE = "dsib-test"

# --- two shards at `tiny`, merged, against one unsharded run: real asv runs through make ---


def _make():
    # The tools' own environment, as it is: -o keeps make from reinstalling it into a fresh clone's.
    return [
        "make",
        "-o",
        os.path.join(sys.prefix, "bin", ".ready"),
        "VENV=" + sys.prefix,
        "PROFILE=tiny",
        "MACHINE=" + MACHINE,
        "ASV_ENV_DIR=" + ENV_DIR,
        "MATRIX=sweeps",
        "FORMAT=parquet",
        "SOURCE=nyc_taxi_month",
    ]


def sweeps_repo(tmp_path_factory, name, tiny_data_dir):
    """(repository, environment): a fresh repository holding this working tree, its sweeps config
    cut to TEST_ENTRIES, and the environment make runs in there (the `tiny` data given)."""
    repo = os.path.join(str(tmp_path_factory.mktemp(name)), "repo")
    snapshot_working_tree(repo)
    with open(os.path.join(repo, matrix.SWEEPS_CONFIG)) as f:
        conf = json.load(f)
    conf["include"] = TEST_ENTRIES
    with open(os.path.join(repo, matrix.SWEEPS_CONFIG), "w") as f:
        json.dump(conf, f, indent=4)
    env = dict(os.environ, DSIB_DATA_DIR=tiny_data_dir)
    env.pop("MAKEFLAGS", None)
    return repo, env


@pytest.fixture(scope="module")
def sweep(tiny_data_dir, tmp_path_factory, request):
    """`make run-matrix MATRIX=sweeps` at `tiny` over TEST_ENTRIES, in a fresh repository holding
    this working tree: as shards 1/2 and 2/2 (each its own build directory, as on two runners),
    merged and published; and unsharded, published. Parquet's cells of one source only, to keep
    it cheap."""
    repo, env = sweeps_repo(tmp_path_factory, "sweep", tiny_data_dir)
    make = _make()
    runs = {}
    for build, targets in (
        ("build-1", ["run-matrix", "SHARD=1/2"]),
        ("build-2", ["run-matrix", "SHARD=2/2"]),
        ("build-merged", ["merge-results", "site", "SHARDS=build-1/results build-2/results"]),
        ("build-all", ["run-matrix", "site"]),
    ):
        runs[build] = run_with_progress(
            make + targets + ["BUILD=" + build], repo, env, request, "make %s (%s)" % (" ".join(targets), build)
        )
        assert runs[build].returncode == 0, asv_failures(runs[build].stdout) + "\n[...]\n" + runs[build].stdout[-3000:]
    return dict((build, os.path.join(repo, build)) for build in runs)


def _selected_benchmarks():
    """The benchmarks of which the sweep's run-matrix selects a cell: the release-tracking selection,
    within FORMAT=parquet SOURCE=nyc_taxi_month."""
    import itertools
    import re

    from dsib_tools import suite
    from dsib_tools.selection import select_regex

    regex = re.compile(matrix.release_regex(within=select_regex("parquet", "nyc_taxi_month")))
    return set(
        suite.name(cls, m)
        for cls in suite.classes()
        for m in suite.methods(cls)
        for params in itertools.product(*cls.params)
        if regex.search("%s(%s)" % (suite.name(cls, m), ", ".join(repr(p) for p in params)))
    )


def _kind(value):
    if value is None:
        return "failed"
    return "skipped" if isinstance(value, float) and math.isnan(value) else "measured"


def _cells(results_dir):
    """{environment: {cell, as "benchmark(params)": failed / skipped / measured}} of MACHINE's results."""
    from asv.commands.compare import unroll_result
    from asv.results import iter_results_for_machine

    cells = {}
    for res in iter_results_for_machine(results_dir, MACHINE):
        found = cells.setdefault(res.env_name, {})
        for key in res.get_all_result_keys():
            params = res.get_result_params(key)
            for name, value in unroll_result(key, params, res.get_result_value(key, params)):
                found[name] = _kind(value)
    return cells


def test_each_shard_ran_its_own_environments_only(sweep):
    from asv import environment
    from asv.config import Config

    shard_envs = []
    for index in (1, 2):
        ran = set(_cells(os.path.join(sweep["build-%d" % index], "results")))
        config = os.path.join(os.path.dirname(sweep["build-1"]), ".asv-matrix-sweeps-tiny-shard%dof2.conf.json" % index)
        assert ran == set(e.name for e in environment.get_environments(Config.load(config), None))
        shard_envs.append(ran)
    assert len(shard_envs[0]) == len(shard_envs[1]) == 1 and not shard_envs[0] & shard_envs[1]


def test_the_merged_shards_hold_the_environments_and_cells_of_an_unsharded_run(sweep):
    merged, unsharded = (_cells(os.path.join(sweep[b], "results")) for b in ("build-merged", "build-all"))
    assert len(unsharded) == len(TEST_ENTRIES)
    assert all(list(cells.values()).count("measured") >= 6 for cells in unsharded.values()), unsharded
    assert merged == unsharded


def _held(value):
    """Where a graph's point holds a figure, the figure itself left out (timings differ)."""
    return [_held(v) for v in value] if isinstance(value, list) else value is not None


def _flat(value):
    return [v for item in value for v in _flat(item)] if isinstance(value, list) else [value]


def _point(point):
    if isinstance(point, dict):  # an environment's summary.json: a line per cell
        return point["pretty_name"], point["last_value"] is not None
    return point[0], _held(point[1:])  # a benchmark's graph: its revision, then its cells


def _graphs(html):
    """{graph file of MACHINE: its points, where their cells hold a figure}: a site's series and
    cells, without their timings."""
    found = {}
    for path in glob.glob(os.path.join(html, "graphs", "**", "machine-%s" % MACHINE, "**", "*.json"), recursive=True):
        with open(path) as f:
            found[os.path.relpath(path, html)] = [_point(point) for point in json.load(f)]
    return found


def test_the_merged_site_shows_what_the_unsharded_site_shows(sweep):
    merged, unsharded = (os.path.join(sweep[b], "html") for b in ("build-merged", "build-all"))
    indexes = []
    for html in (merged, unsharded):
        with open(os.path.join(html, "index.json")) as f:
            indexes.append(json.load(f))
    for key in ("machines", "params", "graph_param_list", "benchmarks", "revision_to_hash"):
        assert indexes[0][key] == indexes[1][key], key
    ours = [p for p in indexes[1]["graph_param_list"] if p["machine"] == MACHINE]
    assert sorted(p["pyarrow"] for p in ours) == ["25.0.1", "26.0.1"]
    graphs = _graphs(merged)
    assert len(graphs) >= 2 * len(_selected_benchmarks()), sorted(graphs)
    assert graphs == _graphs(unsharded)
    assert True in _flat([cells for points in graphs.values() for _, cells in points]), "no cell holds a figure"
    for html in (merged, unsharded):
        assert os.path.isfile(os.path.join(html, "dsib", "index.html"))


# --- an interrupted matrix shard, resumed: the cells of the uninterrupted run ---


def _results_files(results_dir):
    found = glob.glob(os.path.join(results_dir, MACHINE, "*.json"))
    return sorted(p for p in found if os.path.basename(p) != "machine.json")


def _gone(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def _interrupt_between_saves(command, repo, env, build, deadline):
    """One interrupted run of ``command`` in ``build``: a second after the first environment's
    results are saved, while the second environment's cases run (about 3 s at `tiny`), its process
    group is frozen (SIGSTOP) and the saved files counted, then sent Ctrl-C's SIGINT and let go.

    An attempt counts when the count was one (``between``) and asv got the SIGINT. A count of two (a
    poller starved on a loaded machine) came too late. And CPython loses a SIGINT that lands while a fork
    returns: its KeyboardInterrupt is raised in a Python at-fork hook (filelock's, logging's) and
    printed as "Exception ignored", and asv runs on (dsib's wrappers send SIGINT again after 10 s, by
    when `tiny`'s second environment is saved). The second waited for lets asv's fork of the second
    environment's forkserver pass first."""
    results = os.path.join(repo, build, "results")
    log_path = os.path.join(repo, build + "-interrupted.log")
    between = False
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            command + ["BUILD=" + build],
            cwd=repo,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            while not _results_files(results) and proc.poll() is None and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGSTOP)
                between = len(_results_files(results)) == 1
                os.killpg(proc.pid, signal.SIGINT)
                os.killpg(proc.pid, signal.SIGCONT)
            except ProcessLookupError:  # it ended before it was seen to save anything
                pass
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    for _ in range(100):  # asv's forkserver and its cases go with their group
        if _gone(proc.pid):
            break
        time.sleep(0.1)
    with open(log_path) as f:
        interrupted_log = f.read()
    first = {}
    for path in _results_files(results):
        with open(path) as f:
            first[path] = json.load(f)["results"]
    ignored = re.findall(
        r"Exception ignored in: (.*)\n(?:(?!Exception ignored).*\n){0,30}?KeyboardInterrupt", interrupted_log
    )
    lost = between and len(first) == 2 and any("threading" not in where for where in ignored)
    return {
        "between": between,
        "lost_in_a_fork": lost,
        "interrupted_returncode": proc.returncode,
        "interrupted_log": interrupted_log,
        "group_gone": _gone(proc.pid),
        "saved_when_interrupted": first,
        "results": results,
    }


@pytest.fixture(scope="module")
def resumed(sweep, tiny_data_dir, request):
    """`make run-matrix SHARD=1/1` over the sweep's two environments (the unsharded run's cells), in
    a build directory of its own: started, interrupted as Ctrl-C would (SIGINT to its process group)
    after the first environment's results are saved and before the second's, then run again. An
    attempt that does not count (_interrupt_between_saves) is made again, in a fresh build
    directory, up to three times."""
    repo = os.path.dirname(sweep["build-all"])
    env = dict(os.environ, DSIB_DATA_DIR=tiny_data_dir)
    env.pop("MAKEFLAGS", None)
    command = _make() + ["run-matrix", "SHARD=1/1"]
    deadline = time.time() + 1200
    attempts = []
    for attempt in range(1, 4):
        build = "build-resumed-%d" % attempt
        attempts.append(_interrupt_between_saves(command, repo, env, build, deadline))
        if attempts[-1]["between"] and not attempts[-1]["lost_in_a_fork"]:
            break
    interrupted = attempts[-1]
    done = run_with_progress(
        command + ["BUILD=" + build], repo, env, request, "make run-matrix SHARD=1/1, resumed (%s)" % build
    )
    assert done.returncode == 0, done.stdout[-6000:]
    return dict(interrupted, attempts=len(attempts), resume_log=done.stdout)


def test_an_interrupted_matrix_run_stopped_part_way_and_left_no_process(resumed):
    assert resumed["between"], "in %d attempts no interruption came between the two saves" % resumed["attempts"]
    assert not resumed["lost_in_a_fork"], "in %d attempts every SIGINT was lost in a fork" % resumed["attempts"]
    assert resumed["interrupted_returncode"] != 0, resumed["interrupted_log"][-3000:]
    assert len(resumed["saved_when_interrupted"]) == 1, (
        "one environment of two was saved when it was interrupted",
        resumed["interrupted_log"][-4000:],
    )
    assert resumed["group_gone"], "the interrupted run's processes are gone"


def test_the_resumed_run_measures_only_what_was_missing_and_holds_the_cells_of_an_uninterrupted_run(resumed, sweep):
    ((path, before),) = resumed["saved_when_interrupted"].items()
    with open(path) as f:
        after = json.load(f)["results"]
    assert after == before, "the environment saved before the interruption was not measured again"
    assert len(_results_files(resumed["results"])) == len(TEST_ENTRIES)
    cells = _cells(resumed["results"])
    assert cells == _cells(os.path.join(sweep["build-all"], "results"))
    assert all(list(found.values()).count("measured") >= 6 for found in cells.values()), cells


def test_the_matrix_runs_the_release_selection_and_resumes_with_asvs_own_flag(resumed, sweep):
    """run-matrix's -b is the release-tracking selection (within FORMAT and SOURCE): asv ran no cell
    outside it, in processes that keep freed memory (chains.FREED_MEMORY_KEPT), and it resumes with
    --skip-existing-successful, not --skip-existing (which would never retry a cell that failed)."""
    from dsib_tools import asv_results, chains, matrix, run

    for res in asv_results.runs(resumed["results"], MACHINE):
        assert chains.keeps_freed_memory(res.env_vars), res.env_name  # as every entry of the configs says
    for name, kinds in _cells(resumed["results"]).items():
        for cell, kind in kinds.items():
            if kind != "skipped":
                benchmark, params = cell.split("(", 1)
                assert matrix.in_release(benchmark, [p.strip(" '") for p in params.rstrip(")").split(",")]), cell
    done = subprocess.run(
        ["make", "-n", "-o", os.path.join(sys.prefix, "bin", ".ready"), "VENV=" + sys.prefix, "run-matrix"],
        cwd=os.path.dirname(sweep["build-all"]),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert "dsib_tools run " in done.stdout and "--matrix curated --selection release" in done.stdout, done.stdout
    command = run.asv_command("matrix.json", "m", "tiny", "HEAD", matrix=True)
    assert "--skip-existing-successful" in command and "--skip-existing" not in command, command

"""``asv publish`` from a filtered staging copy of a results directory, then asv's pages made to work.

asv's graph page fetches one graph per environment of ``index.json`` for the benchmark it shows,
and an environment without results for that benchmark answers with a 404 (and, in asv 0.6.6,
breaks the plot toggles). The staging copy therefore leaves out every result whose benchmark
version is gone from ``benchmarks.json`` (asv ignores them anyway), and ``benchmarks.json`` lists
only the benchmarks some environment has (a run of a selection, ``make bench FORMAT=parquet``,
publishes that selection). An environment that lacks a benchmark another has (the release
matrix runs a selection of the suite; the newest environment runs it all) gets an empty graph
for it after asv publish (``fill_missing_graphs``): its line is absent, not a failed request.
The results directory itself is only read: committed history is never deleted.

After publishing, asv's generated files get three rewrites (idempotent; each fails loudly when
asv's text is not the one it was written against):

- ``index.json`` lists each parameter's values with the newest release's first, because asv's
  list view opens on the first value of every parameter (pyarrow 0.11.1 by plain string order);
- ``summarygrid.js`` links a thumbnail of fewer than two points (one commit: no line to draw) to
  the release view, which plots every case across releases instead of across commits;
- ``asv.js`` keeps a cached graph's data for the callback it promised it to (see CACHE_PATCH)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from . import asv_results
from .matrix import version_tuple
from .workspace import BENCHMARKS_JSON, _load_json as _load

RELEASES_PAGE = "dsib/releases.html"
# The machine whose report is the dsib page and whose release view opens first: the first machine
# of the history taken with the current suite. Every other machine in results/ follows.
REFERENCE_MACHINE = "xeon-m207-2c-24g"
# The release parameters that order the environments, most significant first (as `make bench`
# picks its one environment: dsib_tools.matrix.newest).
RELEASE_KEYS = ("pyarrow", "pandas", "python")


def published_machines(results_dir, reference=REFERENCE_MACHINE):
    """The machines of ``results_dir`` (each folder with a machine.json), the reference first."""
    found = sorted(m for m in os.listdir(results_dir) if os.path.isfile(os.path.join(results_dir, m, "machine.json")))
    return ([reference] if reference in found else []) + [m for m in found if m != reference]


def _write(path, data):
    with open(path, "w") as f:
        json.dump(data, f)


def _current_results(results_dir, staging, benchmarks, profile):
    """{(machine, environment): [asv Results, with the current benchmarks' results only]} of
    ``results_dir`` (at ``profile`` where given); each machine's machine.json copied to ``staging``."""
    environments = {}
    for machine in published_machines(results_dir):
        os.makedirs(os.path.join(staging, machine))
        shutil.copy(os.path.join(results_dir, machine, "machine.json"), os.path.join(staging, machine))
        for res in asv_results.runs(results_dir, machine):
            if profile is None or (res.env_vars or {}).get("DSIB_PROFILE") == profile:
                runs = environments.setdefault((machine, res.env_name), [])
                runs.append(asv_results.drop_stale(res, benchmarks))
    return environments


def stage(results_dir, staging, profile=None):
    """Copy ``results_dir`` into ``staging`` without stale results, with ``benchmarks.json`` listing
    the benchmarks that some environment has; with ``profile``, only the results at that profile
    (asv's summary graphs take every environment's results along the commits, so two scales there
    would make one line).

    Returns [(machine, environment, benchmarks it lacks)] for each environment left out: those
    with no current result at all."""
    from asv.util import write_json

    benchmarks = asv_results.benchmarks(results_dir)
    os.makedirs(staging)
    environments = _current_results(results_dir, staging, benchmarks, profile)
    has = dict((key, set().union(*(res.get_all_result_keys() for res in runs))) for key, runs in environments.items())
    published = set().union(*has.values()) if has else set()
    listed = dict((name, b) for name, b in benchmarks.items() if name in published)
    write_json(os.path.join(staging, BENCHMARKS_JSON), listed, benchmarks.api_version)
    left_out = []
    for (machine, env_name), runs in sorted(environments.items()):
        if not has[(machine, env_name)]:
            left_out.append((machine, env_name, sorted(published)))
            continue
        for res in runs:
            if res.get_all_result_keys():
                res.save(staging)  # as staging/<machine>/<its file name>
    return left_out


def fill_missing_graphs(html_dir):
    """An empty graph (``[]``) for each benchmark of ``index.json`` in each environment that asv
    published none for; returns how many. asv's graph page then draws no line for that environment
    instead of failing a request. The paths are asv's own (``Graph.get_file_path``); an environment
    with no graph at all under them means asv's rule changed, and is an error."""
    from asv.graph import Graph

    index = _load(os.path.join(html_dir, "index.json"))
    filled = 0
    for params in index.get("graph_param_list", []):
        paths = [os.path.join(html_dir, Graph.get_file_path(params, name) + ".json") for name in index["benchmarks"]]
        missing = [p for p in paths if not os.path.exists(p)]
        if paths and len(missing) == len(paths):
            raise ValueError("asv published no graph under %s: not asv 0.6's layout" % os.path.dirname(paths[0]))
        for path in missing:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _write(path, [])
        filled += len(missing)
    return filled


def newest_environment(graph_param_list, reference=REFERENCE_MACHINE):
    """The graph parameters of the environment of the newest pyarrow, then pandas, then Python; of
    equals (the newest releases at another profile, or on another machine, or as the release
    matrix runs them, with freed memory kept), the published profile's on the reference machine
    with glibc's defaults (``make bench``'s, every benchmark), where a reader of the dashboard starts."""
    from .chains import FREED_MEMORY_KEPT
    from .release_data import PUBLISHED_PROFILE

    return max(
        graph_param_list,
        key=lambda params: (
            tuple(version_tuple(params.get(k) or "0") for k in RELEASE_KEYS),
            params.get("env-DSIB_PROFILE") == PUBLISHED_PROFILE,
            params.get("machine") == reference,
            not any(params.get("env-" + k) for k in FREED_MEMORY_KEPT),
        ),
    )


def open_on_newest_release(html_dir):
    """Put the newest environment's value first in each parameter of ``index.json``."""
    path = os.path.join(html_dir, "index.json")
    index = _load(path)
    if not isinstance(index.get("graph_param_list"), list) or not isinstance(index.get("params"), dict):
        raise ValueError("%s has no params and graph_param_list: not asv 0.6's index" % path)
    if not index["graph_param_list"]:
        return None  # no environment has every benchmark: asv's graphs are empty, nothing to open on
    newest = newest_environment(index["graph_param_list"])
    for key, values in index["params"].items():
        if key in newest and newest[key] in values:
            values.remove(newest[key])
            values.insert(0, newest[key])
    _write(path, index)
    return newest


# asv 0.6.6's summarygrid.js: where a thumbnail's data has arrived, and the link to the release
# view inserted there for a thumbnail with no line to draw.
SUMMARY_ANCHOR = """            ).done(function(data) {
                var options = {"""
SUMMARY_PATCH = (
    """            ).done(function(data) {
                /* dsib: one commit is one point, which flot draws as nothing */
                if (data.filter(function(p) { return p[1] !== null; }).length < 2) {
                    container.attr('href', '%s');
                    container.addClass('dsib-to-releases');
                    plot_div.text('one commit: see the release view');
                    return;
                }
                var options = {"""
    % RELEASES_PAGE
)
# asv 0.6.6's asv.js resolves a cached graph a millisecond later from the cache, which a load
# finishing meanwhile may have emptied (it empties it whole past 5 graphs): a graph page of more
# environments then plots `undefined` on every toggle (TypeError in filter_graph_data).
CACHE_ANCHOR = """        if (graph_cache[url]) {
            setTimeout(function() {
                dfd.resolve(graph_cache[url]);
            }, 1);
        }"""
CACHE_PATCH = """        var cached = graph_cache[url];  /* dsib: the data found, whatever the cache holds later */
        if (cached) {
            setTimeout(function() {
                dfd.resolve(cached);
            }, 1);
        }"""
REWRITES = (("summarygrid.js", SUMMARY_ANCHOR, SUMMARY_PATCH), ("asv.js", CACHE_ANCHOR, CACHE_PATCH))


def rewrite(path, anchor, patch):
    """Replace asv's ``anchor`` in ``path`` by ``patch``, once (idempotent)."""
    with open(path) as f:
        text = f.read()
    if patch in text:
        return False
    if text.count(anchor) != 1:
        raise ValueError("%s is not asv 0.6.6's: its text to rewrite is not there once:\n%s" % (path, anchor))
    with open(path, "w") as f:
        f.write(text.replace(anchor, patch))
    return True


def publish(config_path, html_dir=None, profile=None):
    """asv publish of ``config_path``'s results (those at ``profile``, if given) into its html (or
    ``html_dir``), from a staging copy; returns the environments left out."""
    conf = _load(config_path)
    # asv reads a config's paths from the config's directory, and the staged config is elsewhere.
    base = os.path.dirname(os.path.abspath(config_path))
    for key in ("repo", "benchmark_dir", "env_dir"):
        if key in conf:
            conf[key] = os.path.join(base, conf[key])
    results_dir = os.path.join(base, conf["results_dir"])
    html_dir = os.path.abspath(html_dir or os.path.join(base, conf["html_dir"]))
    with tempfile.TemporaryDirectory(prefix="dsib-publish-") as tmp:
        staging = os.path.join(tmp, "results")
        left_out = stage(results_dir, staging, profile)
        conf["results_dir"] = staging
        staged_config = os.path.join(tmp, "asv.conf.json")
        _write(staged_config, conf)
        subprocess.run(
            [sys.executable, "-m", "asv", "publish", "--config", staged_config, "--html-dir", html_dir], check=True
        )
    open_on_newest_release(html_dir)
    fill_missing_graphs(html_dir)
    for name, anchor, patch in REWRITES:
        rewrite(os.path.join(html_dir, name), anchor, patch)
    return left_out

"""asv's results, read in one place. Every tool reads a results tree (or one results file) here:
as asv's own ``Results`` of each run (``runs``, ``load``), as one run's cells (``cells``), or as a
tidy table of every cell of every run (``table``); and the suite the results were taken with, asv's
``Benchmarks`` of the tree's benchmarks.json (``benchmarks``, ``param_names``)."""

import itertools
import os

# The table's columns: the run (its machine, commit, environment and that environment's pins and
# variables), then the cell (the benchmark, its parameter values, asv's full name of the cell) and
# what asv kept of it: the value (a median, a size, a peak; NaN where the cell skipped, None where
# it failed), asv's statistics (q_25, q_75, ci_99_a, ci_99_b, repeat, number), the samples where
# the run recorded them, the benchmark's version and the seconds the benchmark took.
COLUMNS = (
    "machine",
    "commit",
    "env_name",
    "pins",
    "env_vars",
    "date",
    "benchmark",
    "params",
    "cell",
    "value",
    "stats",
    "samples",
    "version",
    "duration",
)


class NoResults(Exception):
    """No results where a command looked: it says where and how to make them."""


def machines(results_dir):
    """The machines ``results_dir`` holds results of (a directory each)."""
    if not os.path.isdir(results_dir):
        raise NoResults("no results directory %s: run the suite first (make bench)" % results_dir)
    return sorted(d for d in os.listdir(results_dir) if os.path.isdir(os.path.join(results_dir, d)))


def config(results_dir):
    """The little of asv's ``Config`` that its loaders and ``asv compare`` read: where the results are."""
    from asv.config import Config

    conf = Config()
    conf.results_dir = results_dir
    return conf


def benchmarks(results_dir):
    """asv's ``Benchmarks`` of the benchmarks.json asv writes beside the results: each benchmark's
    parameters, unit and version."""
    from asv.benchmarks import Benchmarks

    path = Benchmarks.get_benchmark_file_path(results_dir)
    if not os.path.exists(path):
        raise NoResults("%s is missing: it is written by `asv run`" % path)
    return Benchmarks.load(config(results_dir))


def param_names(results_dir):
    """``{benchmark: param_names}`` of the tree's benchmarks.json."""
    return dict((name, b.get("param_names", [])) for name, b in benchmarks(results_dir).items())


def drop_stale(res, benchmarks):
    """What asv publish does: a result whose benchmark version is not ``benchmarks``' is ignored
    (removed from ``res``, which is returned)."""
    for key in set(res.get_all_result_keys()) - res.get_result_keys(benchmarks):
        res.remove_result(key)
    return res


def load(path):
    """asv's ``Results`` of one results file."""
    from asv.results import Results

    return Results.load(path)


def runs(results_dir, machine, commit=None, env=None):
    """asv's ``Results`` of ``machine`` in ``results_dir``, one per run (a commit in an environment):
    of the commit whose hash starts with ``commit`` where given, of the environments whose name
    holds ``env`` where given."""
    from asv.results import iter_results_for_machine, iter_results_for_machine_and_hash

    if commit and len(commit) == 40:
        found = iter_results_for_machine_and_hash(results_dir, machine, commit)
    else:
        found = iter_results_for_machine(results_dir, machine)
    return [
        res for res in found if (not commit or res.commit_hash.startswith(commit)) and (not env or env in res.env_name)
    ]


def cells(res, benchmarks=None, only=None):
    """A dict per cell of one run (asv's ``Results``), the ``benchmark`` … ``duration`` columns of
    ``table``: only the benchmarks in ``benchmarks`` (a benchmarks.json's, whose versions they
    must match, as asv publish keeps them) where given, only the benchmark named ``only`` where
    given."""
    from asv.commands.compare import unroll_result

    keys = res.get_all_result_keys() if benchmarks is None else res.get_result_keys(benchmarks)
    if only is not None:
        keys = [only] if only in keys else []
    for key in sorted(keys):
        params = res.get_result_params(key)
        unrolled = unroll_result(
            key,
            params,
            res.get_result_value(key, params),
            res.get_result_stats(key, params),
            res.get_result_samples(key, params),
        )
        for combo, (name, value, stats, samples) in zip(itertools.product(*params), unrolled):
            yield {
                "benchmark": key,
                "params": combo,
                "cell": name,
                "value": value,
                "stats": stats,
                "samples": samples,
                "version": res.benchmark_version.get(key),
                "duration": res.duration.get(key),
            }


def table(results_dir, machine=None, commit=None, env=None):
    """Every cell of every run of ``results_dir`` (of ``machine``, ``commit`` and ``env`` where
    given, as ``runs`` chooses), a row each, in ``COLUMNS``."""
    import pandas

    rows = []
    for name in [machine] if machine else machines(results_dir):
        for res in runs(results_dir, name, commit, env):
            run = {
                "machine": name,
                "commit": res.commit_hash,
                "env_name": res.env_name,
                "pins": dict(res.params),
                "env_vars": dict(res.env_vars or {}),
                "date": res.date,
            }
            rows.extend(dict(run, **cell) for cell in cells(res))
    return pandas.DataFrame(rows, columns=list(COLUMNS))

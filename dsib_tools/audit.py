"""``python -m dsib_tools audit``: the 2019 post's seven cases timed again outside asv.

asv's figure of a case is the median of its samples, each taken in a process that asv's
forkserver forked, with the garbage collector off while it times (``timeit``). The audit takes
the same cells of the same run (the environment asv built, the checkout's code at the run's
commit, the same data and files) and times each one in fresh processes of its own: a new
interpreter that imports the suite, runs the case's ``setup`` as asv does, and times one call of
the case with a plain ``time.perf_counter`` and the collector on, as a user's script would.

The record (``checks/audit-<machine>.json``) keeps asv's figures of each case as the run's result
file has them (median, quartiles, sample count: asv keeps no samples unless asked) and the
audit's samples, so that the README's table (``audit-table``) is computed from committed
data: each case's two medians and spreads, and whether asv's median lies within the audit's own
interquartile range.
"""
import datetime
import json
import os
import statistics
import subprocess

from . import load, noise, suite
from .report import format_seconds

# Runs in the benchmark environment's interpreter, from the checkout (cwd), importing nothing of
# the tools: the suite's class, its setup, one timed call.
CHILD = """
import importlib, json, sys, time
spec = json.loads(sys.argv[1])
cls = getattr(importlib.import_module("benchmarks." + spec["module"]), spec["cls"])
case = cls()
call = getattr(case, spec["method"])
seconds = []
for _ in range(2):
    case.setup(*spec["params"])
    start = time.perf_counter()
    call(*spec["params"])
    seconds.append(time.perf_counter() - start)
print(json.dumps({"first": seconds[0], "second": seconds[1]}))
"""
SAMPLES = 5


class AuditError(Exception):
    pass


def post_cells():
    """(label, format, asv's cell name, class, method, params) of the post's seven cases."""
    from dsib.formats import POST_2019_FORMATS

    cells = []
    for case in suite.POST_2019:
        for fmt in POST_2019_FORMATS:
            params = [case.given["source"], fmt] + ([case.given["variant"]] if "variant" in case.given else [])
            name = "%s(%s)" % (suite.name(case.cls, case.method), ", ".join(repr(p) for p in params))
            cells.append((case.label, fmt, name, case.cls, case.method, params))
    return cells


def _run_of(results_dir, machine, commit, profile):
    """asv's result of ``commit`` at ``profile``, and its cells."""
    from asv.results import iter_results_for_machine_and_hash

    from .compare import _cells

    found = [res for res in iter_results_for_machine_and_hash(results_dir, machine, commit)
             if res.env_name.endswith("DSIB_PROFILE%s" % profile)]
    if len(found) != 1:
        raise AuditError("%d results of %s at the %s profile in %s (machine %s); the audit needs the one that "
                         "`make bench` writes" % (len(found), commit[:8], profile, results_dir, machine))
    return found[0], _cells(results_dir, machine, commit)


def _python_of(config, env_name):
    from asv import environment
    from asv.config import Config

    conf = Config.load(config)
    for env in environment.get_environments(conf, None, verbose=False):
        if env.name == env_name:
            python = env.find_executable("python")
            if python and os.path.exists(python):
                return python
    raise AuditError("asv's environment %s is not built here (config %s): run `make bench` first" % (env_name, config))


def time_once(python, root, cell, data_dir, profile):
    _, _, _, cls, method, params = cell
    spec = {"module": cls.__module__.split(".", 1)[1], "cls": cls.__name__, "method": method, "params": params}
    env = dict(os.environ, DSIB_PROFILE=profile, DSIB_DATA_DIR=data_dir, PYTHONPATH=root)
    proc = subprocess.run([python, "-c", CHILD, json.dumps(spec)], cwd=root, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        raise AuditError("%s failed outside asv:\n%s" % (cell[2], proc.stderr[-2000:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(root, config, results_dir, machine, data_dir, profile="default", samples=SAMPLES, progress=print):
    from .compare import resolve

    commit = resolve(root, "HEAD")
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "dsib", "data_prep",
                            "benchmarks"], cwd=root, stdout=subprocess.PIPE, universal_newlines=True).stdout
    if dirty.strip():
        raise AuditError("the checkout's dsib, data_prep or benchmarks differ from %s: the audit runs the code asv "
                         "measured, so commit or stash first:\n%s" % (commit[:8], dirty))
    res, cells = _run_of(results_dir, machine, commit, profile)
    python = _python_of(config, res.env_name)
    asv_load = load.Machine(results_dir, machine).run(res)
    record = {"machine": machine, "commit": commit, "env_name": res.env_name, "profile": profile,
              "asv_load": load.as_record(asv_load),
              "date": datetime.date.today().isoformat(), "samples_asked": samples, "cases": []}
    span = load.Span()
    for cell in post_cells():
        label, fmt, name, _, _, _ = cell
        value, (stats, _), _ = cells.get(name, (None, (None, None), None))
        if not stats:
            raise AuditError("asv's run has no measured %s (value %r)" % (name, value))
        calls = [time_once(python, root, cell, data_dir, profile) for _ in range(samples)]
        times = dict((which, [c[which] for c in calls]) for which in ("first", "second"))
        # asv's run keeps its samples' statistics, not the samples (asv run records them only
        # when asked): the median, the quartiles and the count are what asv publishes.
        asv = {"median": value, "q_25": stats["q_25"], "q_75": stats["q_75"], "n": stats["repeat"],
               "number": stats["number"]}
        record["cases"].append({"case": label, "format": fmt, "cell": name, "asv": asv, "audit": times})
        progress("%-20s %-8s asv %s, outside: first call %s, second %s" % (
            label, fmt, _describe_asv(asv), _describe(times["first"]), _describe(times["second"])))
    machine_load = span.load()
    record.update(seconds=round(machine_load.seconds, 1), load=load.as_record(machine_load))
    return record


def quartiles(samples):
    """asv's way: the median and the 25th/75th percentiles of the samples."""
    from asv_runner.statistics import quantile

    ordered = sorted(samples)
    return quantile(ordered, 0.25), statistics.median(ordered), quantile(ordered, 0.75)


def _asv_quartiles(asv):
    return asv["q_25"], asv["median"], asv["q_75"]


def _spread(quartile_triple):
    """``median (q25–q75)``, as the report prints a time."""
    q25, median, q75 = (format_seconds(value) for value in quartile_triple)
    return "%s (%s–%s)" % (median, q25, q75)


def _describe(samples):
    return "%s, n=%d" % (_spread(quartiles(samples)), len(samples))


def _describe_asv(asv):
    return "%s, n=%d" % (_spread(_asv_quartiles(asv)), asv["n"])


def agrees(case, which):
    """asv's median within the interquartile range of the audit's ``which`` ("first"/"second") calls."""
    q25, _, q75 = quartiles(case["audit"][which])
    return q25 <= case["asv"]["median"] <= q75


def markdown(record):
    lines = ["The 2019 post's cases timed outside asv (`python -m dsib_tools audit`), machine `%s`, commit `%s`, "
             "profile `%s`, %s (%s). Other processes and steal: during asv's run %s; during the audit (%.1f min) "
             "%s. asv: the run's figures (`number` %s: one call a sample); outside: %d fresh "
             "processes a case, each timing the case's first call and, after `setup` again, its second, with a "
             "plain `time.perf_counter` and the garbage collector on. \"within\": asv's median lies within the "
             "outside calls' interquartile range." % (
                 record["machine"], record["commit"][:8], record["profile"], record["env_name"], record["date"],
                 load.describe_record(record["asv_load"]), record["seconds"] / 60, load.describe_record(record["load"]),
                 "/".join(sorted(set(str(c["asv"]["number"]) for c in record["cases"]))), record["samples_asked"]),
             "",
             "| case | format | asv: median (IQR), samples | outside, first call: median (IQR) | / asv | within | "
             "outside, second call: median (IQR) | / asv | within |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"]
    for case in record["cases"]:
        asv = _asv_quartiles(case["asv"])
        cells = []
        for which in ("first", "second"):
            q = quartiles(case["audit"][which])
            cells.append("%s | %.2f | %s" % (_spread(q), q[1] / asv[1], "yes" if agrees(case, which) else "no"))
        lines.append("| %s | %s | %s, %d | %s |" % (case["case"], case["format"], _spread(asv), case["asv"]["n"],
                                                   " | ".join(cells)))
    return "\n".join(lines)


def save(record, path):
    noise.save(record, path)


def load_record(path):
    return noise.load(path)

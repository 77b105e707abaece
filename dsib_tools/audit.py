"""``python -m dsib_tools study audit``: the 2019 post's seven cases timed outside asv, interleaved with asv.

asv's figure of a case is the median of its samples: each process that its forkserver forks runs
the case's ``setup`` and then times one call at a time with ``timeit`` (the garbage collector off
while it times), up to the class's ``repeat`` samples, in ``rounds`` processes. The audit runs, for
each case and in turn, ``ROUNDS`` times over:

- ``asv run`` of that one cell (the environment asv built, the checkout's commit, the same data and
  files), its samples recorded;
- the same number of fresh interpreters of that environment, each importing the suite, running
  ``setup`` as asv does and timing calls with a plain ``time.perf_counter`` as a user's script
  would, the garbage collector on, sampled as asv samples (the class's ``repeat``, ``number`` 1);
- as many again with the collector off while each call is timed, as ``timeit`` does.

Interleaving puts the machine's drift into every column alike, and the two outside columns
separate what the harness changes: the process (forked from a server that imported the suite
against a fresh interpreter) and the collector. The first call of each fresh interpreter is kept
apart too: it is what a script that reads one file once sees.

The record (``records/audits/audit-<machine>.json``) keeps every sample of every column, so that the
README's table (``table audit``) is computed from committed data.
"""

import datetime
import glob
import json
import os
import re
import statistics
import subprocess
import sys

from . import machine_load, noise_record, suite
from .markdown import table
from .report_cells import format_seconds

# Runs in the benchmark environment's interpreter, from the checkout (cwd), importing nothing of
# the tools: the suite's class, its setup before every call (asv_runner >= 0.3 does), and asv's
# rule for how many calls a process takes: at least min_repeat and two, at most max_repeat, and
# no more once max_time has passed. Forked, it does what asv's forkserver does: this interpreter
# has imported the suite, and each process of samples is a child forked from it.
CHILD = """
import gc, importlib, json, os, sys, time
spec = json.loads(sys.argv[1])
cls = getattr(importlib.import_module("benchmarks." + spec["module"]), spec["cls"])
params = spec["params"]
min_repeat, max_repeat, max_time = spec["repeat"]


def samples():
    case = cls()
    call = getattr(case, spec["method"])
    seconds = []
    began = time.perf_counter()
    while len(seconds) < max_repeat:
        case.setup(*params)
        if spec["gc_off"]:
            gc.disable()
        start = time.perf_counter()
        call(*params)
        seconds.append(time.perf_counter() - start)
        gc.enable()
        if len(seconds) >= max(min_repeat, 2) and time.perf_counter() > began + max_time:
            break
    return seconds


def done(processes):
    # Ends as asv ends a case's process, with os._exit: the interpreter's teardown is not timed, and
    # pyarrow's thread pools can abort it ("terminate called without an active exception", apache/arrow
    # #34314) after every sample has been printed.
    sys.stdout.write(json.dumps(processes) + "\\n")
    sys.stdout.flush()
    os._exit(0)


if not spec["forked"]:
    done([samples()])
processes = []
for _ in range(spec["processes"]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        status = 1
        try:
            os.write(write, json.dumps(samples()).encode("utf-8"))
            status = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    if os.waitpid(pid, 0)[1] != 0:
        sys.exit("a forked process of samples failed")
    processes.append(json.loads(b"".join(chunks).decode("utf-8")))
done(processes)
"""
ROUNDS = 3
# The columns, in the order of a case's first round; each later round starts one further on, so
# that no column always follows another.
COLUMNS = ("asv", "forked", "gc_off", "gc_on")
OUTSIDE = COLUMNS[1:]


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


def sampling_of(cls):
    """asv_runner's sampling of ``cls``'s time cases: (processes, (min samples, max samples,
    seconds after which a process takes no more))."""
    rounds = int(getattr(cls, "rounds", 2))
    repeat = getattr(cls, "repeat", 0)
    if isinstance(repeat, (tuple, list)):
        low, high, seconds = repeat
    elif repeat == 0:
        low, high, seconds = 1, 10, 20.0
        if rounds > 1:
            high, seconds = high // 2, seconds / 2
    else:
        low = high = repeat
        seconds = getattr(cls, "timeout", None) or 60.0
    return rounds, (int(low), int(high), float(seconds))


def order(round_number):
    shift = round_number % len(COLUMNS)
    return list(COLUMNS[shift:] + COLUMNS[:shift])


def write_config(config, results_dir, path):
    """The run's asv config with the audit's own results directory (the same environments)."""
    with open(config) as f:
        conf = json.load(f)
    conf["results_dir"] = os.path.abspath(results_dir)
    with open(path, "w") as f:
        json.dump(conf, f, indent=4)
    return path


def _python_of(config, env_name):
    from asv import environment
    from asv.config import Config

    conf = Config.load(config)
    for env in environment.get_environments(conf, None, verbose=False):
        if env.name == env_name:
            python = env.find_executable("python")
            if python and os.path.exists(python):
                return python
    raise AuditError("asv's environment %s is not built here (config %s)" % (env_name, config))


def asv_samples(root, config, results_dir, machine, commit, cell):
    """One ``asv run`` of ``cell`` alone: its samples (every process's), asv's ``number`` and
    the environment's name."""
    from . import asv_results

    from .compare import _cells

    for path in glob.glob(os.path.join(results_dir, machine, commit[:8] + "-*.json")):
        os.remove(path)
    command = [
        sys.executable,
        "-m",
        "asv",
        "run",
        "--config",
        config,
        "--machine",
        machine,
        "--record-samples",
        "--show-stderr",
        "-b",
        "^%s$" % re.escape(cell[2]),
        commit + "^!",
    ]
    proc = subprocess.run(
        command,
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        env=dict(os.environ, DSIB_SELECT=command[-2]),
    )
    value, (stats, samples), _ = _cells(results_dir, machine, commit).get(cell[2], (None, (None, None), None))
    if proc.returncode != 0 or not samples:
        raise AuditError(
            "asv run of %s measured nothing (status %d, value %r):\n%s"
            % (cell[2], proc.returncode, value, proc.stdout[-3000:])
        )
    env_name = asv_results.runs(results_dir, machine, commit)[0].env_name
    return samples, stats["number"], env_name


def outside_samples(python, root, cell, data_dir, profile, repeat, processes, column):
    """``column``'s processes of samples of ``cell``, each sampled as asv samples: ``forked``,
    children of one interpreter that imported the suite, the collector off; ``gc_off`` and
    ``gc_on``, fresh interpreters, the collector off or on while a call is timed."""
    _, _, _, cls, method, params = cell
    spec = {
        "module": cls.__module__.split(".", 1)[1],
        "cls": cls.__name__,
        "method": method,
        "params": params,
        "repeat": repeat,
        "gc_off": column != "gc_on",
        "forked": column == "forked",
        "processes": processes,
    }
    if column != "forked":
        return [one for _ in range(processes) for one in _child(python, root, cell, data_dir, profile, spec)]
    return _child(python, root, cell, data_dir, profile, spec)


def _child(python, root, cell, data_dir, profile, spec):
    env = dict(os.environ, DSIB_PROFILE=profile, DSIB_DATA_DIR=data_dir, PYTHONPATH=root)
    proc = subprocess.run(
        [python, "-c", CHILD, json.dumps(spec)],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    if proc.returncode != 0:
        raise AuditError("%s failed outside asv:\n%s" % (cell[2], proc.stderr[-2000:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _clean_commit(root):
    from .compare import resolve
    from .run import measured_code_changes

    commit = resolve(root, "HEAD")
    changes = measured_code_changes(commit, root)
    if changes:
        raise AuditError(
            "the checkout's %s differ from %s: asv measures the commit and the audit the checkout, "
            "so commit or stash first" % (", ".join(changes), commit[:8])
        )
    return commit


def measure(root, config, results_dir, machine, data_dir, profile="default", rounds=ROUNDS, only=None, progress=print):
    """The audit's record; ``only``: a regular expression, the cells whose name it finds (all where None)."""
    commit = _clean_commit(root)
    own_config = write_config(config, results_dir, os.path.join(root, ".asv-audit-%s.conf.json" % profile))
    record = {
        "machine": machine,
        "commit": commit,
        "profile": profile,
        "date": datetime.date.today().isoformat(),
        "rounds": rounds,
        "cases": [],
    }
    span = machine_load.Span()
    python = None
    cells = [cell for cell in post_cells() if not only or re.search(only, cell[2])]
    if not cells:
        raise AuditError("no case of the post matches %r" % only)
    for cell in cells:
        label, fmt, name, cls, _, _ = cell
        processes, repeat = sampling_of(cls)
        case = dict(
            {"case": label, "format": fmt, "cell": name, "processes": processes, "repeat": list(repeat), "order": []},
            **dict((column, []) for column in COLUMNS),
        )
        for round_number in range(rounds):
            # asv imports the suite from the checkout's benchmarks/, not from the commit: a checkout
            # changed while the audit runs would be timed under the commit's name.
            if _clean_commit(root) != commit:
                raise AuditError("the checkout moved from %s while the audit ran" % commit[:8])
            case["order"].append(order(round_number))
            for column in case["order"][-1]:
                if column == "asv":
                    samples, case["number"], record["env_name"] = asv_samples(
                        root, own_config, results_dir, machine, commit, cell
                    )
                    python = python or _python_of(own_config, record["env_name"])
                    case["asv"].append(samples)
                else:
                    case[column].append(
                        outside_samples(python, root, cell, data_dir, profile, repeat, processes, column)
                    )
        record["cases"].append(case)
        progress(" ".join(row_cells(case)))
    during = span.load()
    record.update(seconds=round(during.seconds, 1), load=machine_load.as_record(during))
    return record


def quartiles(samples):
    """asv's way: the 25th percentile, the median and the 75th percentile of the samples."""
    from asv_runner.statistics import quantile

    ordered = sorted(samples)
    return quantile(ordered, 0.25), statistics.median(ordered), quantile(ordered, 0.75)


def pooled(case, column):
    """Every sample of a column, over its rounds (and, outside asv, its processes)."""
    if column == "asv":
        return [s for run in case["asv"] for s in run]
    return [s for step in case[column] for process in step for s in process]


def first_calls(case):
    """Each fresh interpreter's first call, the collector on: a script that reads one file once."""
    return [process[0] for step in case["gc_on"] for process in step]


def agrees(case, column):
    """asv's median within the interquartile range of an outside ``column``'s samples."""
    q25, _, q75 = quartiles(pooled(case, column))
    return q25 <= quartiles(pooled(case, "asv"))[1] <= q75


def _spread(samples):
    """``median (q25–q75), n``, as the report prints a time."""
    q25, median, q75 = (format_seconds(value) for value in quartiles(samples))
    return "%s (%s–%s), %d" % (median, q25, q75, len(samples))


def row_cells(case):
    """A case's row of the audit's table: asv's column, then each outside column beside it."""
    asv_median = quartiles(pooled(case, "asv"))[1]
    cells = [case["case"], case["format"], _spread(pooled(case, "asv"))]
    for column in OUTSIDE:
        median = quartiles(pooled(case, column))[1]
        within = "yes" if agrees(case, column) else "no"
        cells += [_spread(pooled(case, column)), "%.2f" % (median / asv_median), within]
    return cells + [_spread(first_calls(case)), "%.2f" % (quartiles(first_calls(case))[1] / asv_median)]


def markdown(record):
    lines = [
        "The 2019 post's cases timed by asv and outside it, in turn (`python -m dsib_tools study audit`), machine "
        "`%s`, commit `%s`, profile `%s`, %s (%s). Each case: %d rounds of four columns, each round starting one "
        "column further on: one `asv run` of the cell; the same calls in processes forked from an interpreter "
        "that imported the suite, as asv's forkserver does, the collector off while a call is timed, as `timeit` "
        "does; in fresh interpreters, the collector off; in fresh interpreters, the collector on, as a user's "
        "script. Each outside column has as many processes as asv's and samples as asv samples (`number` %s). "
        "Other processes and steal over the audit (%.0f min): %s. Each column: median (IQR), samples; "
        "\"within\": asv's median lies within that column's interquartile range."
        % (
            record["machine"],
            record["commit"][:8],
            record["profile"],
            record["env_name"],
            record["date"],
            record["rounds"],
            "/".join(sorted(set(str(c["number"]) for c in record["cases"]))),
            record["seconds"] / 60,
            machine_load.describe_record(record["load"]),
        ),
        "",
    ]
    head = ["case", "format", "asv"]
    for column in ("forked, collector off", "fresh, collector off", "fresh, collector on"):
        head += [column, "/ asv", "within"]
    head += ["fresh, first call", "/ asv"]
    lines.append(table(head, [row_cells(case) for case in record["cases"]], "llr" + "rrl" * 3 + "rr"))
    return "\n".join(lines)


def save(record, path):
    noise_record.save(record, path)


def load_record(path):
    return noise_record.load(path)

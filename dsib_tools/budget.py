"""How long the project's commands take from a fresh clone: the budget records.

``python -m dsib_tools study budget run -o RECORD -- make bench`` clones the repository's HEAD afresh,
runs the command there under the load watcher (``machine_load.watch``: the whole command's
process tree is its own, everything else on the machine is load), and writes RECORD: the wall
time, the exit status, the CPU, the commit, the load over the whole run and, where the command
ran asv under ``study load`` (``make bench``, ``make bench-matrix``), asv's own time from those
logs. ``budget table`` renders the records beside the targets they answer. A record taken under
load says so; only a quiet one shows whether a target is met.
"""

import datetime
import glob
import json
import os
import subprocess
import sys

from . import machine_load

KIND = "dsib budget record"
# The targets on the project's 2-core machines, in minutes of wall time (and, for
# `make bench`, of asv's own time), each from a fresh clone with everything included.
# `make bench-matrix`: about 10 minutes an environment of asv.conf.json's chains.
MATRIX_MINUTES_PER_ENVIRONMENT = 10
CURATED_ENVIRONMENTS = 27
TARGETS = {
    "make bench": {"wall": 15, "asv": 10},
    "make bench-matrix": {"wall": MATRIX_MINUTES_PER_ENVIRONMENT * CURATED_ENVIRONMENTS},
    "make test": {"wall": 20},
    "make test-fast": {"wall": 2},
    "make compare": {"wall": 10},
}
TAIL_LINES = 15


def target_of(command):
    """The targets of the ``make`` target that ``command`` (a list) runs, or None."""
    words = [w for w in command if "=" not in w]
    return TARGETS.get(" ".join(words[:2]))


def _asv_runs(clone, machine, since):
    """The load logs of the asv runs that the command made in ``clone`` (``make``'s
    ``study load``), those that started at ``since`` or later."""
    paths = glob.glob(
        os.path.join(clone, "build", "results", machine, machine_load.DIRECTORY, "*" + machine_load.SUFFIX)
    )
    logs = [machine_load.Log(p) for p in sorted(paths)]
    return [log for log in logs if log.start >= since]


def _git(clone, *args):
    return subprocess.check_output(("git", "-C", clone) + args, universal_newlines=True).strip()


def record(log_path, clone, machine, command, output_path=None):
    """The budget record of the command whose whole run ``log_path`` watched in ``clone``."""
    from .workspace import machine_info

    log = machine_load.Log(log_path)
    runs = _asv_runs(clone, machine, log.start)
    asv = None
    if runs:
        load = machine_load.over_logs([r.path for r in runs])
        asv = {
            "seconds": round(sum(r.end - r.start for r in runs), 1),
            "runs": len(runs),
            "load": machine_load.as_record(load),
        }
    tail = []
    if output_path and os.path.exists(output_path):
        with open(output_path, errors="replace") as f:
            tail = [line.rstrip("\n")[-300:] for line in f.readlines()[-TAIL_LINES:]]
    return {
        "kind": KIND,
        "version": 1,
        "command": " ".join(command),
        "machine": machine,
        "cpu": machine_info(machine)["cpu"],
        "commit": _git(clone, "rev-parse", "HEAD"),
        "started": datetime.datetime.utcfromtimestamp(log.start).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_seconds": round(log.end - log.start, 1),
        "status": log.status,
        "load": machine_load.as_record(log.load(log.start, log.end)),
        "asv": asv,
        "target_minutes": target_of(command),
        "output_tail": tail,
    }


def write(data, path):
    """``data`` as JSON at ``path``, atomically."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".partial", "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".partial", path)


def run(command, machine, out, workdir, repository="."):
    """Clone ``repository``'s HEAD into ``workdir`` (which must not exist), run ``command`` there
    under the load watcher, and write its record to ``out``; returns the command's status."""
    if os.path.exists(workdir):
        raise ValueError("%s exists: a budget run starts from a fresh clone, give a new --workdir" % workdir)
    subprocess.check_call(["git", "clone", "--quiet", os.path.abspath(repository), workdir])
    log_path = os.path.join(workdir + ".budget", "load" + machine_load.SUFFIX)
    output_path = os.path.join(workdir + ".budget", "output.txt")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(output_path, "w") as output:
        status = machine_load.watch(command, log_path, cwd=workdir, stdout=output, stderr=subprocess.STDOUT)
    data = record(log_path, workdir, machine, command, output_path)
    write(data, out)
    sys.stderr.write(
        "dsib: %s took %s (status %s); recorded in %s\n"
        % (data["command"], _minutes(data["wall_seconds"]), status, out)
    )
    return status


def _minutes(seconds):
    return "%d min %02d s" % divmod(int(round(seconds)), 60)


def _met(figure, target):
    if figure is None or target is None:
        return None
    return figure <= target * 60


def table_markdown(paths):
    """The budget records at ``paths`` as a Markdown table, one row each: the command, where and
    on what it ran, its wall time and asv's, the target, the load, and whether the target is met
    (only a quiet, successful run can say)."""
    from .markdown import table

    rows = []
    for path in sorted(paths):
        with open(path) as f:
            r = json.load(f)
        if r.get("kind") != KIND:
            raise ValueError("%s is not a dsib budget record" % path)
        target = r.get("target_minutes") or {}
        asv = r.get("asv")
        load = r.get("load")
        quiet = load is not None and not machine_load.busy(
            machine_load.Load(load["other_cores"], load["steal"], load["seconds"])
        )
        checks = [_met(r["wall_seconds"], target.get("wall"))]
        if "asv" in target:
            checks.append(_met(asv and asv["seconds"], target["asv"]))
        if r.get("status") != 0:
            met = "no: exited %s" % r.get("status")
        elif not quiet:
            met = "not known: taken under load"
        elif None in checks or not target:
            met = "no target" if not target else "not known"
        else:
            met = "yes" if all(checks) else "no"
        rows.append(
            (
                "`%s`" % r["command"],
                "%s (%s)" % (r["machine"], r["cpu"]),
                "`%s`" % r["commit"][:8],
                _minutes(r["wall_seconds"]),
                _minutes(asv["seconds"]) if asv else "-",
                ", ".join("%s ≤ %d min" % (k, v) for k, v in sorted(target.items())) or "-",
                machine_load.describe_record(load) + (" (quiet)" if quiet else " (under load)"),
                met,
            )
        )
    headers = ["Command", "Machine (CPU)", "Commit", "Wall time", "asv's time", "Target", "Load over the run", "Met"]
    return table(headers, rows, "lllrrlll")

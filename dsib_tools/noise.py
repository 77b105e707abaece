"""``make noise``: the noise floor of ``make compare``, and the changes it catches, measured.

A throwaway clone gets one commit on top of HEAD; ``asv continuous`` then compares it with its
parent, exactly as ``make compare`` would, several times.

- A/A (the default): the commit changes nothing but a comment in an installed module. Every
  case it flags is a false alarm.
- With ``slowdown`` (``make noise SLOWDOWN="csv.write=1.25 parquet.read=1.30"``): the commit
  makes those adapters slower by those factors (``slowdown_source``). The record then says, per
  run, which of the cases that call them were flagged and which were missed: the sensitivity of
  the comparison to a real change of that size, as measured on this machine, misses included.

The record (``records/noise/<machine>-<profile>[-slowdown].json``) keeps the base commit, the gate's cells,
the sampling, and per run the gate's flags and every cell's raw samples (or, for peak memory and
file sizes, its value) at both commits, and the time rule the gate judged them by. Every figure
of the README's tables is recomputed from those samples with asv's own statistics and the gate's
rule (``replay``), and a test checks that the samples, judged by the record's rule, give the
flags the gate raised.

This module makes the runs; noise_record keeps and replays them, noise_tables writes the tables.
"""

import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import compare, compare_gate
from . import machine_load
from .noise_record import SLOWDOWN, raw_of

COMMENT_FILE = os.path.join("dsib", "formats", "__init__.py")
COMMENT = "\n# A/A comparison: this comment is the only difference from the parent commit.\n"


def _git(repo, *args):
    subprocess.run(
        ["git", "-c", "user.name=dsib noise", "-c", "user.email=noise@dsib.invalid"] + list(args),
        cwd=repo,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def slowdown_source(slowdown):
    """Python to append to the format registry (``COMMENT_FILE``) so that each ``(format, side)`` of ``slowdown``
    (``{("csv", "write"): 1.25}``; side "read" or "write") takes that many times as long: after
    each call it spins for the rest of the call's own time times the factor, as a slower codec
    would. Spinning, not sleeping: a sleep's wake-up latency would add more than asked."""
    lines = [
        "",
        "",
        "# Injected by dsib.noise: %s."
        % ", ".join(
            "%s %ss take %s times as long" % (name, side, factor) for (name, side), factor in sorted(slowdown.items())
        ),
        "import time as _time",
        "",
        "",
        "def _slower(call, factor):",
        "    def slowly(*args, **kwargs):",
        "        start = _time.perf_counter()",
        "        result = call(*args, **kwargs)",
        "        until = _time.perf_counter() + (factor - 1) * (_time.perf_counter() - start)",
        "        while _time.perf_counter() < until:",
        "            pass",
        "        return result",
        "    return slowly",
        "",
        "",
        "def _slow_down(fmt, side, factor):",
        "    setattr(fmt, side, _slower(getattr(fmt, side), factor))",
        "    if fmt.defaults is not None:  # its twin as the libraries' defaults make it calls the same code",
        "        write, read, description = fmt.defaults",
        "        if side == 'write':",
        "            write = _slower(write, factor)",
        "        else:",
        "            read = _slower(read, factor)",
        "        fmt.defaults = (write, read, description)",
        "",
        "",
    ]
    for (name, side), factor in sorted(slowdown.items()):
        if side not in ("read", "write"):
            raise ValueError("a slowdown's side is read or write, not %r" % side)
        lines.append("_slow_down(FORMATS[%r], %r, %r)" % (name, side, float(factor)))
    return "\n".join(lines) + "\n"


def parse_slowdown(specs):
    """``["csv.write=1.25", "parquet.read=1.3"]`` -> ``{("csv", "write"): 1.25, ...}``."""
    slowdown = {}
    for spec in specs:
        try:
            target, factor = spec.split("=")
            name, side = target.rsplit(".", 1)
            slowdown[(name, side)] = float(factor)
        except ValueError:
            raise ValueError("a slowdown is FORMAT.read=FACTOR or FORMAT.write=FACTOR, not %r" % spec)
        if side not in ("read", "write") or slowdown[(name, side)] <= 1:
            raise ValueError("a slowdown is FORMAT.read=FACTOR or FORMAT.write=FACTOR with FACTOR > 1, not %r" % spec)
    return slowdown


def clone_with_change(root, work, slowdown=None):
    """A clone of ``root``'s HEAD plus one commit: a comment (A/A), or ``slowdown_source``."""
    repo = os.path.join(work, "repo")
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", root, repo], check=True)
    with open(os.path.join(repo, COMMENT_FILE), "a") as f:
        f.write(slowdown_source(slowdown) if slowdown else COMMENT)
    _git(repo, "commit", "-q", "-am", "slower: %s" % sorted(slowdown) if slowdown else "A/A: a comment, nothing else")
    return repo


def aa_clone(root, work):
    """A clone of ``root``'s HEAD plus a commit that differs from it only in a comment."""
    return clone_with_change(root, work)


def new_record(root, machine, profile, factor, slowdown, base):
    """A record's description of its runs: machine, data, the gate's cells, sampling and rule, the
    base commit and the change its head makes; the runs follow in ``runs``."""
    from data_prep import get_profile

    return {
        "machine": machine,
        "profile": profile,
        "rows": get_profile(profile).rows,
        "grid_rows": get_profile(profile).grid_rows,
        "factor": factor,
        "thresholds": {"memory": compare.MEMORY_FACTOR, "size": compare.SIZE_FACTOR},
        "cells": compare_gate.committed_cells(root, base),
        "sampling": dict(compare.SAMPLING),
        "unsampled": dict(compare.UNSAMPLED),
        "process_env": dict(compare.PROCESS_ENV),
        "cpu_affinity": compare._last_cpu(),
        "slowdown": SLOWDOWN,
        "rule": compare.RULE,
        "commit": base,
        "head": "the base plus one commit appending to %s: %r"
        % (COMMENT_FILE, slowdown_source(slowdown) if slowdown else COMMENT),
        "injected": sorted([name, side, f] for (name, side), f in (slowdown or {}).items()),
        "date": datetime.date.today().isoformat(),
        "runs": [],
    }


def run_entry(repo, results_dir, machine, gate, status, verdict, seconds):
    """What a record keeps of one comparison: its time and exit status, every cell's raw samples or
    value at both commits, the machine's load, and the gate's flags."""
    before, after = (compare.load_cells(results_dir, machine, compare.resolve(repo, rev)) for rev in ("HEAD~1", "HEAD"))
    entry = {
        "seconds": round(seconds, 1),
        "gate_exit": status,
        "base": raw_of(before, gate),
        "head": raw_of(after, gate),
        "load": machine_load.as_record(verdict["load"]),
    }
    entry.update((key, verdict[key]) for key in ("worse", "better", "failed", "dropped"))
    return entry


# A process that keeps a core busy: the load of a machine a gate shares with other work.
SPIN = "while True:\n    pass\n"


def spinning(count):
    """``count`` processes that keep a core busy each, at normal priority, until stopped."""
    return [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]


def measure(
    root,
    machine,
    runs=3,
    factor=compare.FACTOR,
    profile=compare_gate.PROFILE,
    data_dir=None,
    work=None,
    progress=print,
    slowdown=None,
    busy=0,
):
    """``runs`` comparisons of HEAD against a child that changes a comment (A/A) or, with
    ``slowdown``, makes those adapters slower, while ``busy`` processes keep cores busy; the record
    as a dict, with every cell's raw samples (or value) at both commits."""
    spinners = spinning(busy)
    try:
        return _measure(root, machine, runs, factor, profile, data_dir, work, progress, slowdown, busy)
    finally:
        for process in spinners:
            process.kill()
            process.wait()


def _measure(root, machine, runs, factor, profile, data_dir, work, progress, slowdown, busy):
    work = work or tempfile.mkdtemp(prefix="dsib-noise-")
    repo = clone_with_change(root, work, slowdown)
    env = dict(os.environ, DSIB_DATA_DIR=os.path.abspath(data_dir or os.path.join(root, "data")))
    record = new_record(root, machine, profile, factor, slowdown, compare.resolve(root, "HEAD"))
    record["busy_processes"] = busy
    for i in range(runs):
        results_dir = os.path.join(work, "results-%d" % (i + 1))
        start = time.time()
        status, verdict = compare.run(
            repo,
            "HEAD~1",
            "HEAD",
            machine,
            factor,
            results_dir=results_dir,
            env_dir=os.path.join(root, ".asv", "env"),
            env=env,
            profile=profile,
        )
        seconds = time.time() - start
        if verdict is None or status not in (0, 1):
            # asv failed, or was stopped: a run with part of its cells is no measure of the noise.
            raise compare_gate.CompareError("run %d did not complete (exit %d): nothing recorded" % (i + 1, status))
        record["runs"].append(run_entry(repo, results_dir, machine, set(record["cells"]), status, verdict, seconds))
        progress(
            "%s run %d of %d: %d cells, %d flagged slower, %d flagged faster, %.1f min"
            % (
                "Slowdown" if slowdown else "A/A",
                i + 1,
                runs,
                len(verdict["compared"]),
                len(verdict["worse"]),
                len(verdict["better"]),
                seconds / 60,
            )
        )
    shutil.rmtree(work, ignore_errors=True)
    return record

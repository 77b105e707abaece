"""``make run`` and ``make run-matrix``: asv's run of the suite, its machine recorded, its cells
selected, the servers those cells work in held and its load watched.

A run of the newest environment takes the config ``make`` writes for the profile; a run of a
matrix (the curated releases, or the sweeps) writes its own, of every environment or one shard
of them, and keeps the results an environment already has (``--skip-existing-successful``), so
that a run stopped halfway resumes where it stopped.
"""

import itertools
import json
import os
import subprocess
import sys

from . import suite
from .config import derive_config
from .matrix import release_regex
from .selection import select_regex

MATRICES = {"curated": "asv.conf.json", "sweeps": "asv.sweeps.conf.json"}
# Profiles whose cells are measured in one round: `full` (its cold reads would take hours in more)
# and `tiny` (the tests' scale, where the run proves that every case runs, not what it measures).
ONE_ROUND = ("full", "tiny")
# A matrix's environment measures each cell in this many processes at the other profiles: a step
# between two environments is called against the spread of processes, not of one process's samples.
MATRIX_ROUNDS = 2
# What a run measures: asv takes ``benchmarks/`` from this clone's working tree and installs the
# packages (``dsib``, ``data_prep``) from the wheel it builds at the commit.
MEASURED = ("benchmarks", "dsib", "data_prep")


def matrix_config(matrix, profile, results_dir, html_dir, env_dir, shard=None, block=None):
    """The asv config of ``matrix`` (curated or sweeps) at ``profile``, written beside
    asv.conf.json (asv imports the plugin from there); its path."""
    if matrix not in MATRICES:
        raise ValueError("MATRIX is %s, not %r" % (" or ".join(MATRICES), matrix))
    with open(MATRICES[matrix]) as f:
        conf = derive_config(json.load(f), profile, results_dir, html_dir, env_dir, shard=shard, block=block)
    part = "-shard%dof%d" % shard if shard else "-block%dof%d" % block if block else ""
    path = ".asv-matrix-%s-%s%s.conf.json" % (matrix, profile, part)
    with open(path, "w") as f:
        json.dump(conf, f, indent=4)
        f.write("\n")
    return path


def measured_code_changes(commit, root="."):
    """The files of ``MEASURED`` in which the working tree at ``root`` differs from ``commit``
    (changed, added or untracked), sorted. asv would run this clone's ``benchmarks/`` against the
    packages of ``commit``: a mix that neither names, so a run refuses it."""

    def git(*args):
        out = subprocess.run(
            ["git", "-C", root] + list(args),
            check=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            universal_newlines=True,
        )
        return out.stdout.splitlines()

    changed = git("diff", "--name-only", commit, "--", *MEASURED)
    untracked = git("ls-files", "--others", "--exclude-standard", "--", *MEASURED)
    return sorted(set(changed) | set(untracked))


def selection(fmt=None, source=None, engine=None, release=False, bench=None):
    """The regex of the cells a run selects (asv's -b and the suite's DSIB_SELECT), or None: all.
    ``bench``: a regex the benchmark's name must match too (``objectstore``, ``batches.RandomAccess``)."""
    within = select_regex(fmt, source, engine) if fmt or source or engine else None
    if bench:  # both searched for, anywhere in "module.Class.method(params)", as asv's -b is
        within = bench if within is None else "^(?=.*(?:%s))(?=.*(?:%s))" % (bench, within)
    return release_regex(within=within) if release else within


def _asv_run(config, machine):
    """The start of every ``asv run`` here: ``config`` on ``machine``, every sample recorded."""
    return [sys.executable, "-m", "asv", "run", "--config", config, "--machine", machine, "--record-samples"]


def asv_command(config, machine, profile, commit, selected=None, matrix=False):
    """``asv run`` of ``commit`` with every sample recorded; a matrix's keeps what its environments
    already measured, one environment after the other, and takes every cell's samples in
    ``MATRIX_ROUNDS`` processes (one at ``ONE_ROUND``'s profiles)."""
    command = _asv_run(config, machine) + ["--show-stderr"]
    command += ["--skip-existing-successful", "--no-interleave-rounds"] if matrix else ["--durations", "12"]
    command += ["-b", selected] if selected else []
    if profile in ONE_ROUND:
        command += ["--attribute", "rounds=1"]
    elif matrix:
        command += ["--attribute", "rounds=%d" % MATRIX_ROUNDS]
    return command + [commit + "^!"]


def environment_names(config):
    """asv's names of the environments of the asv config ``config``, in its order."""
    from asv import config as asv_config, environment

    return [env.name for env in environment.get_environments(asv_config.Config.load(config), None)]


def block_commands(config, machine, commit, selected, names):
    """A block's two ``asv run`` passes over its environments ``names`` (neighbours, in the
    chains' order): forward, every cell in one process; then backward, the timed cells
    (``timed_only``) in one more process each, their samples added to the first's
    (``--append-samples``). Each environment's two processes then lie as far before the block's
    middle as after it, so a drift of the machine over the sitting moves neighbours alike instead
    of apart. A peak memory or a tracked figure (a size, a fraction) is taken once, in the first
    pass: asv keeps one value of it however many processes measure it. The first pass replaces
    what the block's environments held: a block stopped halfway is run again whole."""
    common = _asv_run(config, machine) + ["--show-stderr", "--no-interleave-rounds", "--attribute", "rounds=1"]

    def environments(ordered):
        return [part for name in ordered for part in ("-E", name)]

    forward = common + (["-b", selected] if selected else []) + environments(names) + [commit + "^!"]
    backward = common + ["-b", timed_only(selected), "--append-samples"] + environments(reversed(names))
    return [forward, backward + [commit + "^!"]]


def timed_only(selected=None):
    """asv's -b for the timed cells (``time_``: those with samples) among ``selected`` (asv's -b,
    matched against "benchmark(params)"; every cell where None)."""
    return r"^(?=.*\.time_)" + ("(?=.*(?:%s))" % selected if selected else "")


def held_kinds(selected=None):
    """The kinds of held servers (``dsib.servers.HELD_KINDS``) that the cells ``selected`` (asv's
    -b) work in, each cell's as its class declares (``held_kinds``); None, every kind, where every
    cell runs. A run holds no server its cells do not use: an idle server's JVM still takes CPU
    time and memory beside every case, and the load log counts it as the run's own."""
    if selected is None:
        return None
    import benchmarks

    kinds = set()
    for cls in suite.classes():
        if cls.held_kinds.__func__ is benchmarks.Case.held_kinds.__func__:
            continue  # its cases stay in their own processes
        for given in itertools.product(*cls.params):
            if benchmarks.selects(selected, cls, given):
                kinds.update(cls.held_kinds(given))
    return sorted(kinds)


def run(command, results_dir, machine, selected=None):
    """``command`` with the servers its cells work in held, its load logged beside ``results_dir``; its status."""
    from .machine_load import main as watch

    kinds = held_kinds(selected)
    if selected:  # the suite's setup_cache builds the files of these cells only
        os.environ["DSIB_SELECT"] = selected
    hold = [sys.executable, "-m", "dsib_tools", "servers", "hold"]
    hold += [] if kinds is None else ["--kinds", ",".join(kinds)]
    return watch(results_dir, machine, hold + ["--"] + command)


def run_passes(commands, results_dir, machine, selected=None):
    """Each command in turn as ``run`` runs it, until one is stopped (asv's 2, some cell failed,
    goes on); the worst status."""
    worst = 0
    for command in commands:
        status = run(command, results_dir, machine, selected)
        worst = max(worst, status)
        if status not in (0, 2):
            break
    return worst

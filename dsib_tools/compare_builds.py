"""``make compare-builds``: does a build of one library slow pandas I/O down?

An Arrow or pandas developer's branch is a build of their library, not a commit of this suite.
Given two pip specifications of one library (a release, a wheel file, a source directory or an
archive pip can build), asv builds an environment for each from the matrix's newest entry,
everything else pinned alike, and runs the gate's cells at this checkout in both, the rounds
interleaved between the two environments as ``make compare`` interleaves two commits. The two
environments' cells are then judged as the gate judges two commits' (``compare.verdict_of``):
instructions first where the machine counts them, then time, peak memory and file sizes.
"""

import os
import re
import sys

from . import asv_results, compare, compare_gate
from . import machine_load as load
from .compare_gate import CompareError

CONFIG = ".asv-compare-builds.conf.json"
# A release as pip and asv write it.
RELEASE = re.compile(r"^(==)?(\d[\w.+!-]*)$")


def requirement_of(spec):
    """The pin asv installs for ``spec``: a release ("25.0.1" or "==25.0.1") as its version, a
    wheel, archive or source directory as a direct reference to its absolute path (pip builds
    what needs building); a clear error for anything else."""
    spec = spec.strip()
    if os.path.exists(spec):
        return " @ " + "file://" + os.path.abspath(spec)
    release = RELEASE.match(spec)
    if release:
        return release.group(2)
    raise CompareError("%r is neither a release (25.0.1) nor a wheel, archive or source directory that exists" % spec)


def write_config(root, library, specs, results_dir, env_dir=None, profile=compare_gate.PROFILE):
    """asv's config of the two builds: the matrix's newest entry twice, ``library`` pinned to each
    spec, every other pin alike; results apart from the committed history."""
    conf = compare.newest_config(root, results_dir, env_dir, profile)
    (entry,) = conf["include"]
    if library not in entry.get("req", {}):
        raise CompareError(
            "%s is not pinned in the matrix's newest environment (it pins %s)"
            % (library, ", ".join(sorted(entry.get("req", {}))))
        )
    conf["include"] = [dict(entry, req=dict(entry["req"], **{library: requirement_of(s)})) for s in specs]
    if conf["include"][0] == conf["include"][1]:
        raise CompareError("both builds are %s: nothing to compare" % specs[0])
    return compare.save_config(root, conf, CONFIG)


def run_command(config, machine, benchmarks, sampling):
    """asv run of this checkout's commit in both environments, rounds interleaved between them."""
    options = ["--interleave-rounds", "--record-samples"]
    return compare.asv_command("run", config, machine, options, sampling, benchmarks) + ["HEAD^!"]


def build_cells(results_dir, machine, commit, library, specs):
    """(base cells, head cells): each environment's cells (``compare.load_cells``'s form), told
    apart by the pin of ``library`` that asv recorded."""
    pinned = [requirement_of(s) for s in specs]
    by_pin = {}
    for res in asv_results.runs(results_dir, machine, commit):
        pin = res.params.get(library)
        if pin in pinned:
            by_pin[pin] = res
    missing = [s for s, p in zip(specs, pinned) if p not in by_pin]
    if missing:
        raise CompareError("no results of the build %s in %s" % (", ".join(missing), results_dir))
    return tuple(compare.cells_of_results(by_pin[p]) for p in pinned)


def run(root, library, base, head, machine, factor=compare.FACTOR, benchmarks=None, results_dir=None, env_dir=None):
    """Both builds' gate cells, measured and judged; returns (exit status, verdict)."""
    benchmarks = list(benchmarks or compare_gate.BENCHMARKS)
    judged, benchmarks = compare.judged_patterns(benchmarks)
    sys.stderr.write("dsib compare-builds: %s\n" % judged)
    results_dir = results_dir or os.path.join(root, ".asv", "results-compare-builds")
    config = write_config(root, library, (base, head), results_dir, env_dir)
    commit = compare.resolve(root, "HEAD")
    compare.forget_results(results_dir, machine, commit)
    statuses, logs = compare.run_passes(
        root,
        results_dir,
        machine,
        benchmarks,
        lambda patterns, sampling, _: run_command(config, machine, patterns, sampling),
        factor,
    )
    before, after = build_cells(results_dir, machine, commit, library, (base, head))
    verdict = compare.verdict_of(before, after, factor)
    verdict["load"], verdict["judged"] = load.over_logs(logs), judged
    sys.stderr.write("dsib compare-builds: machine load: %s\n" % load.describe_load(verdict["load"]))
    ratios = compare.ratios_of(before, after)
    for name in sorted(set(verdict["compared"] + verdict["failed"] + verdict["dropped"])):
        if name in ratios:
            print("%-8s %6.3f  %s" % (compare.mark(verdict, name), ratios[name], name))
        else:
            print(
                "%-8s %6s  %s" % ("dropped" if name in verdict["dropped"] else compare.mark(verdict, name), "-", name)
            )
    labels = ("%s %s" % (library, base), "%s %s" % (library, head))
    status = compare.gate_status([s for s in statuses if s != 1], verdict, *labels, factor=factor)
    return status, verdict

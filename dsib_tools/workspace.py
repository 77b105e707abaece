"""Where a run writes: this clone's own results and site, apart from the committed history.

``make bench`` must never change a committed file: asv rewrites ``benchmarks.json`` with the
current benchmark versions, and ``asv publish`` drops every series whose version is gone, so
running the suite into ``results/`` and publishing into ``html/`` deleted committed history
from the working tree. A run therefore writes into ``build/results`` and ``build/html``
(ignored by git). ``build/results`` starts as a copy of the committed results, so the local
site shows this machine beside the history and ``asv run --skip-existing`` knows what the
history already holds. ``make record`` is the one deliberate way back into ``results/``.
"""

import filecmp
import os
import shutil

from .machine_load import DIRECTORY as LOAD_DIRECTORY, SUFFIX as LOAD_SUFFIX

BENCHMARKS_JSON = "benchmarks.json"
MACHINE_JSON = "machine.json"
# What makes two machines' timings incomparable; ram and os are left out because they drift by a
# few kB and a kernel build between boots of the same hardware.
HARDWARE_KEYS = ("arch", "cpu", "num_cpu")


def _load_json(path):
    import json

    with open(path) as f:
        return json.load(f)


def other_hardware(a, b):
    """Whether two asv machine.json dicts describe different hardware."""
    return any(str(a.get(k)) != str(b.get(k)) for k in HARDWARE_KEYS)


# A model name alone does not tell two CPUs apart: this project's sandbox has reported "AMD EPYC"
# for two CPUs whose timings of the same case differed 1.5x (asv's Parquet read of the post's month:
# 61 ms in records/audits/earlier/audit-epyc-2c-24g.json, 40 ms in records/audits/audit-epyc-zen5-2c-24g.json).
_CPU_IDENTITY = ("cpu family", "model", "stepping")


def cpu_identity(model_name, cpuinfo="/proc/cpuinfo"):
    """asv's cpu field: the model name and, where the kernel says them, the CPU's family, model
    and stepping, e.g. ``AMD EPYC (family 26, model 2, stepping 1)``."""
    found = {}
    try:
        with open(cpuinfo) as f:
            for line in f:
                if not line.strip():
                    break  # the first processor's block is enough: the machine's CPUs are alike
                key, _, value = line.partition(":")
                found[key.strip()] = value.strip()
    except (IOError, OSError):
        return model_name
    if not all(found.get(key) for key in _CPU_IDENTITY):
        return model_name
    return "%s (family %s, model %s, stepping %s)" % ((model_name,) + tuple(found[key] for key in _CPU_IDENTITY))


def machine_info(name):
    """What ``dsib_tools setup machine NAME`` records for asv: asv's own detected fields, the CPU's
    identity in place of its model name."""
    from asv.machine import Machine

    info = Machine.get_defaults()
    info.update(machine=name, cpu=cpu_identity(info["cpu"]))
    return info


def hardware_refusal(results_dir, name, info):
    """Why ``info`` (``machine_info``) must not be recorded under ``name``, or None. asv rewrites
    results/NAME/machine.json with whatever hardware ran last, so one name used on two CPUs would
    silently mix their timings in one series: refused before anything runs."""
    recorded = os.path.join(results_dir, name, MACHINE_JSON)
    if not os.path.exists(recorded):
        return None
    try:
        known = _load_json(recorded)
    except ValueError as exc:
        return "%s is not readable JSON (%s): restore it from git before recording under this name." % (recorded, exc)
    if not other_hardware(known, info):
        return None
    return (
        "%s holds results from %s cpus of %s (%s); this machine has %s cpus of %s (%s).\n"
        "Timings from different hardware must not share a series: choose another machine name "
        "(make ... MACHINE=<name>).%s"
        % (
            recorded,
            known.get("num_cpu"),
            known.get("cpu"),
            known.get("arch"),
            info.get("num_cpu"),
            info.get("cpu"),
            info.get("arch"),
            ""
            if "(family" in str(known.get("cpu")) or "(family" not in info["cpu"]
            else "\nThose results were recorded before dsib noted a CPU's family and model, and one model name "
            "has covered CPUs of different speeds, so they cannot be told to be this one's.",
        )
    )


def _copy_atomic(source, target):
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        os.makedirs(directory)
    tmp = "%s.tmp-%d" % (target, os.getpid())
    shutil.copy2(source, tmp)
    os.replace(tmp, target)


def seed(committed, local):
    """Copy every committed results file that ``local`` lacks; never overwrite one it has (a
    local run's ``benchmarks.json`` and results are newer than the history's). Returns the
    number of files copied."""
    copied = 0
    for directory, _, files in os.walk(committed):
        for name in files:
            source = os.path.join(directory, name)
            target = os.path.join(local, os.path.relpath(source, committed))
            if not os.path.exists(target):
                _copy_atomic(source, target)
                copied += 1
    if not os.path.isdir(local):
        os.makedirs(local)
    return copied


def _differs(source, target):
    return not os.path.exists(target) or not filecmp.cmp(source, target, shallow=False)


def to_record(local, committed, machine):
    """(source, target) pairs that ``results record`` would copy: ``machine``'s result files that are new
    or changed, and ``benchmarks.json`` (the versions those results were taken at)."""
    machine_dir = os.path.join(local, machine)
    if not os.path.isdir(machine_dir):
        raise LookupError(
            "no results of machine %r in %s: run `make bench MACHINE=%s` first" % (machine, local, machine)
        )
    local_machine, committed_machine = (os.path.join(d, machine, MACHINE_JSON) for d in (local, committed))
    if os.path.exists(local_machine) and os.path.exists(committed_machine):
        taken, known = _load_json(local_machine), _load_json(committed_machine)
        if other_hardware(taken, known):
            raise ValueError(
                "%s records %s cpus of %s; the committed %s records %s cpus of %s: timings from "
                "different hardware must not share a series (run under another MACHINE name)"
                % (
                    local_machine,
                    taken.get("num_cpu"),
                    taken.get("cpu"),
                    committed_machine,
                    known.get("num_cpu"),
                    known.get("cpu"),
                )
            )
    pairs = []
    for name in sorted(os.listdir(machine_dir)):
        if name.endswith(".json"):
            source, target = os.path.join(machine_dir, name), os.path.join(committed, machine, name)
            if _differs(source, target):
                pairs.append((source, target))
    logs = os.path.join(machine_dir, LOAD_DIRECTORY)
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        if name.endswith(LOAD_SUFFIX):  # the machine's load while the results were taken
            source, target = os.path.join(logs, name), os.path.join(committed, machine, LOAD_DIRECTORY, name)
            if _differs(source, target):
                pairs.append((source, target))
    source, target = os.path.join(local, BENCHMARKS_JSON), os.path.join(committed, BENCHMARKS_JSON)
    if pairs and os.path.exists(source) and _differs(source, target):
        pairs.append((source, target))
    return pairs


def taken_under_load(local, machine, pairs):
    """Why the result files among ``pairs`` cannot be a reference: ``[(file, reason)]`` for each
    run whose load was not recorded or whose benchmarks ran beside other work."""
    from . import asv_results
    from .machine_load import Machine, describe_load

    logs = Machine(local, machine)
    problems = []
    for source, _ in pairs:
        if not source.endswith(".json") or os.path.basename(source) in (MACHINE_JSON, BENCHMARKS_JSON):
            continue
        res = asv_results.load(source)
        run = logs.run(res)
        if run is None:
            problems.append(
                (
                    source,
                    "its machine load was not recorded (run it with make bench or make bench-matrix, which log it)",
                )
            )
            continue
        busy = logs.busy_keys(res)
        if busy:
            problems.append(
                (
                    source,
                    "%d of its benchmarks ran under load (%s; over the run: %s)"
                    % (len(busy), ", ".join(busy[:3]) + (", ..." if len(busy) > 3 else ""), describe_load(run)),
                )
            )
    return problems


def _write_results(source, target, benchmarks, leave_out):
    """Write ``source``'s results to ``target`` (atomically) without those whose benchmark version
    is not ``benchmarks``' (asv would hide them) and those whose name ``leave_out`` matches, unless
    ``target`` holds exactly that already; returns (the benchmarks left out, whether it wrote)."""
    import tempfile

    from . import asv_results

    res = asv_results.load(source)
    held = set(res.get_all_result_keys())
    asv_results.drop_stale(res, benchmarks)
    for key in [k for k in res.get_all_result_keys() if leave_out and leave_out.search(k)]:
        res.remove_result(key)
    dropped = sorted(held - set(res.get_all_result_keys()))
    if not dropped:
        _copy_atomic(source, target)
        return dropped, True
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        res.save(tmp)  # as tmp/<machine>/<its file name>
        written = os.path.join(tmp, os.path.relpath(target, os.path.dirname(directory)))
        if not _differs(written, target):
            return dropped, False
        os.replace(written, target)
    return dropped, True


def record(local, committed, machine, allow_load=False, leave_out=None):
    """Copy ``to_record``'s pairs into the committed history; returns those it wrote, and
    {target: the benchmarks left out of it}. Results taken under load, or without a load log, are refused
    unless ``allow_load``. A result file is recorded without the results whose version is not
    that of the ``benchmarks.json`` the history will hold (asv would hide them), and without
    the benchmarks that the regular expression ``leave_out`` matches (a decision: results
    measured with code their series does not name). A file the history already holds so, its
    omissions made, is not written again."""
    import re

    from . import asv_results

    try:
        pattern = re.compile(leave_out) if leave_out else None
    except re.error as exc:
        raise ValueError("--leave-out %r is not a regular expression: %s" % (leave_out, exc))
    pairs = to_record(local, committed, machine)
    problems = [] if allow_load else taken_under_load(local, machine, pairs)
    if problems:
        raise ValueError(
            "not recorded, because a reference must be taken on a quiet machine:\n%s\n"
            "Re-run on a quiet machine, or record anyway with make record ALLOW_LOAD=1 "
            "(python -m dsib_tools results record --allow-load)."
            % "\n".join("  %s: %s" % (path, why) for path, why in problems)
        )
    recorded_suite = local if os.path.join(committed, BENCHMARKS_JSON) in [t for _, t in pairs] else committed
    benchmarks = asv_results.benchmarks(recorded_suite) if pairs else None
    left_out, recorded = {}, []
    for source, target in pairs:
        if (
            os.path.dirname(source) == os.path.join(local, machine)
            and source.endswith(".json")
            and os.path.basename(source) != MACHINE_JSON
        ):
            dropped, written = _write_results(source, target, benchmarks, pattern)
            if not written:  # the history holds this file as recorded, its omissions made
                continue
            if dropped:
                left_out[target] = dropped
        elif os.path.basename(target) == BENCHMARKS_JSON and not recorded:
            continue  # no result recorded: the history's benchmarks.json stays the one its results name
        else:
            _copy_atomic(source, target)
        recorded.append((source, target))
    return recorded, left_out

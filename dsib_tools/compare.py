"""``make compare BASE=<rev>``: did a commit make anything slower? ``asv continuous`` at ``pr``.

asv builds and installs this repository at both commits, so a change to the format adapters
(``dsib/``) or to ``data_prep`` shows in the numbers; the benchmark classes are the working
tree's, as always with asv. The comparison runs a subset of the suite at the ``pr`` scale,
sampled so that asv's significance test can speak, within 10 minutes on 2 cores.

A timed cell is flagged when the bounds of its ratio clear the factor, with the error rate held
over every timed cell of the comparison (``dsib_tools.bounds``); peak memory, file sizes and
instruction counts, one value a commit, by their ratio. The exit status is the verdict's: non-zero
when a cell got slower or bigger, started failing, or was dropped.

What the comparison runs and compares, the gate's cells, is compare_gate's; this module runs it and
reads its verdict.
"""

import glob
import json
import os
import subprocess
import sys

from dsib import counters

from . import asv_results, bounds, chains
from . import machine_load as load
from . import suite

# The gate's cells, which compare runs.
from .compare_gate import BENCHMARKS, PROFILE, CompareError, counted_patterns, gate_patterns

FACTOR = 1.10
CONFIG = ".asv-compare.conf.json"
# How a timed cell is judged: "bounds" (dsib_tools.bounds: the lower bound of its ratio clears the
# factor, Holm over the comparison), the gate's rule; "asv" (asv compare's: the median moved by more
# than the factor and Mann-Whitney's p < 0.002, cell by cell), the rule of noise records taken with it.
RULE = "bounds"


# Measured with A/A runs on 2 cores (README, "Noise"): Arrow's and the OS's threads sharing the
# two cores spread a 10 ms read's samples by 15-25 %; one thread on a CPU of its own, 2-5 %.
# So the benchmark process is pinned to the last CPU (asv's parent and the OS keep the other)
# and Arrow's pool gets one thread: the comparison measures single-threaded speed.
# glibc returns a freed large block to the OS and faults it back in on the next call; which
# calls pay for that varies, so 2-20 ms cases came out in two modes up to 3x apart (a msgpack
# read 4.5 or 15 ms; a pickle write 9.5 ms, 2 ms with freed memory kept). Keeping freed memory takes the page faults out
# of those cases: the comparison measures the code, not the kernel's page zeroing.
PROCESS_ENV = dict({"OMP_NUM_THREADS": "1"}, **chains.FREED_MEMORY_KEPT)


def _last_cpu():
    return (os.cpu_count() or 1) - 1


# One sample per benchmark process, one process per case and round, rounds interleaved between
# the commits. A process has its own luck (memory layout, a busy neighbour), which shifted a
# case's samples 10-40 % together, so several samples of one process are one observation, not
# several: a test that treats samples as independent then flagged such shifts in A/A runs. With
# one sample per process, the samples are independent. The time rule (dsib_tools.bounds) tests each
# of some 120 timed cells both ways at a family-wise 5 %: its first step asks p < 2e-4, which six
# samples a side can never reach (fully apart: 1/924) and eight barely (1/12870). With ten a side,
# six of the 100 cross pairs may fall on the wrong side of the factor: one unlucky process (about
# one in five of an Arrow case's is 30-100 % slower on this VM) hides a real change only where it
# does so with seven or more of the other side's (test_bounds checks this). number=0 asks
# asv to calibrate to 20 ms, but asv_runner 0.3 (pinned) resolves it to one call for every
# benchmark with a setup, and all of dsib's have one: a sample is one call, the process's first,
# which the case's setup warms up (imports, one untimed call); test_compare checks the saved number.
ROUNDS = 10
SAMPLING = (("repeat", 1), ("number", 0), ("sample_time", 0.02), ("rounds", ROUNDS), ("warmup_time", 0))

# Peak memory and file sizes are one value a commit, not samples: asv keeps a peakmem_ or track_
# cell's last round only, so they are measured apart, in one round, and compared by ratio alone.
# A file's size is the same on every run of the same code and data, so any growth beyond 1 % is a
# change. A process's peak RSS moves with the allocator's and the threads' luck: at 1.05, an A/A
# run flagged pyarrow's threaded CSV reader of the str frame at 1.054 (184 -> 195 MiB); every other
# cell moved by 2 % at most. MEMORY_FACTOR is about twice that largest A/A move (README, "Noise
# floor, measured").
UNSAMPLED = (("rounds", 1),)
MEMORY_FACTOR = 1.10
SIZE_FACTOR = 1.01
# An instruction count (one call, after the case's untimed call) is flagged beyond 2 %: the ceiling
# the counts' A/A spread must stay under (0.1-0.4 % on an EPYC with a PMU, one call in 4-6 processes).
INSTRUCTIONS_FACTOR = 1.02


def _method(cell):
    return cell.split("(", 1)[0].rsplit(".", 1)[-1].replace("\\", "")


def sampled(cell_or_pattern):
    """Whether a cell (or a pattern that picks cells of one benchmark) is timed in samples."""
    return _method(cell_or_pattern).startswith("time_")


def counts_instructions(cell_or_pattern):
    """Whether a cell (or a pattern) is an instruction count (``benchmarks.instructions``)."""
    return cell_or_pattern.lstrip("^").replace("\\", "").startswith(suite.COUNTS_MODULE + ".")


def threshold(cell, factor=FACTOR):
    """The ratio beyond which ``cell`` is flagged: ``factor`` for a time, asv's test deciding too."""
    method = _method(cell)
    if counts_instructions(cell):
        return INSTRUCTIONS_FACTOR
    return SIZE_FACTOR if method.startswith("track_") else MEMORY_FACTOR if method.startswith("peakmem_") else factor


def counting():
    """What the gate judges on this machine: "instructions and time" where the CPU's counters can
    be read (``dsib.counters``), else "time only" and the one-line reason."""
    reason = counters.available()
    return "time only (%s)" % reason if reason else "instructions and time"


def resolve(root, rev):
    """The full hash of ``rev`` in the repository at ``root``; a clear error if it is unknown."""
    proc = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", rev + "^{commit}"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        universal_newlines=True,
    )
    if proc.returncode != 0:
        raise CompareError("%r is not a commit of %s" % (rev, root))
    return proc.stdout.strip()


def newest_config(root, results_dir, env_dir=None, profile=PROFILE):
    """asv's config of a comparison, as a dict: ``root``'s asv.conf.json with the newest
    environment of the matrix, the profile in its name, results apart from the committed history."""
    from .config import derive_config

    with open(os.path.join(root, "asv.conf.json")) as f:
        return derive_config(
            json.load(f),
            profile=profile,
            results_dir=os.path.abspath(results_dir),
            html_dir=os.path.abspath(results_dir) + "-html",
            env_dir=env_dir,
            envs="newest",
        )


def save_config(root, conf, name=None):
    """``conf`` written beside ``root``'s asv.conf.json (asv imports the plugin from there); its path."""
    path = os.path.join(root, name or CONFIG)
    with open(path, "w") as f:
        json.dump(conf, f, indent=4)
    return path


def write_config(root, results_dir, env_dir=None, profile=PROFILE):
    """The comparison's asv config (``newest_config``), saved; its path."""
    return save_config(root, newest_config(root, results_dir, env_dir, profile))


def asv_command(verb, config, machine, options, sampling, benchmarks):
    """``python -m asv VERB`` on ``config`` and ``machine``, the benchmark process pinned to the last
    CPU, with ``options``, asv's sampling attributes and a -b for each pattern (revisions follow)."""
    command = [sys.executable, "-m", "asv", verb, "--config", config, "--machine", machine] + list(options)
    command += ["--show-stderr", "--cpu-affinity", str(_last_cpu())]
    for name, value in sampling:
        command += ["-a", "%s=%s" % (name, value)]
    for pattern in benchmarks:
        command += ["-b", pattern]
    return command


def continuous_command(config, machine, base, head, factor=FACTOR, benchmarks=BENCHMARKS, sampling=SAMPLING):
    options = ["--factor", str(factor), "--interleave-rounds"]
    return asv_command("continuous", config, machine, options, sampling, benchmarks) + [base, head]


def judged_patterns(benchmarks):
    """(what the comparison judges by, the patterns it runs): ``benchmarks`` and their counting
    twins where the machine counts instructions; without the counts where it does not, since
    every count would skip, each in a process of its own."""
    judged = counting()
    if judged == "instructions and time":
        return judged, list(dict.fromkeys(list(benchmarks) + list(counted_patterns(benchmarks))))
    return judged, [p for p in benchmarks if not counts_instructions(p)]


def counts_text(verdict):
    """The verdict's counts, as the commands print them last."""
    return "%d slower, %d faster, %d newly failing, %d dropped" % tuple(
        len(verdict[key]) for key in ("worse", "better", "failed", "dropped")
    )


def cells_of_results(res, cells=None):
    """Every cell of one asv Results: name -> (value, (stats, samples), version), added to ``cells``."""
    cells = {} if cells is None else cells
    for cell in asv_results.cells(res):
        cells[cell["cell"]] = (cell["value"], (cell["stats"], cell["samples"]), cell["version"])
    return cells


def _cells(results_dir, machine, commit):
    cells = {}
    for res in asv_results.runs(results_dir, machine, commit):
        cells_of_results(res, cells)
    return cells


def _skipped(value):
    return value is not None and value != value


def load_cells(results_dir, machine, commit):
    """Every cell ``commit`` has in ``results_dir``: name -> (value, (stats, samples), version)."""
    cells = _cells(results_dir, machine, commit)
    if not cells:
        raise CompareError("no results for %s in %s (machine %s)" % (commit[:8], results_dir, machine))
    return cells


def dropped_cells(before, after):
    """What asv lets pass in silence: a cell the base measured that the head skipped or does not
    have at all (a slow case turned into a skip, or renamed away, escapes the gate otherwise). A
    cell whose series version changed is not dropped: that change is a decision recorded in
    benchmarks/series.lock, in the diff for review."""
    return [
        name
        for name, (value, _, version) in sorted(before.items())
        if _measured(value) and (name not in after or after[name][2] == version and _skipped(after[name][0]))
    ]


def _outcome(one, other):
    """ "failed" where a cell measured at the base fails at the head, "compared" where both sides
    measured it in one series, else None."""
    (v1, _, version1), (v2, _, version2) = one, other
    if version1 != version2 or v1 is None and v2 is None:
        return None
    if v2 is None:
        return "failed"
    return None if v1 is None or _skipped(v1) or _skipped(v2) else "compared"


def verdict_of(before, after, factor=FACTOR, rule=RULE):
    """The gate's marks for every cell both have: ``worse``, ``better``, ``failed``, ``compared``
    (both measured), ``dropped`` (``dropped_cells``), ``estimates`` (each timed cell's ratio with
    its bounds, ``bounds.judge``) and ``ratios`` (every compared cell's head / base). A timed cell
    is judged by ``rule``; peak memory (``MEMORY_FACTOR``), file sizes (``SIZE_FACTOR``) and
    instruction counts (``INSTRUCTIONS_FACTOR``) by their ratio."""
    from asv.commands.compare import _is_result_better

    verdict = dict((key, []) for key in ("worse", "better", "failed", "compared"))
    verdict["dropped"], timed = dropped_cells(before, after), {}
    for name in sorted(set(before) & set(after)):
        outcome = _outcome(before[name], after[name])
        if outcome:
            verdict[outcome].append(name)
        if outcome != "compared":
            continue
        (v1, ss1, _), (v2, ss2, _) = before[name], after[name]
        if rule == "bounds" and sampled(name) and ss1[1] and ss2[1]:
            timed[name] = tuple([x for x in samples if x == x] for samples in (ss1[1], ss2[1]))
        elif _is_result_better(v2, v1, ss2, ss1, threshold(name, factor)):
            verdict["better"].append(name)
        elif _is_result_better(v1, v2, ss1, ss2, threshold(name, factor)):
            verdict["worse"].append(name)
    slower, faster, verdict["estimates"] = bounds.judge(timed, factor)
    verdict["worse"], verdict["better"] = sorted(verdict["worse"] + slower), sorted(verdict["better"] + faster)
    verdict["ratios"] = ratios_of(dict((n, before[n]) for n in verdict["compared"]), after)
    # A cell slower in time whose instructions were counted on both sides and did not move.
    verdict["same_work"] = [
        name
        for name in verdict["worse"]
        if counted_twin(name) in verdict["compared"] and counted_twin(name) not in verdict["worse"] + verdict["better"]
    ]
    return verdict


def counted_twin(cell):
    """The instruction count of a timed cell (``reads.ReadFromBytes.time_read(...)`` ->
    ``instructions.ReadFromBytes.track_read(...)``); None for a cell that is not timed."""
    name, _, params = cell.partition("(")
    parts = name.rsplit(".", 2)
    twin = suite.counted_method(parts[-1]) if len(parts) == 3 else None
    return "%s.%s.%s(%s" % (suite.COUNTS_MODULE, parts[1], twin, params) if twin else None


def _measured(value):
    return value is not None and not _skipped(value) and value > 0


def ratios_of(before, after):
    """head / base of each cell both measured."""
    return dict(
        (name, after[name][0] / before[name][0])
        for name in set(before) & set(after)
        if _measured(before[name][0]) and _measured(after[name][0])
    )


def spreads_of(cells):
    """Each measured cell's relative spread, (q75 - q25) / median, from asv's saved stats."""
    return dict(
        (name, (stats["q_75"] - stats["q_25"]) / value)
        for name, (value, (stats, _), _) in cells.items()
        if _measured(value) and stats
    )


def changes(results_dir, machine, base, head, factor=FACTOR):
    return verdict_of(load_cells(results_dir, machine, base), load_cells(results_dir, machine, head), factor)


def ratios(results_dir, machine, base, head):
    return ratios_of(_cells(results_dir, machine, base), _cells(results_dir, machine, head))


def compare_table(config, machine, base, head, factor=FACTOR):
    """``asv compare``'s table of every cell, slowest change first."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "asv",
            "compare",
            "--config",
            config,
            "--machine",
            machine,
            "--factor",
            str(factor),
            "--sort",
            "ratio",
            base,
            head,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    return proc.stdout


def summary_markdown(table, verdict, base, head, factor, profile=PROFILE):
    lines = [
        "## dsib: `asv continuous` %s..%s at the `%s` profile" % (base[:8], head[:8], profile),
        "",
        "%d cells compared at factor %.2f (peak memory %.2f, file sizes %.2f): %d slower or bigger, "
        "%d faster or smaller, %d newly failing, %d dropped. Judged by: %s. Machine load: %s."
        % (
            len(verdict["compared"]),
            factor,
            MEMORY_FACTOR,
            SIZE_FACTOR,
            len(verdict["worse"]),
            len(verdict["better"]),
            len(verdict["failed"]),
            len(verdict["dropped"]),
            verdict.get("judged", counting()),
            load.describe_load(verdict.get("load")),
        ),
        "",
    ]
    for label, key in (
        ("Slower", "worse"),
        ("Failing", "failed"),
        ("Dropped (measured at the base, skipped or absent at the head)", "dropped"),
        ("Faster", "better"),
    ):
        if verdict[key]:
            lines += (
                ["%s:" % label, ""]
                + [
                    "- `%s`%s" % (name, SAME_WORK if key == "worse" and name in verdict.get("same_work", ()) else "")
                    for name in verdict[key]
                ]
                + [""]
            )
    every = cell_lines(verdict)
    if every:
        heading = cells_heading(verdict, verdict.get("judged", counting()))
        lines += ["<details><summary>%s</summary>" % heading, "", "```"] + every + ["```", "", "</details>", ""]
    return "\n".join(
        lines + ["<details><summary>asv compare</summary>", "", "```", table.rstrip(), "```", "", "</details>", ""]
    )


# Said of a cell slower in time whose instruction count did not move.
SAME_WORK = ": same work, slower: memory, I/O or the machine"


def mark(verdict, name):
    """A cell's verdict in a word: slower, faster, failed or same."""
    for key, word in (("worse", "slower"), ("better", "faster"), ("failed", "failed")):
        if name in verdict[key]:
            return word
    return "same"


def cell_lines(verdict):
    """Both verdicts of every compared timed cell, a line each: its time's ratio head / base with its
    bounds (``bounds.estimate``) and mark, and its instructions' ratio and mark where counted."""
    lines = []
    for name in verdict["compared"]:
        if not sampled(name):
            continue
        estimate = verdict["estimates"].get(name)
        time = "%.3f [%.3f, %.3f]" % estimate if estimate else "%.3f" % verdict["ratios"][name]
        twin = counted_twin(name)
        counted = (
            "  instructions %.4f %-6s" % (verdict["ratios"][twin], mark(verdict, twin))
            if twin in verdict["ratios"]
            else ""
        )
        lines.append("  time %s %-6s%s  %s" % (time, mark(verdict, name), counted, name))
    return lines


def cells_heading(verdict, judged):
    return "every timed cell, head / base: time (Hodges-Lehmann ratio, bounds at one-sided p = %.1e)%s" % (
        bounds.level(len([name for name in verdict["compared"] if sampled(name)])),
        ", and instructions" if judged == "instructions and time" else "; %s" % judged,
    )


def gate_status(asv_statuses, verdict, base, head, factor=FACTOR, stream=None):
    """``base`` and ``head``: what the two sides are called (a commit's short hash, a build).
    The gate's exit status: asv's own failure where asv failed otherwise than by a slower case
    (a build, a case that errs: its output says why), else 1 where dsib's verdict has a slower,
    newly failing or dropped cell, each named on ``stream`` with its threshold (asv's table marks
    times and peak memory at one factor; a file's growth beyond 1 % only this verdict sees)."""
    stream = stream or sys.stderr
    own = [status for status in asv_statuses if status not in (0, 1)]
    if own:
        return own[0]
    lines = cell_lines(verdict)
    if lines:
        stream.write(
            "dsib compare: %s:\n%s\n" % (cells_heading(verdict, verdict.get("judged", counting())), "\n".join(lines))
        )
    for key, what in (
        ("worse", "slower or bigger"),
        ("failed", "newly failing"),
        ("dropped", "measured at %s and skipped or absent at %s" % (base, head)),
    ):
        if verdict[key]:
            stream.write(
                "dsib compare: %d cells %s:\n%s\n"
                % (
                    len(verdict[key]),
                    what,
                    "\n".join(
                        "  %s (threshold %.2f)%s"
                        % (name, threshold(name, factor), SAME_WORK if name in verdict.get("same_work", ()) else "")
                        if key == "worse"
                        else "  " + name
                        for name in verdict[key]
                    ),
                )
            )
    return 1 if verdict["worse"] or verdict["failed"] or verdict["dropped"] else 0


def passes(benchmarks, factor=FACTOR, sampling=SAMPLING):
    """The gate's two passes over ``benchmarks`` (patterns), each (patterns, asv's sampling
    attributes, asv's factor) where it has any: the timed cells in rounds, then peak memory, file
    sizes and instruction counts once."""
    for patterns, pass_sampling, pass_factor in (
        ([p for p in benchmarks if sampled(p)], sampling, factor),
        ([p for p in benchmarks if not sampled(p)], UNSAMPLED, MEMORY_FACTOR),
    ):
        if patterns:
            yield patterns, pass_sampling, pass_factor


def forget_results(results_dir, machine, commit):
    """``commit``'s earlier results in ``results_dir``: asv keeps them beside the new ones, and cells
    of another selection would linger."""
    for path in glob.glob(os.path.join(results_dir, machine, commit[:8] + "-*.json")):
        os.remove(path)


def run_passes(root, results_dir, machine, benchmarks, command, factor=FACTOR, sampling=SAMPLING, env=None):
    """The gate's passes over ``benchmarks`` (``passes``) into one results directory (asv keeps the
    first's cells), each ``command(patterns, sampling, factor)`` run in ``root`` with the gate's
    process settings; returns (asv's exit statuses, the passes' load logs)."""
    env = dict(env if env is not None else os.environ, **PROCESS_ENV)
    statuses, logs = [], []
    for patterns, pass_sampling, pass_factor in passes(benchmarks, factor, sampling):
        # The machine's load is logged beside the results, as for every run (dsib_tools.machine_load).
        logs.append(load.log_path(results_dir, machine))
        # The suite's setup_cache builds the cells these patterns select only (benchmarks.SELECTED).
        selecting = dict(env, DSIB_SELECT="|".join("(?:%s)" % p for p in patterns))
        statuses.append(load.watch(command(patterns, pass_sampling, pass_factor), logs[-1], cwd=root, env=selecting))
    return statuses, logs


def run(
    root,
    base,
    head,
    machine,
    factor=FACTOR,
    benchmarks=BENCHMARKS,
    sampling=SAMPLING,
    results_dir=None,
    env_dir=None,
    summary=None,
    env=None,
    profile=PROFILE,
):
    """asv continuous base..head in the repository at ``root``; returns (exit status, verdict)."""
    base_hash, head_hash = resolve(root, base), resolve(root, head)
    if base_hash == head_hash:
        raise CompareError("%s and %s are the same commit (%s): nothing to compare" % (base, head, head_hash[:8]))
    benchmarks = benchmarks or gate_patterns(root, base_hash, head_hash)
    judged, benchmarks = judged_patterns(benchmarks)
    sys.stderr.write("dsib compare: %s\n" % judged)
    results_dir = results_dir or os.path.join(root, ".asv", "results-compare")
    config = write_config(root, results_dir, env_dir, profile)
    for commit in (base_hash, head_hash):
        forget_results(results_dir, machine, commit)
    # Each commit's files are built in its first round and kept (dsib.cells: keyed by the installed
    # code, so the two commits' builds are apart); the later rounds reuse them.
    statuses, logs = run_passes(
        root,
        results_dir,
        machine,
        benchmarks,
        lambda patterns, pass_sampling, pass_factor: continuous_command(
            config, machine, base_hash, head_hash, pass_factor, patterns, pass_sampling
        ),
        factor,
        sampling,
        env,
    )
    try:
        verdict = changes(results_dir, machine, base_hash, head_hash, factor)
    except CompareError:
        if not any(statuses):
            raise
        return max(statuses), None  # asv could not run them (a build failed, say): its own output says why
    verdict["load"] = load.over_logs(logs)
    verdict["judged"] = judged
    sys.stderr.write("dsib compare: machine load during the comparison: %s\n" % load.describe_load(verdict["load"]))
    status = gate_status(statuses, verdict, base_hash[:8], head_hash[:8], factor)
    if summary:
        with open(summary, "a") as f:
            f.write(
                summary_markdown(
                    compare_table(config, machine, base_hash, head_hash, factor),
                    verdict,
                    base_hash,
                    head_hash,
                    factor,
                    profile,
                )
            )
    return status, verdict

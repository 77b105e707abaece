"""``make noise``: the noise floor of ``make compare``, and the changes it catches, measured.

A throwaway clone gets one commit on top of HEAD; ``asv continuous`` then compares it with its
parent, exactly as ``make compare`` would, several times.

- A/A (the default): the commit changes nothing but a comment in an installed module. Every
  case it flags is a false alarm.
- With ``slowdown`` (``make noise SLOWDOWN="csv.write=1.25 parquet.read=1.30"``): the commit
  makes those adapters slower by those factors (``slowdown_source``). The record then says, per
  run, which of the cases that call them were flagged and which were missed: the sensitivity of
  the comparison to a real change of that size, as measured on this machine, misses included.

The record (``noise/<machine>-<profile>[-slowdown].json``) keeps the base commit, the gate's cells,
the sampling, and per run the gate's flags and every cell's raw samples (or, for peak memory and
file sizes, its value) at both commits. Every figure of the README's tables is recomputed from
those samples with asv's own statistics and rule (``replay``), and a test checks that the
recomputed flags are the ones the gate raised.
"""

import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

from . import compare
from . import machine_load

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
    ]
    for (name, side), factor in sorted(slowdown.items()):
        if side not in ("read", "write"):
            raise ValueError("a slowdown's side is read or write, not %r" % side)
        lines.append("FORMATS[%r].%s = _slower(FORMATS[%r].%s, %r)" % (name, side, name, side, float(factor)))
    return "\n".join(lines) + "\n"


def touches(cell, slowdown):
    """Whether ``cell`` (``"reads.ReadFromPageCache.time_read('nyc_taxi', 'parquet', 'plain')"``) times a call
    that ``slowdown`` slows: its format is one of them and its method names that side."""
    method = cell.split("(", 1)[0].rsplit(".", 1)[-1]
    return any("'%s'" % name in cell and side in method for name, side in slowdown)


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


def raw_of(cells, gate):
    """What a record keeps of one commit's cells of the ``gate`` (asv's results hold every cell of
    a benchmark, None where it did not run): each timed cell's samples and asv's ``number`` (from
    which asv's own statistics are recomputed), each other cell's value."""
    samples, values, numbers, failed, skipped = {}, {}, {}, [], []
    for name, (value, (stats, cell_samples), _) in sorted(cells.items()):
        if name not in gate:
            continue
        if not compare._measured(value):
            (failed if value is None else skipped).append(name)
        elif compare.sampled(name):
            samples[name], numbers[name] = cell_samples, stats["number"]
        else:
            values[name] = value
    return {"samples": samples, "number": numbers, "values": values, "failed": failed, "skipped": skipped}


def cells_of(raw):
    """``raw_of`` undone: cells as ``compare.load_cells`` returns them, asv's statistics computed
    afresh from the samples, so that every figure of a record follows from its raw data."""
    from asv_runner.statistics import compute_stats

    cells = {}
    for name, samples in raw["samples"].items():
        value, stats = compute_stats(samples, raw["number"][name])
        cells[name] = (value, (stats, samples), "record")
    for name, value in raw["values"].items():
        cells[name] = (value, (None, None), "record")
    for name in raw["failed"]:
        cells[name] = (None, (None, None), "record")
    for name in raw["skipped"]:
        cells[name] = (float("nan"), (None, None), "record")
    return cells


def replay(run, factor):
    """A run's base and head cells and the gate's verdict, all recomputed from its raw data."""
    before, after = cells_of(run["base"]), cells_of(run["head"])
    return before, after, compare.verdict_of(before, after, factor)


def _loads(record):
    """Each run's machine load, as the README says it: other processes' cores / steal."""
    return ", ".join(machine_load.describe_record(r.get("load")) for r in record["runs"])


def measure(
    root,
    machine,
    runs=3,
    factor=compare.FACTOR,
    profile=compare.PROFILE,
    data_dir=None,
    work=None,
    progress=print,
    slowdown=None,
):
    """``runs`` comparisons of HEAD against a child that changes a comment (A/A) or, with
    ``slowdown``, makes those adapters slower; the record as a dict, with every cell's raw
    samples (or value) at both commits."""
    from data_prep import get_profile

    work = work or tempfile.mkdtemp(prefix="dsib-noise-")
    repo = clone_with_change(root, work, slowdown)
    env = dict(os.environ, DSIB_DATA_DIR=os.path.abspath(data_dir or os.path.join(root, "data")))
    base = compare.resolve(root, "HEAD")
    record = {
        "machine": machine,
        "profile": profile,
        "rows": get_profile(profile).rows,
        "grid_rows": get_profile(profile).grid_rows,
        "factor": factor,
        "thresholds": {"memory": compare.MEMORY_FACTOR, "size": compare.SIZE_FACTOR},
        "cells": compare.committed_cells(root, base),
        "sampling": dict(compare.SAMPLING),
        "unsampled": dict(compare.UNSAMPLED),
        "process_env": dict(compare.PROCESS_ENV),
        "cpu_affinity": compare._last_cpu(),
        "slowdown": SLOWDOWN,
        "commit": base,
        "head": "the base plus one commit appending to %s: %r"
        % (COMMENT_FILE, slowdown_source(slowdown) if slowdown else COMMENT),
        "injected": sorted([name, side, f] for (name, side), f in (slowdown or {}).items()),
        "date": datetime.date.today().isoformat(),
        "runs": [],
    }
    gate = set(record["cells"])
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
            raise compare.CompareError("run %d did not complete (exit %d): nothing recorded" % (i + 1, status))
        before, after = (
            compare.load_cells(results_dir, machine, compare.resolve(repo, rev)) for rev in ("HEAD~1", "HEAD")
        )
        record["runs"].append(
            dict(
                {
                    "seconds": round(seconds, 1),
                    "gate_exit": status,
                    "base": raw_of(before, gate),
                    "head": raw_of(after, gate),
                    "load": machine_load.as_record(verdict["load"]),
                },
                **dict((key, verdict[key]) for key in ("worse", "better", "failed", "dropped")),
            )
        )
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


SLOWDOWN = 1.25  # the detection test's injected slowdown


def _slowed(cells, factor):
    """``cells`` as if every case took ``factor`` times as long: asv's stats scale with the samples."""
    unscaled = ("repeat", "number")
    return dict(
        (
            name,
            (
                value * factor,
                (
                    dict((k, v if k in unscaled or v is None else v * factor) for k, v in stats.items()),
                    [x * factor for x in samples],
                ),
                version,
            ),
        )
        for name, (value, (stats, samples), version) in cells.items()
        if compare._measured(value) and stats and samples
    )


def detects(before, after, slowdown=SLOWDOWN):
    """For each cell: in how many of the two directions asv's rule would flag a ``slowdown`` of
    one side, replaying these very samples (0, 1 or 2): which changes this noise lets through."""
    hits = {}
    for base, head in ((before, after), (after, before)):
        for name in compare.verdict_of(base, _slowed(head, slowdown))["worse"]:
            hits[name] = hits.get(name, 0) + 1
    return hits


def save(record, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    text = json.dumps(record, indent=1, sort_keys=True)
    # A list of numbers (a cell's samples) on one line: a record stays readable, and diffs short.
    text = re.sub(r"\[([^\[\]{}\"]*)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, path)


def load(path):
    with open(path) as f:
        return json.load(f)


_VARIANT = re.compile(r", '(plain|str|cat)'\)$")


def case_of(cell):
    """A cell without its string variant: one row per benchmark and format."""
    return _VARIANT.sub(")", cell)


def replays(record):
    """Each run of ``record`` replayed from its raw data: (before, after, verdict)."""
    return [replay(run, record["factor"]) for run in record["runs"]]


def per_case(record):
    """Timed cases: (case, cells, median spread, worst spread, A/A ratio furthest from 1, flagged,
    share of replayed slowdowns flagged) rows, every figure from the record's raw samples."""
    rows = {}
    for before, after, verdict in replays(record):
        flagged = set(verdict["worse"]) | set(verdict["better"])
        ratios = compare.ratios_of(before, after)
        spreads = [compare.spreads_of(cells) for cells in (before, after)]
        caught = detects(before, after, record["slowdown"])
        for cell in verdict["compared"]:
            if not compare.sampled(cell):
                continue
            row = rows.setdefault(
                case_of(cell), {"cells": set(), "spreads": [], "ratios": [], "flagged": 0, "caught": 0, "tries": 0}
            )
            row["cells"].add(cell)
            row["caught"] += caught.get(cell, 0)
            row["tries"] += 2
            row["spreads"] += [spreads[0][cell], spreads[1][cell]]
            row["ratios"].append(ratios[cell])
            row["flagged"] += cell in flagged
    return [
        (
            name,
            len(r["cells"]),
            statistics.median(r["spreads"]),
            max(r["spreads"]),
            _furthest(r["ratios"]),
            r["flagged"],
            r["caught"] / r["tries"],
        )
        for name, r in sorted(rows.items())
    ]


def _furthest(ratios):
    return max(ratios, key=lambda x: max(x, 1 / x))


def unsampled_rows(record):
    """Peak memory and file sizes: (benchmark, cells, threshold, A/A ratio furthest from 1 and its
    cell, flagged) rows, from the record's raw values."""
    rows = {}
    for before, after, verdict in replays(record):
        flagged = set(verdict["worse"]) | set(verdict["better"])
        ratios = compare.ratios_of(before, after)
        for cell in verdict["compared"]:
            if compare.sampled(cell):
                continue
            row = rows.setdefault(cell.split("(", 1)[0], {"cells": set(), "ratios": [], "flagged": 0})
            row["cells"].add(cell)
            row["ratios"].append((ratios[cell], cell))
            row["flagged"] += cell in flagged
    return [
        (
            name,
            len(r["cells"]),
            compare.threshold(name, record["factor"]),
            max(r["ratios"], key=lambda rc: max(rc[0], 1 / rc[0])),
            r["flagged"],
        )
        for name, r in sorted(rows.items())
    ]


def _injected(record):
    return dict(((name, side), factor) for name, side, factor in record.get("injected") or [])


def markdown(record):
    """The README's table of a record: per case for A/A, per slowed cell for a slowdown."""
    return slowdown_markdown(record) if _injected(record) else aa_markdown(record)


def _minutes(record):
    return "/".join("%.1f" % (r["seconds"] / 60) for r in record["runs"])


def slowdown_markdown(record):
    runs, slowdown = replays(record), _injected(record)
    cells = sorted(set(c for _, _, v in runs for c in v["compared"] if touches(c, slowdown)))
    caught = [sum(c in v["worse"] for c in cells) for _, _, v in runs]
    stray = [len([c for c in v["worse"] + v["better"] if not touches(c, slowdown)]) for _, _, v in runs]
    lines = [
        "Slowdown at factor %.2f, profile `%s`, machine `%s` (%s), commit `%s`: %s. In %d runs the %d cases that "
        "call them were flagged slower %s times; other cases flagged: %s; a run took %s min; other processes "
        "and steal during each run: %s."
        % (
            record["factor"],
            record["profile"],
            record["machine"],
            record["date"],
            record["commit"][:8],
            ", ".join(
                "%s %ss %d %% slower" % (name, side, round(100 * (f - 1)))
                for (name, side), f in sorted(slowdown.items())
            ),
            len(runs),
            len(cells),
            " + ".join("%d/%d" % (c, len(cells)) for c in caught),
            " + ".join(map(str, stray)),
            _minutes(record),
            _loads(record),
        ),
        "",
        "| slowed case | " + " | ".join("run %d: ratio" % (i + 1) for i in range(len(runs))) + " | flagged |",
        "| --- | " + " | ".join("---:" for _ in runs) + " | ---: |",
    ]
    ratios = [compare.ratios_of(before, after) for before, after, _ in runs]
    for cell in cells:
        shown = [
            "%.3f%s" % (r[cell], "" if cell in v["worse"] else " (missed)") if cell in r else "n/a"
            for r, (_, _, v) in zip(ratios, runs)
        ]
        lines.append(
            "| `%s` | %s | %d of %d |"
            % (cell, " | ".join(shown), sum(cell in v["worse"] for _, _, v in runs), len(runs))
        )
    return "\n".join(lines)


def aa_markdown(record):
    runs = replays(record)
    flagged = [len(v["worse"]) + len(v["better"]) for _, _, v in runs]
    timed = per_case(record)
    caught = sum(row[-1] * 2 * row[1] for row in timed) / sum(2 * row[1] for row in timed)
    sampling = record["sampling"]
    lines = [
        "A/A at factor %.2f (peak memory %.2f, file sizes %.2f), profile `%s`, machine `%s` (%s), base `%s`: "
        "%s cells flagged in %d runs of %s cells compared; a run took %s min; other processes and steal "
        "during each run: %s. Timed cells: %d samples a commit, "
        "one call each (`number` %s), one process each. The same samples with one side made %d %% slower: "
        "flagged in %d %% of cells and directions."
        % (
            record["factor"],
            record["thresholds"]["memory"],
            record["thresholds"]["size"],
            record["profile"],
            record["machine"],
            record["date"],
            record["commit"][:8],
            " + ".join(map(str, flagged)),
            len(runs),
            "/".join(str(len(v["compared"])) for _, _, v in runs),
            _minutes(record),
            _loads(record),
            sampling["rounds"],
            "/".join(
                sorted(
                    set(str(n) for r in record["runs"] for side in ("base", "head") for n in r[side]["number"].values())
                )
            ),
            round(100 * (record["slowdown"] - 1)),
            round(100 * caught),
        ),
        "",
        "| timed case (variants: plain, str, cat) | cells | spread, median | spread, worst | A/A ratio, furthest "
        "from 1 | flagged | %d %% slower, flagged |" % round(100 * (record["slowdown"] - 1)),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, cells, median, worst, ratio, flags, share in timed:
        lines.append(
            "| `%s` | %d | %.1f%% | %.1f%% | %.3f | %d | %d%% |"
            % (name, cells, 100 * median, 100 * worst, ratio, flags, round(100 * share))
        )
    lines += [
        "",
        "| measured once a commit | cells | threshold | A/A ratio, furthest from 1 (cell) | flagged |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    for name, cells, limit, (ratio, cell), flags in unsampled_rows(record):
        lines.append("| `%s` | %d | %.2f | %.4f (`%s`) | %d |" % (name, cells, limit, ratio, cell[len(name) :], flags))
    return "\n".join(lines)


def published_spreads(results_dir, machine=None):
    """The spread of the published ``default`` run (the newest commit, newest pyarrow and pandas),
    per time benchmark: (machine, Results, [(benchmark, cells, samples a cell, median, worst)])."""
    from asv.commands.compare import unroll_result

    from .report import find_results

    machine, res = find_results(results_dir, machine, "DSIB_PROFILEdefault")
    rows = {}
    for key in sorted(res.get_all_result_keys()):
        if ".time_" not in key:
            continue
        params = res.get_result_params(key)
        for _, value, stats, _ in unroll_result(
            key,
            params,
            res.get_result_value(key, params),
            res.get_result_stats(key, params),
            res.get_result_samples(key, params),
        ):
            if value is None or value != value or value <= 0 or not stats or (stats.get("repeat") or 1) < 2:
                continue  # failed, skipped, or one sample: no spread to speak of
            row = rows.setdefault(key, {"spreads": [], "samples": set()})
            row["spreads"].append((stats["q_75"] - stats["q_25"]) / value)
            row["samples"].add(stats["repeat"])
    return (
        machine,
        res,
        [
            (key, len(r["spreads"]), _span(r["samples"]), statistics.median(r["spreads"]), max(r["spreads"]))
            for key, r in sorted(rows.items())
        ],
    )


def _span(numbers):
    low, high = min(numbers), max(numbers)
    return str(low) if low == high else "%d–%d" % (low, high)


def published_markdown(results_dir, machine=None):
    machine, res, rows = published_spreads(results_dir, machine)
    lines = [
        "The published `default` run (machine `%s`, commit %s, %s): spread of each case's samples."
        % (machine, res.commit_hash[:8], res.env_name),
        "",
        "| benchmark | cells | samples a cell | spread, median | spread, worst |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for key, cells, samples, median, worst in rows:
        lines.append("| `%s` | %d | %s | %.1f%% | %.1f%% |" % (key, cells, samples, 100 * median, 100 * worst))
    return "\n".join(lines)

"""``make noise``: the noise floor of ``make compare``, and the changes it catches, measured.

A throwaway clone gets one commit on top of HEAD; ``asv continuous`` then compares it with its
parent, exactly as ``make compare`` would, several times.

- A/A (the default): the commit changes nothing but a comment in an installed module. Every
  case it flags is a false alarm.
- With ``slowdown`` (``make noise SLOWDOWN="csv.write=1.25 parquet.read=1.30"``): the commit
  makes those adapters slower by those factors (``slowdown_source``). The record then says, per
  run, which of the cases that call them were flagged and which were missed: the sensitivity of
  the comparison to a real change of that size, as measured on this machine, misses included.

The record (``noise/<machine>-<profile>[-slowdown].json``) keeps each run's flags and each cell's
ratio and relative spread, (q75 - q25) / median, from which the README's tables are made.
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

COMMENT_FILE = os.path.join("dsib", "formats", "__init__.py")
COMMENT = "\n# A/A comparison: this comment is the only difference from the parent commit.\n"


def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=dsib noise", "-c", "user.email=noise@dsib.invalid"] + list(args),
                   cwd=repo, check=True, stdout=subprocess.DEVNULL)


def slowdown_source(slowdown):
    """Python to append to the format registry (``COMMENT_FILE``) so that each ``(format, side)`` of ``slowdown``
    (``{("csv", "write"): 1.25}``; side "read" or "write") takes that many times as long: after
    each call it spins for the rest of the call's own time times the factor, as a slower codec
    would. Spinning, not sleeping: a sleep's wake-up latency would add more than asked."""
    lines = ["", "", "# Injected by dsib.noise: %s." % ", ".join(
        "%s %ss take %s times as long" % (name, side, factor) for (name, side), factor in sorted(slowdown.items())),
        "import time as _time", "", "",
        "def _slower(call, factor):",
        "    def slowly(*args, **kwargs):",
        "        start = _time.perf_counter()",
        "        result = call(*args, **kwargs)",
        "        until = _time.perf_counter() + (factor - 1) * (_time.perf_counter() - start)",
        "        while _time.perf_counter() < until:",
        "            pass",
        "        return result",
        "    return slowly", "", ""]
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


def measure(root, machine, runs=3, factor=compare.FACTOR, profile=compare.PROFILE, data_dir=None, work=None,
            progress=print, slowdown=None):
    """``runs`` comparisons of HEAD against a child that changes a comment (A/A) or, with
    ``slowdown``, makes those adapters slower; the record as a dict."""
    from data_prep import get_profile

    work = work or tempfile.mkdtemp(prefix="dsib-noise-")
    repo = clone_with_change(root, work, slowdown)
    env = dict(os.environ, DSIB_DATA_DIR=os.path.abspath(data_dir or os.path.join(root, "data")))
    record = {"machine": machine, "profile": profile, "rows": get_profile(profile).rows,
              "grid_rows": get_profile(profile).grid_rows, "factor": factor,
              "benchmarks": list(compare.BENCHMARKS), "sampling": dict(compare.SAMPLING),
              "process_env": dict(compare.PROCESS_ENV), "cpu_affinity": compare._last_cpu(),
              "slowdown": SLOWDOWN, "commit": compare.resolve(root, "HEAD"),
              "injected": sorted([name, side, f] for (name, side), f in (slowdown or {}).items()),
              "date": datetime.date.today().isoformat(), "runs": []}
    for i in range(runs):
        results_dir = os.path.join(work, "results-%d" % (i + 1))
        start = time.time()
        status, verdict = compare.run(repo, "HEAD~1", "HEAD", machine, factor, results_dir=results_dir,
                                      env_dir=os.path.join(root, ".asv", "env"), env=env, profile=profile)
        seconds = time.time() - start
        if verdict is None:
            raise compare.CompareError("A/A run %d could not run (asv exit %d)" % (i + 1, status))
        cells = [compare.load_cells(results_dir, machine, compare.resolve(repo, rev)) for rev in ("HEAD~1", "HEAD")]
        before, after = (compare.spreads_of(c) for c in cells)
        ratios = compare.ratios_of(*cells)
        caught = detects(*cells)
        record["runs"].append({
            "seconds": round(seconds, 1), "asv_exit": status, "worse": verdict["worse"],
            "better": verdict["better"], "failed": verdict["failed"], "compared": len(verdict["compared"]),
            "cells": dict((name, {"ratio": round(ratios[name], 4), "spread": [round(before[name], 4),
                                                                              round(after[name], 4)],
                                  "slowdown_flagged": caught.get(name, 0)})
                          for name in verdict["compared"] if name in before and name in after)})
        progress("%s run %d of %d: %d cells, %d flagged slower, %d flagged faster, %.1f min" % (
            "Slowdown" if slowdown else "A/A", i + 1, runs, len(verdict["compared"]), len(verdict["worse"]),
            len(verdict["better"]), seconds / 60))
    shutil.rmtree(work, ignore_errors=True)
    return record


SLOWDOWN = 1.25  # the detection test's injected slowdown


def _slowed(cells, factor):
    """``cells`` as if every case took ``factor`` times as long: asv's stats scale with the samples."""
    unscaled = ("repeat", "number")
    return dict((name, (value * factor, (dict((k, v if k in unscaled or v is None else v * factor)
                                               for k, v in stats.items()),
                                         [x * factor for x in samples]), version))
                for name, (value, (stats, samples), version) in cells.items()
                if compare._measured(value) and stats and samples)


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
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def load(path):
    with open(path) as f:
        return json.load(f)


_VARIANT = re.compile(r", '(plain|str|cat)'\)$")


def case_of(cell):
    """A cell without its string variant: one row per benchmark and format."""
    return _VARIANT.sub(")", cell)


def per_case(record):
    """(case, cells, median spread, worst spread, A/A ratio furthest from 1, flagged, share of
    replayed slowdowns flagged) rows."""
    rows = {}
    for run in record["runs"]:
        flagged = set(run["worse"]) | set(run["better"])
        for cell, figures in run["cells"].items():
            row = rows.setdefault(case_of(cell), {"cells": set(), "spreads": [], "ratios": [], "flagged": 0,
                                                  "caught": 0, "tries": 0})
            row["cells"].add(cell)
            row["caught"] += figures["slowdown_flagged"]
            row["tries"] += 2
            row["spreads"] += figures["spread"]
            row["ratios"].append(figures["ratio"])
            row["flagged"] += cell in flagged
    return [(name, len(r["cells"]), statistics.median(r["spreads"]), max(r["spreads"]),
             max(r["ratios"], key=lambda x: max(x, 1 / x)), r["flagged"], r["caught"] / r["tries"])
            for name, r in sorted(rows.items())]


def _injected(record):
    return dict(((name, side), factor) for name, side, factor in record.get("injected") or [])


def markdown(record):
    """The README's table of a record: per case for A/A, per slowed cell for a slowdown."""
    return slowdown_markdown(record) if _injected(record) else aa_markdown(record)


def slowdown_markdown(record):
    runs, slowdown = record["runs"], _injected(record)
    cells = sorted(set(c for r in runs for c in r["cells"] if touches(c, slowdown)))
    caught = [sum(c in r["worse"] for c in cells) for r in runs]
    stray = [len([c for c in r["worse"] + r["better"] if not touches(c, slowdown)]) for r in runs]
    lines = ["Slowdown at factor %.2f, profile `%s`, machine `%s` (%s), commit `%s`: %s. In %d runs the %d cases that "
             "call them were flagged slower %s times; other cases flagged: %s; a run took %s min." % (
                 record["factor"], record["profile"], record["machine"], record["date"], record["commit"][:8],
                 ", ".join("%s %ss %d %% slower" % (name, side, round(100 * (f - 1)))
                           for (name, side), f in sorted(slowdown.items())),
                 len(runs), len(cells), " + ".join("%d/%d" % (c, len(cells)) for c in caught),
                 " + ".join(map(str, stray)), "/".join("%.1f" % (r["seconds"] / 60) for r in runs)), "",
             "| slowed case | " + " | ".join("run %d: ratio" % (i + 1) for i in range(len(runs))) + " | flagged |",
             "| --- | " + " | ".join("---:" for _ in runs) + " | ---: |"]
    for cell in cells:
        ratios = ["%.3f%s" % (r["cells"][cell]["ratio"], "" if cell in r["worse"] else " (missed)")
                  if cell in r["cells"] else "n/a" for r in runs]
        lines.append("| `%s` | %s | %d of %d |" % (cell, " | ".join(ratios), sum(cell in r["worse"] for r in runs),
                                                 len(runs)))
    return "\n".join(lines)


def aa_markdown(record):
    runs = record["runs"]
    flagged = [len(r["worse"]) + len(r["better"]) for r in runs]
    caught = [c["slowdown_flagged"] for r in runs for c in r["cells"].values()]
    lines = ["A/A at factor %.2f, profile `%s`, machine `%s` (%s): %s cases flagged in %d runs of %s cells; "
             "a run took %s min. The same samples with one side made %d %% slower: flagged in %d %% of "
             "cells and directions." % (
                 record["factor"], record["profile"], record["machine"], record["date"],
                 " + ".join(map(str, flagged)), len(runs), "/".join(str(r["compared"]) for r in runs),
                 "/".join("%.1f" % (r["seconds"] / 60) for r in runs), round(100 * (record["slowdown"] - 1)),
                 round(100.0 * sum(caught) / (2 * len(caught)))), "",
             "| case (variants: plain, str, cat) | cells | spread, median | spread, worst | A/A ratio, furthest "
             "from 1 | flagged | %d %% slower, flagged |" % round(100 * (record["slowdown"] - 1)),
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, cells, median, worst, ratio, flags, caught in per_case(record):
        lines.append("| `%s` | %d | %.1f%% | %.1f%% | %.3f | %d | %d%% |" % (
            name, cells, 100 * median, 100 * worst, ratio, flags, round(100 * caught)))
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
        for _, value, stats, _ in unroll_result(key, params, res.get_result_value(key, params),
                                                res.get_result_stats(key, params), res.get_result_samples(key, params)):
            if value is None or value != value or value <= 0 or not stats or (stats.get("repeat") or 1) < 2:
                continue  # failed, skipped, or one sample: no spread to speak of
            row = rows.setdefault(key, {"spreads": [], "samples": set()})
            row["spreads"].append((stats["q_75"] - stats["q_25"]) / value)
            row["samples"].add(stats["repeat"])
    return machine, res, [(key, len(r["spreads"]), _span(r["samples"]), statistics.median(r["spreads"]),
                           max(r["spreads"])) for key, r in sorted(rows.items())]


def _span(numbers):
    low, high = min(numbers), max(numbers)
    return str(low) if low == high else "%d–%d" % (low, high)


def published_markdown(results_dir, machine=None):
    machine, res, rows = published_spreads(results_dir, machine)
    lines = ["The published `default` run (machine `%s`, commit %s, %s): spread of each case's samples." % (
        machine, res.commit_hash[:8], res.env_name), "",
        "| benchmark | cells | samples a cell | spread, median | spread, worst |",
        "| --- | ---: | ---: | ---: | ---: |"]
    for key, cells, samples, median, worst in rows:
        lines.append("| `%s` | %d | %s | %.1f%% | %.1f%% |" % (key, cells, samples, 100 * median, 100 * worst))
    return "\n".join(lines)

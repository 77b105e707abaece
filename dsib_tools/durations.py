"""How long a run's benchmarks took, from asv's results files: the budget of a run
(``python -m dsib_tools table durations``) and of each engine's benchmarks (``table engine-durations``)."""

import os
import statistics

from . import asv_results
from .markdown import table


def _benchmark_durations(res):
    """{benchmark: seconds} of one run: asv's duration of each benchmark (its setup_cache's and the
    build's, keyed "<...>", left out)."""
    return dict((name, seconds) for name, seconds in res.duration.items() if not name.startswith("<"))


def durations_markdown(path, prefix=""):
    """Each benchmark's total duration in the asv results file ``path`` (those whose name starts
    with ``prefix``), longest first, and their sum."""
    durations = _benchmark_durations(asv_results.load(path))
    rows = sorted(((n, d) for n, d in durations.items() if n.startswith(prefix) and d), key=lambda row: -row[1])
    body = [("`%s`" % n, _minutes(d)) for n, d in rows] + [("total", _minutes(sum(d for _, d in rows)))]
    return table(["benchmark", "asv's duration"], body, "lr")


# No median rests on fewer than three samples where a sample takes under a second.
FLOOR_SAMPLES, FLOOR_UNDER_SECONDS = 3, 1.0


def floor_markdown(path):
    """Where a run's asv time went, a benchmark class a row, from the asv results file ``path``
    (its samples recorded, ``--record-samples``): its cases' time; of it, the samples themselves;
    the rest (each case's process, its ``setup``, its untimed first call, the peak-memory and
    tracked cases, which keep no samples); and the samples' floor under item 6's rule, each cell's
    median taken three times where it is under a second and once where it is not. The classes'
    ``setup_cache`` (building and checking every cell's files) is a row of its own."""
    res = asv_results.load(path)
    classes = {}
    for name, seconds in _benchmark_durations(res).items():
        classes.setdefault(name.rsplit(".", 1)[0], [0, 0.0, 0.0, 0.0])[1] += seconds or 0
    for cell in asv_results.cells(res):
        row = classes.setdefault(cell["benchmark"].rsplit(".", 1)[0], [0, 0.0, 0.0, 0.0])
        # A tracked case may keep samples too, in its own unit (a throughput's MB/s): no seconds.
        if not cell["samples"] or not _timed(cell["benchmark"]):
            continue
        number = (cell["stats"] or {}).get("number") or 1
        sample_times = [s * number for s in cell["samples"]]  # asv keeps a call's time: a sample is `number` calls
        median = statistics.median(sample_times)
        row[0] += 1
        row[2] += sum(sample_times)
        row[3] += median * (FLOOR_SAMPLES if median < FLOOR_UNDER_SECONDS else 1)
    rows = sorted(classes.items(), key=lambda kv: -kv[1][1])
    setup_cache = sum(seconds for name, seconds in res.duration.items() if name.startswith("<"))
    body = [
        ("`%s`" % cls, cells, _minutes(cases), _minutes(samples), _minutes(cases - samples), _minutes(floor))
        for cls, (cells, cases, samples, floor) in rows
    ]
    total = [sum(r[i] for _, r in rows) for i in range(4)]
    body.append(
        (
            "`setup_cache` (every cell's files built and checked)",
            "",
            _minutes(setup_cache),
            "",
            _minutes(setup_cache),
            "",
        )
    )
    body.append(
        (
            "total",
            total[0],
            _minutes(total[1] + setup_cache),
            _minutes(total[2]),
            _minutes(total[1] - total[2] + setup_cache),
            _minutes(total[3]),
        )
    )
    headers = ["benchmark class", "cells sampled", "asv's time", "of it, samples", "the rest", "samples at the floor"]
    return table(headers, body, "lrrrrr")


def _timed(benchmark):
    """Whether ``benchmark``'s samples are seconds: asv's time benchmarks (``time_``)."""
    return benchmark.rsplit(".", 1)[-1].startswith("time_")


def first_samples(path):
    """{benchmark class: [timed cells with two samples or more, those whose first sample is the
    slowest, the share of them expected by chance, sub-second cells with fewer than three
    samples]} of the asv results file ``path`` (its samples recorded, ``--record-samples``). A
    first sample slowest more often than by chance is a warm-up the case left in its timing."""
    classes = {}
    for cell in asv_results.cells(asv_results.load(path)):
        name = cell["benchmark"]
        if not _timed(name):
            continue
        row = classes.setdefault(name.rsplit(".", 1)[0], [0, 0, 0.0, 0])
        samples = cell["samples"]
        if not samples:
            continue
        number = (cell["stats"] or {}).get("number") or 1
        if statistics.median(samples) * number < FLOOR_UNDER_SECONDS and len(samples) < FLOOR_SAMPLES:
            row[3] += 1
        if len(samples) >= 2:
            row[0] += 1
            row[1] += samples[0] == max(samples)
            row[2] += 1.0 / len(samples)
    return classes


def first_samples_markdown(path):
    """``first_samples`` as a table, a class a row, with the worst class's share below."""
    classes = first_samples(path)
    body = [
        (
            "`%s`" % cls,
            cells,
            "%d (%.0f %%)" % (first, 100.0 * first / cells if cells else 0),
            "%.0f %%" % (100.0 * chance / cells if cells else 0),
            few,
        )
        for cls, (cells, first, chance, few) in sorted(classes.items())
    ]
    headers = [
        "benchmark class",
        "timed cells (2+ samples)",
        "first sample the slowest",
        "expected by chance",
        "sub-second cells under 3 samples",
    ]
    lines = [table(headers, body, "lrrrr")]
    shares = [(first / float(cells), cls) for cls, (cells, first, _, _) in classes.items() if cells]
    if shares:
        worst, cls = max(shares)
        lines += ["", "Highest share: `%s`, %.0f %% of its cells." % (cls, 100 * worst)]
    return "\n".join(lines)


def engine_durations_markdown(directory):
    """Per engine, asv's duration of each of its benchmarks, from ``directory``/<engine>.json: the
    results file after `make run ENGINE=<engine>` (asv keeps other benchmarks' durations from
    earlier runs in the same file, so only the engine's own four are read from it)."""
    from benchmarks.engines import IngestIntoEngine, QueryFromEngine
    from dsib.engines import ENGINES

    from .suite import name

    columns = [
        name(cls, method)
        for cls in (IngestIntoEngine, QueryFromEngine)
        for method in ("time_%s" % cls.operation, "peakmem_%s" % cls.operation)
    ]
    body, totals = [], []
    for engine in ENGINES.names():
        path = os.path.join(directory, engine + ".json")
        if not os.path.exists(path):
            continue
        durations = _benchmark_durations(asv_results.load(path))
        seconds = [durations.get(c) for c in columns]
        totals.append(sum(x for x in seconds if x))
        body.append(["`%s`" % engine] + [_minutes(x) if x else "-" for x in seconds] + [_minutes(totals[-1])])
    body.append(["every engine"] + [""] * len(columns) + [_minutes(sum(totals))])
    headers = ["engine"] + ["`%s`" % c.split(".", 1)[1] for c in columns] + ["total"]
    return table(headers, body, "l" + "r" * (len(columns) + 1))


def _minutes(seconds):
    return "%.2f min" % (seconds / 60) if seconds >= 60 else "%.1f s" % seconds

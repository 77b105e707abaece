"""How long a run's benchmarks took, from asv's results files: the budget of a run
(``python -m dsib_tools durations``) and of each engine's benchmarks (``engine-durations``)."""

import json
import os


def durations_markdown(path, prefix=""):
    """Each benchmark's total duration in the asv results file ``path`` (those whose name starts
    with ``prefix``), longest first, and their sum."""
    with open(path) as f:
        data = json.load(f)
    column = data["result_columns"].index("duration")
    rows = sorted(
        (
            (name, values[column])
            for name, values in data["results"].items()
            if name.startswith(prefix) and len(values) > column and values[column]
        ),
        key=lambda row: -row[1],
    )
    lines = ["| benchmark | asv's duration |", "|---|---:|"] + ["| `%s` | %s |" % (n, _minutes(d)) for n, d in rows]
    return "\n".join(lines + ["| total | %s |" % _minutes(sum(d for _, d in rows))])


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
    lines = [
        "| engine | %s | total |" % " | ".join("`%s`" % c.split(".", 1)[1] for c in columns),
        "|---|" + "---:|" * (len(columns) + 1),
    ]
    totals = []
    for engine in ENGINES.names():
        path = os.path.join(directory, engine + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            data = json.load(f)
        column = data["result_columns"].index("duration")
        seconds = [data["results"][c][column] if c in data["results"] else None for c in columns]
        totals.append(sum(x for x in seconds if x))
        lines.append(
            "| `%s` | %s | %s |"
            % (engine, " | ".join(_minutes(x) if x else "-" for x in seconds), _minutes(totals[-1]))
        )
    return "\n".join(lines + ["| every engine |%s %s |" % (" |" * len(columns), _minutes(sum(totals)))])


def _minutes(seconds):
    return "%.2f min" % (seconds / 60) if seconds >= 60 else "%.1f s" % seconds
